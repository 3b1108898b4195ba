'use strict';
// gather, indexSelect, take, nonzero, where(condition), maskedFill (docs/API.md
// "Indexing"), torch's names and rules, on the host (src/core/compute/
// index.h): indices int64 or int32, each checked before anything is written
// (one outside its dim is ERR_OUT_OF_RANGE naming the index and the bound).
// maskedFill is the elementwise where(mask, value, input) into a tensor of
// input's dtype; where(condition) is nonzero's columns.
const { invalidType, fail } = require('./errors');
const { Tensor } = require('./tensor');
const { hostTensor, dtypeOf, operand, result, outOption, deliver, optionsOf } = require('./compute');
const route = require('./route');
const ops = require('./ops');
const { dtypeInfo } = require('./dtypes');
const { dimension, tooMany } = require('./views');
const { kLayout, kStorage } = require('./symbols');

const INDEX_KINDS = ['int'];
const OUT_KEYS = ['out'];
const GATHER = 0;
const INDEX_SELECT = 1;
const TAKE = 2;

// An index tensor: int64 or int32 (torch takes int64, and int32 for these ops).
function indexTensor(index, method) {
  hostTensor(index, 'index', method);
  const info = dtypeOf(index, 'index', method, INDEX_KINDS, 'an int64 or int32 tensor');
  if (info.name !== 'int64' && info.name !== 'int32') {
    throw fail('ERR_INVALID_ARG_VALUE', 'index', `an int64 or int32 tensor for ${method}`, `dtype ${info.name}`);
  }
  return index;
}

const shapeText = (shape) => `[${shape.join(', ')}]`;

// One gather-like call: checks done, a new result of `shape`, delivered.
function gathered(kind, t, d, index, shape, out) {
  const value = result(t[kLayout].info, shape);
  try {
    if (value[kLayout].size !== 0) route.runGather(kind, operand(t), d, operand(index), operand(value));
  } catch (error) {
    value.dispose();
    throw error;
  }
  return deliver(value, out);
}

// gather(input, dim, index, { out }): out[p] = input[p with p[dim] = index[p]].
function gather(t, dim, index, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 4, 'gather()');
  hostTensor(t, 'input', 'gather()');
  indexTensor(index, 'gather()');
  const { out } = optionsOf(options, OUT_KEYS);
  const target = outOption(out, 'gather()');
  const shape = t[kLayout].shape;
  const ishape = index[kLayout].shape;
  const d = dimension(dim, shape.length, 'dim');
  const sameRank = ishape.length === shape.length || (Math.max(ishape.length, shape.length) <= 1 &&
    index[kLayout].size <= 1);
  if (!sameRank || ishape.some((n, i) => i !== d && n > shape[i])) {
    throw fail('ERR_INVALID_ARG_VALUE', 'index', `a tensor of ${shape.length} dims, each but dim ${d} at most ` +
      `the input's ${shapeText(shape)} for gather()`, `one of shape ${shapeText(ishape)}`);
  }
  if (shape.length === 0 && ishape.length !== 0) {
    const flat = index.reshape([]);
    try {
      return gathered(GATHER, t, 0, flat, ishape.slice(), target);
    } finally {
      flat.dispose();
    }
  }
  return gathered(GATHER, t, d, index, ishape.slice(), target);
}

// indexSelect(input, dim, index, { out }): input's dim taken at a 1-d index.
function indexSelect(t, dim, index, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 4, 'indexSelect()');
  hostTensor(t, 'input', 'indexSelect()');
  indexTensor(index, 'indexSelect()');
  const { out } = optionsOf(options, OUT_KEYS);
  const target = outOption(out, 'indexSelect()');
  const shape = t[kLayout].shape;
  const ishape = index[kLayout].shape;
  if (ishape.length > 1) {
    throw fail('ERR_INVALID_ARG_VALUE', 'index', 'a 1-d (or 0-d) tensor for indexSelect()',
      `one of shape ${shapeText(ishape)}`);
  }
  const d = dimension(dim, shape.length, 'dim');
  const n = index[kLayout].size;
  const outShape = shape.length === 0 ? [] : shape.map((s, i) => (i === d ? n : s));
  return gathered(INDEX_SELECT, t, d, index, outShape, target);
}

// take(input, index, { out }): input's elements in row-major order at index,
// of index's shape; a negative index counts from the end.
function take(t, index, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'take()');
  hostTensor(t, 'input', 'take()');
  indexTensor(index, 'take()');
  const { out } = optionsOf(options, OUT_KEYS);
  const target = outOption(out, 'take()');
  return gathered(TAKE, t, 0, index, index[kLayout].shape.slice(), target);
}

// nonzero(input) -> int64 [count, ndim], the indices of the nonzero elements
// in row-major order (NaN is nonzero).
function nonzero(t, ...rest) {
  if (rest.length !== 0) tooMany(rest, 1, 'nonzero()');
  hostTensor(t, 'input', 'nonzero()');
  dtypeOf(t, 'input', 'nonzero()', ['bool', 'int', 'uint', 'float'], 'a real (not complex) tensor');
  const layout = t[kLayout];
  const input = { storage: t[kStorage], layout, shape: layout.shape, strides: layout.strides };
  const count = route.runNonzero(input, null);
  const value = result(dtypeInfo('int64'), [count, layout.shape.length]);
  try {
    if (value[kLayout].size !== 0) route.runNonzero(input, operand(value));
  } catch (error) {
    value.dispose();
    throw error;
  }
  return value;
}

// where(condition) -> an array of ndim int64 tensors, the indices of the
// nonzero elements of condition per dim (torch's tuple form; nonzero's
// columns); where(condition, input, other, options): the elementwise op.
function where(condition, ...rest) {
  if (rest.length !== 0) return ops.functions.where(condition, ...rest);
  hostTensor(condition, 'condition', 'where()');
  // A 0-d condition reads as one element of one dim (torch's as_tuple form).
  const flat = condition[kLayout].shape.length === 0 ? condition.reshape([1]) : condition;
  let all;
  try {
    all = nonzero(flat);
  } finally {
    if (flat !== condition) flat.dispose();
  }
  try {
    const columns = [];
    for (let j = 0; j < all[kLayout].shape[1]; j++) columns.push(all.select(1, j));
    return columns;
  } finally {
    all.dispose();
  }
}

// The fill value of maskedFill in input's dtype (torch casts it: an integer
// input truncates a fractional value, a bool input takes its truth).
function fillValue(value, info) {
  if (value instanceof Tensor) {
    if (value[kLayout].shape.length !== 0) {
      throw fail('ERR_INVALID_ARG_VALUE', 'value', 'a number, a boolean or a 0-d tensor for maskedFill()',
        `a tensor of shape ${shapeText(value[kLayout].shape)}`);
    }
    value = value.item();
  }
  if (typeof value === 'bigint') value = Number(value);
  if (typeof value === 'boolean') value = value ? 1 : 0;
  if (typeof value !== 'number') throw invalidType('value', 'a number, a boolean or a 0-d tensor', value);
  if (info.kind === 'bool') return value !== 0;
  if (info.kind === 'int' || info.kind === 'uint') return Math.trunc(value);
  return value;
}

// mask checked: a bool tensor that broadcasts to input's shape.
function maskOf(t, mask, method) {
  if (!(mask instanceof Tensor)) throw invalidType('mask', 'a Tensor', mask);
  const m = mask[kLayout];
  if (m.info.name !== 'bool') throw fail('ERR_INVALID_ARG_VALUE', 'mask', `a bool tensor for ${method}`,
    `dtype ${m.info.name}`);
  const shape = t[kLayout].shape;
  const lead = shape.length - m.shape.length;
  if (lead < 0 || m.shape.some((n, i) => n !== 1 && n !== shape[lead + i])) {
    throw fail('ERR_INVALID_ARG_VALUE', 'mask', `a shape that broadcasts to the input's ${shapeText(shape)} for ` +
      `${method}`, shapeText(m.shape));
  }
  return mask;
}

// maskedFill(input, mask, value) -> a new tensor: value where mask, else input.
function maskedFill(t, mask, value, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'maskedFill()');
  hostTensor(t, 'input', 'maskedFill()');
  maskOf(t, mask, 'maskedFill()');
  const v = fillValue(value, t[kLayout].info);
  const out = result(t[kLayout].info, t[kLayout].shape.slice());
  try {
    return ops.functions.where(mask, v, t, { out });
  } catch (error) {
    out.dispose();
    throw error;
  }
}

// maskedFill_(input, mask, value): the same, in place; input.
function maskedFill_(t, mask, value, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'maskedFill_()');
  hostTensor(t, 'input', 'maskedFill_()');
  maskOf(t, mask, 'maskedFill_()');
  return ops.functions.where(mask, fillValue(value, t[kLayout].info), t, { out: t });
}

const functions = { gather, indexSelect, take, nonzero, where, maskedFill, maskedFill_ };

const tensorMethods = {
  gather(dim, index, options) { return gather(this, dim, index, options); },
  indexSelect(dim, index, options) { return indexSelect(this, dim, index, options); },
  take(index, options) { return take(this, index, options); },
  nonzero() { return nonzero(this); },
  maskedFill(mask, value) { return maskedFill(this, mask, value); },
  maskedFill_(mask, value) { return maskedFill_(this, mask, value); },
};

module.exports = { functions, tensorMethods };
