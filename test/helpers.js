'use strict';
// Shared test helpers: the test-only native producer, GC with a turn of the
// event loop (so posted releases and finalizers run), and live counters.
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

// The JSON worker of python/dlpack_node/__main__.py: ask(command) resolves
// with its reply (or rejects with its error); stop() ends it.
function startPython(python = PYTHON) {
  const child = spawn(python, ['-m', 'dlpack_node'], {
    env: { ...process.env, PYTHONPATH: path.join(__dirname, '..', 'python') },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => {
    const answer = waiting.shift();
    if (answer) answer(JSON.parse(line)); // the reply to 'exit' has nobody waiting
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const ask = (command) => new Promise((resolve, reject) => {
    waiting.push((reply) => (reply.ok ? resolve(reply) : reject(new Error(`${reply.type}: ${reply.error}`))));
    child.stdin.write(`${JSON.stringify(command)}\n`);
  });
  const stop = async () => {
    child.stdin.end(`${JSON.stringify({ op: 'exit' })}\n`);
    return exited;
  };
  return { ask, stop, child };
}

module.exports = { producer, native, collect, turn, expectError, nativeStats, PYTHON, startPython };
