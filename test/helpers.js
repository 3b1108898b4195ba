'use strict';
// Shared test helpers: the test-only native producer, GC with a turn of the
// event loop (so posted releases and finalizers run), and live counters.
const path = require('path');

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

module.exports = { producer, native, collect, turn, expectError, nativeStats };
