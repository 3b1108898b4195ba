'use strict';
// Statistics, vector norms and normalisations (docs/API.md "Statistics and
// norms"), torch's names and rules: var, std, varMean, stdMean (correction,
// dim, keepdim), linalg.vector_norm (ord, dim, keepdim), F.layer_norm,
// F.cosine_similarity and F.normalize, here lpNormalize (dl.normalize is the
// image normalisation). Results have the input's floating dtype. The dims a
// call reduces or normalises are moved last here (a permuted view, no copy);
// the native families (src/core/compute/stats.h, norms.h) compute each lane
// in double in a fixed order, so results do not depend on the thread count.
// Host tensors only for now (the CUDA kernels are a later phase).
const { invalidType, outOfRange, fail } = require('./errors');
const { Tensor } = require('./tensor');
const { checkOptions } = require('./options');
const { statisticsTable } = require('./binding');
const route = require('./route');
const ops = require('./ops');
const { complete, deliver, split, dimMask } = require('./reduce');
const { contiguousStrides } = require('./shape');
const { dimension } = require('./views');
const { infos } = require('./dtypes');
const { kStorage, kLayout } = require('./symbols');

const OP = statisticsTable.ops;
// The families take every real floating dtype (compute/stats.h, norms.h).
const FLOAT_NAMES = Object.values(infos).filter((i) => i.kind === 'float').map((i) => i.name).join(', ');
const shapeText = (s) => `[${s.join(', ')}]`;

// A live host tensor of a floating dtype (torch refuses integers for each op
// here: "std and var only support floating point and complex dtypes").
function floatInput(t, name, what = 'input') {
  ops.liveTensor(t, what);
  route.onHost(t.device, `${name}()`);
  const dtype = t[kLayout].info.name;
  if (t[kLayout].info.kind !== 'float') {
    throw fail('ERR_INVALID_ARG_VALUE', what, `a floating-point tensor for ${name}() (${FLOAT_NAMES}; torch refuses ` +
      'integers)', `dtype ${dtype}`);
  }
  return t;
}

function flag(v, key, fallback) {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw invalidType(`options.${key}`, 'a boolean', v);
  return v;
}

// A finite number (or any number but NaN where `infinite`).
function real(v, name, fallback, infinite = false) {
  if (v === undefined) return fallback;
  if (typeof v !== 'number') throw invalidType(name, 'a number', v);
  if (Number.isNaN(v) || (!infinite && !Number.isFinite(v))) {
    throw outOfRange(name, infinite ? 'a number, not NaN' : 'a finite number', String(v));
  }
  return v;
}

// { keepdim, correction, out, async } of the options object.
function readOptions(options, keys) {
  if (options === undefined) return { keepdim: false, correction: 1, out: undefined, async: false };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidType('options', 'an object', options);
  }
  const { keepdim, correction, out, async } = checkOptions(options, keys, 'options');
  const o = ops.opOptions({ out, async });
  return { keepdim: flag(keepdim, 'keepdim', false), correction: real(correction, 'options.correction', 1), out: o.out,
    async: o.async };
}

// The reduced dims of `mask` moved last: { order, kept } (kept: how many of
// `order` are kept dims).
function movedLast(mask) {
  const order = [];
  for (let i = 0; i < mask.length; i++) if (!mask[i]) order.push(i);
  const kept = order.length;
  for (let i = 0; i < mask.length; i++) if (mask[i]) order.push(i);
  return { order, kept };
}

// One statistics call over the dims of `mask`: the result tensors (`count`
// of them: 2 for varMean/stdMean, [value, mean]) of the kept dims (keepdim:
// size 1 where reduced), new and contiguous.
function statistic(op, t, mask, o, ord = 2) {
  const layout = t[kLayout];
  const { shape, strides } = layout;
  const { order, kept } = movedLast(mask);
  const keptShape = order.slice(0, kept).map((i) => shape[i]);
  const outShape = o.keepdim ? shape.map((n, i) => (mask[i] ? 1 : n)) : keptShape;
  const withMean = op === 'varMean' || op === 'stdMean';
  const value = ops.fresh(outShape, layout.info.name);
  const mean = withMean ? ops.fresh(outShape, layout.info.name) : null;
  const results = withMean ? [value, mean] : [value];
  const keptStrides = contiguousStrides(keptShape);
  const operand = (x) => ({ storage: x[kStorage], layout: x[kLayout], strides: keptStrides });
  let pending;
  if (value[kLayout].size !== 0) {
    pending = route.runStatistics({
      op: OP[op], dtype: layout.info, shape: order.map((i) => shape[i]),
      input: { storage: t[kStorage], layout, strides: order.map((i) => strides[i]) }, reduced: shape.length - kept,
      correction: o.correction, ord, out: operand(value), mean: mean === null ? null : operand(mean), async: o.async,
    });
  }
  return { results, pending };
}

const VAR_KEYS = ['correction', 'keepdim', 'out', 'async'];
const PAIR_KEYS = ['correction', 'keepdim', 'async'];

// var / std (dim, { correction, keepdim, out, async }) -> a tensor;
// varMean / stdMean -> [var or std, mean] (torch's tuple as an array).
function statisticOf(op) {
  const pair = op === 'varMean' || op === 'stdMean';
  return function stat(t, dim, options, ...rest) {
    if (rest.length !== 0) throw fail('ERR_INVALID_ARG_VALUE', 'arguments', `at most 3 arguments for ${op}()`,
      `${3 + rest.length}`);
    floatInput(t, op);
    [dim, options] = split(dim, options);
    const o = readOptions(options, pair ? PAIR_KEYS : VAR_KEYS);
    const { results, pending } = statistic(op, t, dimMask(dim, t[kLayout].shape.length), o);
    const finish = () => (pair ? results : deliver(results[0], o.out === undefined ? null : o.out));
    return complete(o.async, pending, [t, ...results, o.out === undefined ? null : o.out], finish);
  };
}

// torch.linalg.vector_norm(x, ord = 2, dim = None, keepdim = False).
function vectorNorm(t, ord = 2, dim = undefined, options = undefined, ...rest) {
  if (rest.length !== 0) throw fail('ERR_INVALID_ARG_VALUE', 'arguments', 'at most 4 arguments for vectorNorm()',
    `${4 + rest.length}`);
  floatInput(t, 'vectorNorm');
  [dim, options] = split(dim, options);
  const p = real(ord, 'ord', 2, true);
  const o = readOptions(options, ['keepdim', 'out', 'async']);
  const shape = t[kLayout].shape;
  const mask = dimMask(dim, shape.length);
  if (!Number.isFinite(p) || p < 0) {
    for (let i = 0; i < shape.length; i++) {
      if (mask[i] && shape[i] === 0) {
        throw fail('ERR_INVALID_ARG_VALUE', 'input', `a non-zero size in each reduced dim for an ord of ${p} ` +
          '(torch: the norm of no elements is not defined for it)', `size 0 in dim ${i}`);
      }
    }
  }
  const { results, pending } = statistic('vectorNorm', t, mask, o, p);
  return complete(o.async, pending, [t, results[0], o.out === undefined ? null : o.out],
    () => deliver(results[0], o.out === undefined ? null : o.out));
}

// Calls a norms kind into a new tensor of `shape` (t's dtype), delivered to
// `out` (copied, as the reductions' results are).
function normsCall(kind, t, shape, x, y, z, outStrides, normalized, p, eps, o) {
  const info = t[kLayout].info;
  const value = ops.fresh(shape, info.name);
  let pending;
  if (value[kLayout].size !== 0) {
    const operand = (u, strides) => (u === null ? null : { storage: u[kStorage], layout: u[kLayout], strides });
    pending = route.runNorms({
      kind, dtype: info, shape: x.shape, x: operand(x.tensor, x.strides), y: y === null ? null : operand(y.tensor,
        y.strides), z: z === null ? null : operand(z.tensor, z.strides),
      out: operand(value, outStrides(value)), normalized, p, eps, async: o.async,
    });
  }
  const held = [t, x.tensor, y && y.tensor, z && z.tensor, value, o.out === undefined ? null : o.out];
  return complete(o.async, pending, held, () => deliver(value, o.out === undefined ? null : o.out));
}

const OUT_KEYS = ['out', 'async'];

// F.layer_norm(input, normalizedShape, weight, bias, eps = 1e-5).
function layerNorm(input, normalizedShape, weight = undefined, bias = undefined, eps = 1e-5, options = undefined) {
  floatInput(input, 'layerNorm');
  const shape = input[kLayout].shape;
  const ns = typeof normalizedShape === 'number' ? [normalizedShape] : normalizedShape;
  if (!Array.isArray(ns) || ns.some((n) => typeof n !== 'number')) {
    throw invalidType('normalizedShape', 'an integer or an array of integers', normalizedShape);
  }
  const tail = shape.slice(shape.length - ns.length);
  if (ns.length > shape.length || ns.some((n, i) => n !== tail[i])) {
    throw fail('ERR_INVALID_ARG_VALUE', 'normalizedShape', `the input's last dims (input of shape ${shapeText(shape)})`,
      shapeText(ns));
  }
  const e = real(eps, 'eps', 1e-5);
  const o = readOptions(options, OUT_KEYS);
  const affine = (v, name) => {
    if (v === undefined || v === null) return null;
    if (!(v instanceof Tensor)) throw invalidType(name, 'a Tensor, null or undefined', v);
    floatInput(v, 'layerNorm', name);
    if (v[kLayout].info !== input[kLayout].info) {
      throw fail('ERR_INVALID_ARG_VALUE', name, `a tensor of the input's dtype ${input.dtype}`, `a ${v.dtype} tensor`);
    }
    const s = v[kLayout].shape;
    if (s.length !== ns.length || s.some((n, i) => n !== ns[i])) {
      throw fail('ERR_INVALID_ARG_VALUE', name, `a tensor of normalizedShape ${shapeText(ns)}`, `one of shape ${shapeText(s)}`);
    }
    return { tensor: v, shape: s, strides: v[kLayout].strides };
  };
  const w = affine(weight, 'weight');
  const b = affine(bias, 'bias');
  const x = { tensor: input, shape, strides: input[kLayout].strides };
  return normsCall(0, input, shape.slice(), x, w, b, (v) => v[kLayout].strides, ns.length, 0, e, o);
}

// F.cosine_similarity(x1, x2, dim = 1, eps = 1e-8): x1 and x2 broadcast.
function cosineSimilarity(x1, x2, dim = 1, eps = 1e-8, options = undefined) {
  floatInput(x1, 'cosineSimilarity', 'x1');
  floatInput(x2, 'cosineSimilarity', 'x2');
  if (x2[kLayout].info !== x1[kLayout].info) {
    throw fail('ERR_INVALID_ARG_VALUE', 'x2', `a tensor of x1's dtype ${x1.dtype}`, `a ${x2.dtype} tensor`);
  }
  const shape = ops.broadcastShapes([x1[kLayout].shape, x2[kLayout].shape]);
  if (shape === null) {
    throw fail('ERR_INVALID_ARG_VALUE', 'x2', 'a tensor whose shape broadcasts with x1\'s',
      `shapes ${shapeText(x1[kLayout].shape)} and ${shapeText(x2[kLayout].shape)}`);
  }
  if (typeof dim !== 'number') throw invalidType('dim', 'an integer', dim);
  const d = dimension(dim, shape.length, 'dim');
  const e = real(eps, 'eps', 1e-8);
  const o = readOptions(options, OUT_KEYS);
  if (shape.length === 0) {
    throw fail('ERR_INVALID_ARG_VALUE', 'x1', 'tensors of 1 or more dims for cosineSimilarity()', 'two 0-d tensors');
  }
  const order = shape.map((_, i) => i).filter((i) => i !== d).concat([d]);
  const moved = order.map((i) => shape[i]);
  const view = (t) => {
    const strides = ops.broadcastStrides(t[kLayout], shape);
    return { tensor: t, shape: moved, strides: order.map((i) => strides[i]) };
  };
  const a = view(x1);
  const b = view(x2);
  const outShape = moved.slice(0, -1);
  return normsCall(1, x1, outShape, a, b, null, (v) => v[kLayout].strides, 0, 0, e, o);
}

// F.normalize(input, p = 2, dim = 1, eps = 1e-12), as lpNormalize.
function lpNormalize(input, p = 2, dim = 1, eps = 1e-12, options = undefined) {
  floatInput(input, 'lpNormalize');
  const power = real(p, 'p', 2, true);
  const shape = input[kLayout].shape;
  if (typeof dim !== 'number') throw invalidType('dim', 'an integer', dim);
  const d = dimension(dim, shape.length, 'dim');
  const e = real(eps, 'eps', 1e-12);
  const o = readOptions(options, OUT_KEYS);
  if (shape.length === 0) {
    throw fail('ERR_INVALID_ARG_VALUE', 'input', 'a tensor of 1 or more dims for lpNormalize()', 'a 0-d tensor');
  }
  const order = shape.map((_, i) => i).filter((i) => i !== d).concat([d]);
  const strides = input[kLayout].strides;
  const x = { tensor: input, shape: order.map((i) => shape[i]), strides: order.map((i) => strides[i]) };
  return normsCall(2, input, shape.slice(), x, null, null, (v) => order.map((i) => v[kLayout].strides[i]), 0, power, e,
    o);
}

const variance = statisticOf('var');
const std = statisticOf('std');

// Tensor methods (lib/tensor.js installMethods), as torch's: t.var, t.std.
const tensorMethods = {
  var(dim, options) { return variance(this, dim, options); },
  std(dim, options) { return std(this, dim, options); },
};

module.exports = {
  var: variance, std, varMean: statisticOf('varMean'), stdMean: statisticOf('stdMean'), vectorNorm, layerNorm,
  cosineSimilarity, lpNormalize, tensorMethods,
};
