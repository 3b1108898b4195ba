'use strict';
// Where a tensor's elements lie in its storage: the JS twin of `Layout` in
// src/core/layout.h. One immutable value per tensor; views (lib/views.js)
// make new ones, never change one. Shapes and strides are in elements; bytes
// touched are [byteOffset - low, byteOffset + high) (both 0 when size is 0).
//
// Immutable by construction: private fields behind getters, no setters (an
// assignment throws in strict code). Object.freeze(this) would say the same
// but costs a runtime call per view (bench/README.md "Layout values" has the
// figures). `shape` and `strides` are never mutated once in a Layout; they
// are frozen when first handed out (Tensor's getters).
//
// Only this file constructs one (the constructor takes a token no other code
// holds): of(), contiguous() and vector() compute the extent from the dims, so
// a Layout code outside swapped in for a tensor's (its symbols are reachable)
// still tells the truth about the bytes it spans; lib/struct_slab.js also checks
// that it is one (isLayout) before a struct is filled from it (issue 20).
const { product, tooLarge, contiguousStrides, isContiguous } = require('./shape');

const MAX = Number.MAX_SAFE_INTEGER;

const TOKEN = Symbol('Layout');
const ONE = Object.freeze([1]);

class Layout {
  // Callers that know the element count and extent pass them (a contiguous
  // tensor's are size and size * itemSize); Layout.of computes them.
  #info;
  #shape;
  #strides;
  #byteOffset;
  #size;
  #low;
  #high;

  constructor(token, info, shape, strides, byteOffset, size, low, high) {
    if (token !== TOKEN) throw notAConstructor();
    this.#info = info;
    this.#shape = shape;
    this.#strides = strides;
    this.#byteOffset = byteOffset;
    this.#size = size;
    this.#low = low;
    this.#high = high;
  }

  // shape.js's product() and extent() in one pass (views make one per call).
  // A count or extent past 2^53 - 1 is refused (shape.js tooLarge, naming
  // `name`): the sums and products only grow, so an inexact one is still
  // past the limit.
  static of(info, shape, strides, byteOffset, name = 'shape') {
    const itemSize = info.itemSize;
    let size = 1;
    let low = 0;
    let high = 0;
    for (let i = 0; i < shape.length; i++) {
      const n = shape[i];
      if (n === 0) return new Layout(TOKEN, info, shape, strides, byteOffset, 0, 0, 0);
      size *= n;
      const span = (n - 1) * strides[i] * itemSize;
      if (span < 0) low -= span;
      else high += span;
    }
    if (size > MAX) throw tooLarge(name, shape, `${size} elements`);
    if (low + high + itemSize > MAX) throw tooLarge(name, shape, `${low + high + itemSize} bytes`);
    return new Layout(TOKEN, info, shape, strides, byteOffset, size, low, high + itemSize);
  }

  // Row-major `shape` at `byteOffset`; `size` is product(shape) when the
  // caller knows it. Its bytes are size * itemSize, under the same limit.
  static contiguous(info, shape, byteOffset = 0, size = product(shape), name = 'shape') {
    if (size * info.itemSize > MAX) throw tooLarge(name, shape, `${size * info.itemSize} bytes`);
    return new Layout(TOKEN, info, shape, contiguousStrides(shape), byteOffset, size, 0,
      size === 0 ? 0 : size * info.itemSize);
  }

  // `n` elements of one stride from `byteOffset`.
  static vector(info, n, byteOffset) {
    return new Layout(TOKEN, info, [n], ONE, byteOffset, n, 0, n === 0 ? 0 : n * info.itemSize);
  }

  // Whether `value` is a Layout this file made (a brand check: no object
  // made elsewhere passes, whatever its prototype).
  static isLayout(value) {
    return typeof value === 'object' && value !== null && #info in value;
  }

  get info() { return this.#info; } // the dtype's row in lib/dtypes.js
  get shape() { return this.#shape; }
  get strides() { return this.#strides; }
  get byteOffset() { return this.#byteOffset; }
  get size() { return this.#size; }
  get low() { return this.#low; }
  get high() { return this.#high; }
  get ndim() { return this.#shape.length; }
  get itemSize() { return this.info.itemSize; }
  get nbytes() { return this.size * this.info.itemSize; }
  // The bytes the elements span, and where that span starts.
  get extent() { return this.low + this.high; }
  get base() { return this.byteOffset - this.low; }
  get isContiguous() { return isContiguous(this.shape, this.strides); }

  // The same dtype over other dims: element 0 moved by `delta` elements
  // (`name`: the argument a refusal names, where the dims can grow).
  view(shape, strides, delta = 0, name = 'shape') {
    return Layout.of(this.info, shape, strides, this.byteOffset + delta * this.info.itemSize, name);
  }

  // Every element inside the first `length` bytes of the storage (an empty
  // layout spans nothing and always is).
  inside(length) {
    return this.size === 0 || (this.byteOffset - this.low >= 0 && this.byteOffset + this.high <= length);
  }
}

// Outside the constructor, whose bytecode stays small enough to be inlined.
function notAConstructor() {
  return new TypeError('Layout is not a constructor: use Layout.of()');
}

module.exports = { Layout };
