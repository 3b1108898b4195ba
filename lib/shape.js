'use strict';
// Shape and stride arithmetic, in elements (docs/API.md "Tensor").
const { invalidType, outOfRange, describe } = require('./errors');
// The most dimensions a tensor may have (src/core/layout.h kMaxDims, from the addon).
const { MAX_DIMS } = require('./binding');

function normalizeShape(value, name = 'shape') {
  if (typeof value === 'number') value = [value];
  if (!Array.isArray(value)) throw invalidType(name, 'an array of non-negative integers', value);
  if (value.length > MAX_DIMS) {
    throw outOfRange(name, `at most ${MAX_DIMS} dimensions`, `${value.length}`);
  }
  const shape = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const d = value[i];
    if (!Number.isSafeInteger(d) || d < 0) {
      if (typeof d !== 'number') throw invalidType(`${name}[${i}]`, 'a non-negative integer', d);
      throw outOfRange(`${name}[${i}]`, 'a non-negative integer', describe(d));
    }
    shape[i] = d;
  }
  return shape;
}

function product(shape) {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i];
  return n;
}

// What a tensor's numbers must fit: its element count and the bytes its
// elements span, exact JS numbers (at most 2^53 - 1). torch refuses a count
// past 2^63 ("numel: integer multiplication overflow"); past 2^53 a JS
// product is no longer exact, so a view of 2^64 elements of one byte read as
// empty (issue 37, finding 4). Every Layout is made through this check
// (lib/layout.js), so a view that does not fit is refused when it is made.
function tooLarge(name, shape, what) {
  return outOfRange(name, 'a view of at most 2^53 - 1 elements spanning at most 2^53 - 1 bytes (torch: ' +
    '"numel: integer multiplication overflow")', `shape [${shape.join(', ')}], ${what}`);
}

function contiguousStrides(shape) {
  const strides = new Array(shape.length);
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    // Only an empty tensor's strides can pass 2^53 (its elements fit nowhere
    // else); any stride describes it, and 0 is one every consumer can hold
    // (an int64 cast of 2^64 is INT64_MIN).
    strides[i] = step <= Number.MAX_SAFE_INTEGER ? step : 0;
    step *= shape[i] || 1;
  }
  return strides;
}

// Row-major contiguity; size-1 dims may carry any stride, empty tensors are
// contiguous (PyTorch's rule).
// One pass (an op asks it of every operand per call): a 0 anywhere decides,
// so a stride mismatch only marks the answer.
function isContiguous(shape, strides) {
  let contiguous = true;
  let expected = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const n = shape[i];
    if (n === 0) return true;
    if (n !== 1 && strides[i] !== expected) contiguous = false;
    expected *= n;
  }
  return contiguous;
}

// Byte span around element 0: [byteOffset - low, byteOffset + high).
function extent(shape, strides, itemSize) {
  let low = 0;
  let high = 0;
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] === 0) return { low: 0, high: 0 };
    const span = (shape[i] - 1) * strides[i] * itemSize;
    if (span < 0) low -= span;
    else high += span;
  }
  return { low, high: high + itemSize };
}

module.exports = { MAX_DIMS, normalizeShape, product, tooLarge, contiguousStrides, isContiguous, extent };
