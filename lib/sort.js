'use strict';
// sort, argsort, cumsum, cumprod (docs/API.md "Sorting and scans"), torch's
// names and rules, on the host (src/core/compute/sort.h, scan.h): the dim is
// moved last as a view of the operands (no copy), the results are new
// contiguous tensors, or copied into `{ out }` (torch's out=, checked before
// anything runs). sort is stable whatever `stable` says (torch's
// stable=false allows it); NaN sorts as the largest value, as torch's does.
const { makeError, outOfRange, invalidType, fail } = require('./errors');
const { Tensor } = require('./tensor');
const { hostTensor, dtypeOf, operand, lastOrder, result, outOption, deliver, optionsOf, flag } = require('./compute');
const route = require('./route');
const { dtypeInfo } = require('./dtypes');
const { dimension, tooMany } = require('./views');
const { kLayout, kStorage } = require('./symbols');

const REAL = ['bool', 'int', 'uint', 'float'];
const SORT_KEYS = ['dim', 'descending', 'stable', 'out'];
const SCAN_KEYS = ['dtype', 'out'];

// (dim, options) or (options): torch's sort(input, dim=-1, descending=False,
// stable=False, out=None) with the flags, out (and the dim, if not given
// first) in options.
function sortOptions(dim, options) {
  if (options === undefined && dim !== null && typeof dim === 'object' && !Array.isArray(dim)) {
    [dim, options] = [undefined, dim];
  }
  const { dim: named, descending, stable, out } = optionsOf(options, SORT_KEYS);
  if (dim !== undefined && named !== undefined) {
    throw invalidType('options.dim', 'undefined when the dim is given as an argument', named);
  }
  const d = dim !== undefined ? dim : named !== undefined ? named : -1;
  if (typeof d !== 'number') throw invalidType(dim !== undefined ? 'dim' : 'options.dim', 'an integer', d);
  flag(stable, 'stable', false); // every sort here is stable
  return { dim: d, descending: flag(descending, 'descending', false), out };
}

// The out tensor `name` checked as outOption does, then of `info` and `shape`
// (torch refuses another dtype; another shape is refused as cumsum's out is).
function fitted(t, info, shape, method, name) {
  if (!(t instanceof Tensor)) throw invalidType(name, 'a Tensor', t);
  outOption(t, method, name);
  const layout = t[kLayout];
  if (layout.shape.length !== shape.length || layout.shape.some((n, i) => n !== shape[i])) {
    throw fail('ERR_INVALID_ARG_VALUE', name, `a tensor of shape [${shape.join(', ')}]`,
      `one of shape [${layout.shape.join(', ')}]`);
  }
  if (layout.info !== info) {
    throw fail('ERR_INVALID_ARG_VALUE', name, `a tensor of dtype ${info.name}`, `dtype ${layout.info.name}`);
  }
  return t;
}

// options.out checked before anything runs: argsort's an int64 tensor of the
// input's shape; sort's [values, indices] (torch's out=(values, indices)),
// values of the input's dtype, the two not sharing memory (torch lets them,
// and one result overwrites the other). [values or null, indices], or null without one.
function sortOuts(out, info, shape, method, argsort) {
  if (out === undefined) return null;
  const int64 = dtypeInfo('int64');
  if (argsort) return [null, fitted(out, int64, shape, method, 'options.out')];
  if (!Array.isArray(out)) throw invalidType('options.out', 'an array [values, indices] of two tensors', out);
  if (out.length !== 2) {
    throw fail('ERR_INVALID_ARG_VALUE', 'options.out', 'an array [values, indices] of two tensors',
      `an array of ${out.length}`);
  }
  const values = fitted(out[0], info, shape, method, 'options.out[0]');
  const indices = fitted(out[1], int64, shape, method, 'options.out[1]');
  if (route.overlapping(values[kStorage], values[kLayout], indices[kStorage], indices[kLayout])) {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected \`options.out[0]\` and \`options.out[1]\` of ${method} ` +
      'that do not share memory, received two that overlap; pass two separate tensors');
  }
  return [values, indices];
}

// { values, indices } (argsort: the indices alone) of t sorted along dim:
// new tensors, or the out tensors written (through the new ones, so an out
// that overlaps the input is read before it is written, as cumsum's out).
function sorted(t, dim, options, method, argsort) {
  hostTensor(t, 'input', method);
  const info = dtypeOf(t, 'input', method, REAL, 'a real (not complex) tensor');
  const o = sortOptions(dim, options);
  const shape = t[kLayout].shape;
  const d = dimension(o.dim, shape.length, 'dim');
  const outs = sortOuts(o.out, info, shape, method, argsort);
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
  if (outs !== null) {
    try {
      if (values !== null) deliver(values, outs[0]);
    } catch (error) {
      indices.dispose();
      throw error;
    }
    deliver(indices, outs[1]);
    return argsort ? outs[1] : { values: outs[0], indices: outs[1] };
  }
  return argsort ? indices : { values, indices };
}

// sort(input, dim = -1, { descending, stable, out }) -> { values, indices },
// as topk; with out = [values, indices], those two.
function sort(t, dim, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'sort()');
  return sorted(t, dim, options, 'sort()', false);
}

// argsort(input, dim = -1, { descending, stable, out }) -> int64 indices
// (out itself when given).
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
