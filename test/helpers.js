'use strict';
// Shared test helpers: the test-only native producer, GC with a turn of the
// event loop (so posted releases and finalizers run), and live counters.
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');

const producer = require(path.join(__dirname, '..', 'build', 'Release', 'dlpack_test_producer.node'));
const { native } = require('../lib/binding');

if (typeof global.gc !== 'function') {
  throw new Error('Run the tests with --expose-gc (npm test does)');
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

async function collect(rounds = 4) {
  for (let i = 0; i < rounds; i++) {
    global.gc();
    await turn();
  }
}

// Expect `fn` to throw an error of `Class` with `code`, and return it.
function expectError(fn, Class, code, pattern) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeDefined();
  expect(error).toBeInstanceOf(Class);
  expect(error.code).toBe(code);
  if (pattern) expect(error.message).toMatch(pattern);
  return error;
}

const nativeStats = () => native.stats();

// A Python with NumPy (and PyTorch): Debian's, unless DLPACK_TEST_PYTHON names another.
const PYTHON = process.env.DLPACK_TEST_PYTHON || '/usr/bin/python3';

// A child process that answers in JSON lines: next() resolves with the next
// line it writes (kept until asked for), send(line) writes one and waits for
// the answer, exited resolves with its exit code.
function jsonLines(child) {
  const replies = [];
  const waiting = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const value = JSON.parse(line);
    if (waiting.length > 0) waiting.shift()(value);
    else replies.push(value);
  });
  const next = () => (replies.length > 0 ? Promise.resolve(replies.shift())
    : new Promise((resolve) => waiting.push(resolve)));
  const send = (line) => { child.stdin.write(`${line}\n`); return next(); };
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, next, send, exited };
}

// The JSON worker of python/dlpack_node/__main__.py: ask(command) resolves
// with its reply (or rejects with its error); stop() ends it.
function startPython(python = PYTHON) {
  const { child, send, exited } = jsonLines(spawn(python, ['-m', 'dlpack_node'], {
    env: { ...process.env, PYTHONPATH: path.join(__dirname, '..', 'python') },
    stdio: ['pipe', 'pipe', 'inherit'],
  }));
  const ask = async (command) => {
    const reply = await send(JSON.stringify(command));
    if (!reply.ok) throw new Error(`${reply.type}: ${reply.error}`);
    return reply;
  };
  const stop = async () => {
    child.stdin.end(`${JSON.stringify({ op: 'exit' })}\n`);
    return exited;
  };
  return { ask, stop, child };
}

// Shared-memory segments are sealed memfds (python/FORMAT.md): a process holds
// one through a descriptor or a mapping, both named '/memfd:<name> (deleted)'.
const MEMFD = /^\/memfd:(dlpack-[0-9a-f]{32}) \(deleted\)$/;

// The names of the segments process `pid` holds (sorted, one entry per name).
function heldSegments(pid = 'self') {
  const names = new Set();
  let fds = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch { return []; } // gone, or not ours to read
  for (const fd of fds) {
    try {
      const m = MEMFD.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) names.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  try {
    for (const line of fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const at = line.indexOf('/memfd:');
      const m = at >= 0 && MEMFD.exec(line.slice(at));
      if (m) names.add(m[1]);
    }
  } catch { /* gone */ }
  return [...names].sort();
}

// The pids (this user can inspect) that hold segment `name`: while there is
// one, the kernel keeps its memory.
function segmentHolders(name) {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && heldSegments(p).includes(name)).map(Number);
}

module.exports = { producer, native, collect, turn, expectError, nativeStats, PYTHON, startPython, jsonLines,
  heldSegments, segmentHolders };
