'use strict';
// What a buffer or view really is, read through the intrinsic getters
// (%TypedArray%.prototype, DataView.prototype, ArrayBuffer.prototype), never
// through the instance: an own `byteOffset` property, a subclass getter or a
// fake Symbol.toStringTag cannot move where the library reads or writes.
// Each getter throws on an object without the internal slot, so a fake
// (`Object.create(ArrayBuffer.prototype)`) is told apart from the real thing.
const { isAnyArrayBuffer, isTypedArray, isDataView } = require('util').types;

const TypedArray = Object.getPrototypeOf(Uint8Array.prototype);
const get = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
const taBuffer = get(TypedArray, 'buffer');
const taByteOffset = get(TypedArray, 'byteOffset');
const taByteLength = get(TypedArray, 'byteLength');
const taLength = get(TypedArray, 'length');
const taName = get(TypedArray, Symbol.toStringTag);
const dvBuffer = get(DataView.prototype, 'buffer');
const dvByteOffset = get(DataView.prototype, 'byteOffset');
const dvByteLength = get(DataView.prototype, 'byteLength');
const abByteLength = get(ArrayBuffer.prototype, 'byteLength');
const sabByteLength = get(SharedArrayBuffer.prototype, 'byteLength');
const { isSharedArrayBuffer } = require('util').types;

// The byte length of a real ArrayBuffer or SharedArrayBuffer.
const bufferByteLength = (b) => (isSharedArrayBuffer(b) ? sabByteLength.call(b) : abByteLength.call(b));

// The byte length of `value` where it is a real ArrayBuffer or
// SharedArrayBuffer, else -1. The getter is the check (it throws on anything
// without the internal slot); `instanceof` only picks which getter to try
// first, so that a buffer of this realm costs no call into util.types (two
// native calls, about 17 ns of fromBuffer: bench/README.md "The per-call
// path"). Anything else, a fake or another realm's buffer, takes the exact
// check.
function anyBufferLength(value) {
  if (value instanceof ArrayBuffer) {
    try {
      return abByteLength.call(value);
    } catch {
      // Not one after all (a prototype or Symbol.hasInstance trick): the exact check below.
    }
  } else if (value instanceof SharedArrayBuffer) {
    try {
      return sabByteLength.call(value);
    } catch {
      // As above.
    }
  }
  return isAnyArrayBuffer(value) ? bufferByteLength(value) : -1;
}

// { buffer, byteOffset, byteLength } of a typed array or DataView. Throws
// (the engine's TypeError) where the view was detached or went out of
// bounds, as the getters do.
function viewParts(view) {
  if (isTypedArray(view)) {
    return { buffer: taBuffer.call(view), byteOffset: taByteOffset.call(view), byteLength: taByteLength.call(view) };
  }
  return { buffer: dvBuffer.call(view), byteOffset: dvByteOffset.call(view), byteLength: dvByteLength.call(view) };
}

const typedArrayName = (view) => taName.call(view);
const typedArrayLength = (view) => taLength.call(view);
// The buffer of a typed array or DataView (never throws, detached or not).
const viewBuffer = (view) => (isTypedArray(view) ? taBuffer.call(view) : dvBuffer.call(view));

// Objects that inherit from a buffer or view prototype without being one
// (`Object.create(ArrayBuffer.prototype)`): the getters would throw on them.
const posesAsBuffer = (value) => value !== null && typeof value === 'object' &&
  (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer || value instanceof TypedArray.constructor ||
   value instanceof DataView);

module.exports = {
  isAnyArrayBuffer, isTypedArray, isDataView, viewParts, typedArrayName, typedArrayLength, viewBuffer, posesAsBuffer,
  bufferByteLength, anyBufferLength,
};
