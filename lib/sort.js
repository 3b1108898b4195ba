'use strict';
// sort, argsort, cumsum, cumprod (docs/API.md "Sorting and scans"), torch's
// names and rules, on the host (src/core/compute/sort.h, scan.h): the dim is
// moved last as a view of the operands (no copy), the results are new
// contiguous tensors. sort is stable whatever `stable` says (torch's
// stable=false allows it); NaN sorts as the largest value, as torch's does.
const { outOfRange, invalidType } = require('./errors');
const { hostTensor, dtypeOf, operand, lastOrder, result, outOption, deliver, optionsOf, flag } = require('./compute');
const route = require('./route');
const { dtypeInfo } = require('./dtypes');
const { dimension, tooMany } = require('./views');
const { kLayout } = require('./symbols');

const REAL = ['bool', 'int', 'uint', 'float'];
const SORT_KEYS = ['dim', 'descending', 'stable'];
const SCAN_KEYS = ['dtype', 'out'];

// (dim, options) or (options): torch's sort(input, dim=-1, descending=False,
// stable=False) with the flags (and the dim, if not given first) in options.
function sortOptions(dim, options) {
  if (options === undefined && dim !== null && typeof dim === 'object' && !Array.isArray(dim)) {
    [dim, options] = [undefined, dim];
  }
  const { dim: named, descending, stable } = optionsOf(options, SORT_KEYS);
  if (dim !== undefined && named !== undefined) {
    throw invalidType('options.dim', 'undefined when the dim is given as an argument', named);
  }
  const d = dim !== undefined ? dim : named !== undefined ? named : -1;
  if (typeof d !== 'number') throw invalidType(dim !== undefined ? 'dim' : 'options.dim', 'an integer', d);
  flag(stable, 'stable', false); // every sort here is stable
  return { dim: d, descending: flag(descending, 'descending', false) };
}

// { values, indices } (argsort: the indices alone) of t sorted along dim.
function sorted(t, dim, options, method, argsort) {
  hostTensor(t, 'input', method);
  const info = dtypeOf(t, 'input', method, REAL, 'a real (not complex) tensor');
  const o = sortOptions(dim, options);
  const shape = t[kLayout].shape;
  const d = dimension(o.dim, shape.length, 'dim');
  const values = argsort ? null : result(info, shape.slice());
  const indices = result(dtypeInfo('int64'), shape.slice());
  if (indices[kLayout].size !== 0) {
    const order = lastOrder(shape.length, d);
    try {
      route.runSort(operand(t, order), o.descending, values === null ? null : operand(values, order),
        operand(indices, order));
    } catch (error) {
      if (values !== null) values.dispose();
      indices.dispose();
      throw error;
    }
  }
  return argsort ? indices : { values, indices };
}

// sort(input, dim = -1, { descending, stable }) -> { values, indices }, as topk.
function sort(t, dim, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'sort()');
  return sorted(t, dim, options, 'sort()', false);
}

// argsort(input, dim = -1, { descending, stable }) -> int64 indices.
function argsort(t, dim, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'argsort()');
  return sorted(t, dim, options, 'argsort()', true);
}

// torch's result dtype of a scan: `dtype`, else int64 for bool and integers,
// else the input's.
function scanType(info, dtype) {
  if (dtype !== null) return dtype;
  return info.kind === 'float' ? info : dtypeInfo('int64');
}

// cumsum / cumprod(input, dim, { dtype, out }): the input converted to
// `dtype` first where one is given (torch casts before the scan).
function scan(product) {
  const method = product ? 'cumprod()' : 'cumsum()';
  return function scanOf(t, dim, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 3, method);
    hostTensor(t, 'input', method);
    dtypeOf(t, 'input', method, REAL, 'a real (not complex) tensor');
    if (dim === undefined) throw invalidType('dim', 'an integer (torch requires the dim of a scan)', dim);
    if (typeof dim !== 'number') throw invalidType('dim', 'an integer', dim);
    const { dtype, out } = optionsOf(options, SCAN_KEYS);
    const want = dtype === undefined ? null : dtypeInfo(dtype, 'options.dtype');
    if (want !== null && want.kind === 'complex') {
      throw outOfRange('options.dtype', 'a real dtype', want.name);
    }
    const target = outOption(out, method);
    const shape = t[kLayout].shape;
    const d = dimension(dim, shape.length, 'dim');
    const src = want === null || want === t[kLayout].info ? t : t.to(want.name);
    let value;
    try {
      value = result(scanType(src[kLayout].info, want), shape.slice());
      if (value[kLayout].size !== 0) {
        const order = lastOrder(shape.length, d);
        route.runScan(product, operand(src, order), operand(value, order));
      }
    } catch (error) {
      if (value !== undefined) value.dispose();
      throw error;
    } finally {
      if (src !== t) src.dispose();
    }
    return deliver(value, target);
  };
}

const cumsum = scan(false);
const cumprod = scan(true);

const functions = { sort, argsort, cumsum, cumprod };

// t.sort(...), t.argsort(...), t.cumsum(...), t.cumprod(...).
const tensorMethods = {
  sort(dim, options) { return sort(this, dim, options); },
  argsort(dim, options) { return argsort(this, dim, options); },
  cumsum(dim, options) { return cumsum(this, dim, options); },
  cumprod(dim, options) { return cumprod(this, dim, options); },
};

module.exports = { functions, tensorMethods };
