'use strict';
// What issue 40's host families share (lib/sort.js, lib/indexing.js,
// lib/random.js, lib/vision.js; docs/development.md "Compute families"):
// the input check (a live tensor whose bytes the host can read: these
// families have no device kernel yet), a dim moved last as a (shape, strides)
// pair without a copy, new results, and `{ out }`.
const { makeError, invalidType, fail } = require('./errors');
const { Tensor, makeTensor, liveStorage, hostStorage, checkedBuffer } = require('./tensor');
const { checkOptions } = require('./options');
const route = require('./route');
// `value` itself, or copied into `out` and disposed: the reductions' rule (one piece of code).
const { deliver } = require('./reduce');
const { Layout } = require('./layout');
const { Storage } = require('./storage');
const { product } = require('./shape');
const { CPU } = require('./device');
const { kStorage, kLayout, kFlags, READ_ONLY } = require('./symbols');

// `t` checked as the tensor argument `name` of `method`: live, on the host
// (a CUDA tensor is refused with what to do), its bytes there.
function hostTensor(t, name, method) {
  if (!(t instanceof Tensor)) throw invalidType(name, 'a Tensor', t);
  liveStorage(t);
  if (!t.device.hostAccessible) {
    throw makeError('ERR_DLPACK_WRONG_DEVICE', `Expected a CPU tensor for \`${name}\` of ${method}, received one ` +
      `on ${t.device}: ${method} runs on the host only for now; call .to('cpu') first`);
  }
  hostStorage(t, method);
  checkedBuffer(t);
  return t;
}

// `t` refused unless its dtype is one of `kinds` (lib/dtypes.js kinds).
function dtypeOf(t, name, method, kinds, what) {
  const info = t[kLayout].info;
  if (!kinds.includes(info.kind)) {
    throw fail('ERR_INVALID_ARG_VALUE', name, `${what} for ${method}`, `dtype ${info.name}`);
  }
  return info;
}

// The operand lib/route.js hands a family: t's storage and layout, its dims
// in the order `order` (a permutation of t's dims, default as they are); a
// 0-d tensor reads as one element of one dim.
function operand(t, order = null) {
  const layout = t[kLayout];
  if (layout.shape.length === 0) return { storage: t[kStorage], layout, shape: [1], strides: [1] };
  if (order === null) return { storage: t[kStorage], layout, shape: layout.shape, strides: layout.strides };
  return { storage: t[kStorage], layout, shape: order.map((d) => layout.shape[d]),
    strides: order.map((d) => layout.strides[d]) };
}

// The dims of an ndim-d tensor with `dim` moved last.
function lastOrder(ndim, dim) {
  const order = [];
  for (let i = 0; i < ndim; i++) if (i !== dim) order.push(i);
  if (ndim > 0) order.push(dim);
  return order;
}

// A new contiguous host tensor of `info` and `shape`, every byte of which the
// family writes.
function result(info, shape) {
  return makeTensor(Storage.allocateForCopy(product(shape) * info.itemSize), Layout.contiguous(info, shape), 0, CPU);
}

// options.out (or the out tensor `name`) checked (a live, writable host
// tensor, no two elements at one address), or null.
function outOption(out, method, name = 'options.out') {
  if (out === undefined) return null;
  if (!(out instanceof Tensor)) throw invalidType(name, 'a Tensor', out);
  liveStorage(out);
  if (out[kFlags] & READ_ONLY) throw fail('ERR_DLPACK_READ_ONLY', name, 'a writable tensor', 'a readOnly one');
  hostTensor(out, name, method);
  route.refuseSharedElements(out[kLayout], `\`${name}\` of ${method}`);
  return out;
}

// The options object, which may name only `keys`.
function optionsOf(options, keys) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidType('options', 'an object', options);
  }
  return checkOptions(options, keys, 'options');
}

function flag(v, key, fallback) {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw invalidType(`options.${key}`, 'a boolean', v);
  return v;
}

module.exports = { hostTensor, dtypeOf, operand, lastOrder, result, outOption, deliver, optionsOf, flag };
