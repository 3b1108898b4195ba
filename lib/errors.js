'use strict';
// Error classes and the one table from `code` to class. Native code throws
// through `makeError`, registered once at load (lib/binding.js).

class DLPackError extends Error {
  constructor(message, code = 'ERR_DLPACK_UNSUPPORTED') {
    super(message);
    this.code = code;
  }

  get name() {
    return 'DLPackError';
  }
}

class CudaError extends DLPackError {
  constructor(message, code = 'ERR_DLPACK_CUDA', cudaError = undefined) {
    super(message, code);
    if (cudaError !== undefined) this.cudaError = cudaError;
  }

  get name() {
    return 'CudaError';
  }
}

const classOf = {
  ERR_INVALID_ARG_TYPE: TypeError,
  ERR_INVALID_ARG_VALUE: TypeError,
  ERR_ILLEGAL_CONSTRUCTOR: TypeError,
  ERR_OUT_OF_RANGE: RangeError,
  ERR_DLPACK_MISALIGNED: RangeError,
  ERR_DLPACK_CUDA: CudaError,
  ERR_DLPACK_CUDA_UNAVAILABLE: CudaError,
};

// `detail` is the cudaError name for CUDA failures.
/** @param {string} code @param {string} message @param {string} [detail] */
function makeError(code, message, detail = undefined) {
  const Class = classOf[code];
  if (Class === undefined) return new DLPackError(message, code); // explicit fallback
  if (Class === CudaError) return new CudaError(message, code, detail);
  const error = new Class(message);
  error.code = code;
  return error;
}

// A coded error (made by makeError) as this load of lib/ makes it: `error`
// itself when it is of the class its code takes here, else the same code,
// message, detail and stack in this load's class. Native code builds its
// errors through the makeError the last init() registered, one per
// environment (lib/binding.js), so after a second load of lib/ in a thread
// (Jest's files and jest.isolateModules(), a cleared require.cache) the first
// load's native errors came out of the second's classes, and
// `e instanceof dl.DLPackError` was false for the dl that threw (issue 37,
// finding 8). lib/binding.js passes every native error through this: each
// load's errors are its own classes' (and not another load's, as two copies
// of a package would be). Anything else passes as it is.
function adopt(error) {
  if (error === null || typeof error !== 'object' || typeof error.code !== 'string' ||
      typeof error.message !== 'string') {
    return error;
  }
  const Class = classOf[error.code] || DLPackError;
  if (error instanceof Class) return error;
  const mine = makeError(error.code, error.message, error.cudaError);
  if (typeof error.stack === 'string') mine.stack = error.stack;
  return mine;
}

// "received ..." text in the style of Node's own ERR_INVALID_ARG_TYPE.
function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  switch (typeof value) {
    case 'string':
      return `type string (${JSON.stringify(value.length > 28 ? `${value.slice(0, 25)}...` : value)})`;
    case 'number':
    case 'boolean':
      return `type ${typeof value} (${String(value)})`;
    case 'bigint':
      return `type bigint (${value}n)`;
    case 'symbol':
      return `type symbol (${String(value)})`;
    case 'function':
      return `function ${value.name || '<anonymous>'}`;
    default: {
      if (Array.isArray(value)) return `an array of length ${value.length}`;
      const name = value.constructor && value.constructor.name;
      return name ? `an instance of ${name}` : 'an object';
    }
  }
}

function fail(code, name, expected, received) {
  return makeError(code, `Expected ${expected} for \`${name}\`, received ${received}`);
}

const invalidType = (name, expected, value) =>
  fail('ERR_INVALID_ARG_TYPE', name, expected, describe(value));
const invalidValue = (name, expected, value) =>
  fail('ERR_INVALID_ARG_VALUE', name, expected, describe(value));
const outOfRange = (name, expected, received) => fail('ERR_OUT_OF_RANGE', name, expected, received);

module.exports = {
  DLPackError,
  CudaError,
  makeError,
  adopt,
  describe,
  fail,
  invalidType,
  invalidValue,
  outOfRange,
};
