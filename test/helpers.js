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
  // The buffers freed on those turns leave nothing piled: the count of
  // src/addon/memory.h kPiledMax starts again, as lib/memory.js resets it on
  // the first turn after a block is made. Without this, memory garbage
  // collection released in a turn that made no block would still count, and
  // the next tensor of NATIVE_MIN bytes or more could be an ArrayBuffer.
  native.hostLoopTurned();
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
// the answer, stop(line) writes a last line (or just closes stdin) and
// resolves with the exit code, exited resolves with the exit code. Once the
// child is gone (its stdout closed: every line it wrote has been read), every
// waiting next()/send() and every later one rejects at once, so a test whose
// child died fails then instead of waiting out Jest's timeout.
function jsonLines(child) {
  const replies = [];
  const waiting = [];
  let gone = null;
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const value = JSON.parse(line);
    if (waiting.length > 0) waiting.shift().resolve(value);
    else replies.push(value);
  });
  const exited = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      gone = new Error(`child process ${child.pid} exited (code ${code}, signal ${signal}) before answering`);
      for (const w of waiting.splice(0)) w.reject(gone);
      resolve(code);
    });
  });
  const next = () => {
    if (replies.length > 0) return Promise.resolve(replies.shift());
    if (gone !== null) return Promise.reject(gone);
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
  const send = (line) => {
    if (gone === null) child.stdin.write(`${line}\n`);
    return next();
  };
  const stop = (line = undefined) => {
    if (gone === null) child.stdin.end(line === undefined ? undefined : `${line}\n`);
    return exited;
  };
  // A child that dies closes its stdin pipe: writes then fail with EPIPE,
  // which is reported through next()/send() rather than as an uncaught error.
  child.stdin.on('error', () => {});
  return { child, next, send, stop, exited };
}

// The JSON worker test/fixtures/python/json_worker.py, over this checkout's
// python/: ask(command) resolves with its reply (or rejects with its error);
// stop() ends it.
function startPython(python = PYTHON) {
  const worker = path.join(__dirname, 'fixtures', 'python', 'json_worker.py');
  const { child, send, stop: stopLines } = jsonLines(spawn(python, [worker], {
    env: { ...process.env, PYTHONPATH: path.join(__dirname, '..', 'python') },
    stdio: ['pipe', 'pipe', 'inherit'],
  }));
  const ask = async (command) => {
    const reply = await send(JSON.stringify(command));
    if (!reply.ok) throw new Error(`${reply.type}: ${reply.error}`);
    return reply;
  };
  const stop = () => stopLines(JSON.stringify({ op: 'exit' }));
  return { ask, stop, child };
}

// Shared-memory segments are sealed memfds (python/FORMAT.md): a process holds
// one through a descriptor or a mapping, both named '/memfd:<name> (deleted)'.
const MEMFD = /^\/memfd:(dlpack-[0-9a-f]{32}) \(deleted\)$/;

// The names of the segments process `pid` holds (sorted, one entry per name).
function heldSegments(pid = 'self') {
  const names = new Set();
  let fds;
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

// Node flags for a child that calls process.exit() while its threads allocate.
// Node's exit can deadlock when a V8 compile job on a platform worker waits for a
// main-thread collection that never comes: the main thread joins the workers in
// NodePlatform::Shutdown while the job sits in CollectionBarrier::
// AwaitCollectionBackground (nodejs/node#54918 and #64274, open). Seen here on
// Node 24.21 in 1 of 120 runs of test/fixtures/async-terminate.js (a Sparkplug
// job), and once in a clean-clone CI run. With these flags no compile job runs
// off the main thread, so the deadlock cannot form; the addon's own threads are
// unaffected.
const EXIT_SAFE_FLAGS = ['--no-concurrent-sparkplug', '--no-concurrent-recompilation'];

// The differential suites' cases (test/linalg, sort, indexing: each against torch),
// every DLPACK_TEST_CASE_STRIDE-th of them where that is an integer above 1 (.ci/run
// sets it for Jest under qemu and under the sanitizers, where each case costs tens of
// times its native time; the native run on the system Node checks them all). The
// first case is always kept, and the choice is fixed: the same subset every run.
function caseSubset(cases, env = process.env) {
  const stride = Number(env.DLPACK_TEST_CASE_STRIDE);
  if (!Number.isInteger(stride) || stride <= 1) return cases;
  return cases.filter((_, i) => i % stride === 0);
}

module.exports = { producer, consumer, native, collect, turn, expectError, nativeStats, PYTHON, startPython, jsonLines,
  heldSegments, segmentHolders, EXIT_SAFE_FLAGS, caseSubset };
