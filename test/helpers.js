'use strict';
// Shared test helpers: the test-only native producer, GC with a turn of the
// event loop (so posted releases and finalizers run), and live counters.
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');

const producer = require(path.join(__dirname, '..', 'build', 'Release', 'dlpack_test_producer.node'));
// The native consumer of test/native/consumer.cc: from the build that made the
// addon under test (the sanitizer build names it with DLPACK_ADDON_PATH).
const besideAddon = process.env.DLPACK_ADDON_PATH &&
  path.join(path.dirname(path.resolve(process.env.DLPACK_ADDON_PATH)), 'dlpack_test_consumer.node');
const consumer = require(besideAddon && fs.existsSync(besideAddon) ? besideAddon
  : path.join(__dirname, '..', 'build', 'Release', 'dlpack_test_consumer.node'));
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

module.exports = { producer, consumer, native, collect, turn, expectError, nativeStats, PYTHON, startPython, jsonLines };
