'use strict';
// matmul, mm, bmm and linear (docs/API.md "Linear algebra"), torch's names
// and shape rules: a 1-d operand is a matrix of one row (input) or one column
// (other) whose size-1 dim is dropped from the result again, and batch dims
// broadcast. The rules are applied here, once; the native family
// (src/core/compute/matmul.h) takes every operand at the result's rank
// ([batch..., m, k] x [batch..., k, n]), broadcast dims at stride 0, and hands
// the product to the GEMM (Eigen on the host, cuBLAS on a CUDA device).
const { makeError, invalidType, fail } = require('./errors');
const { Tensor } = require('./tensor');
const route = require('./route');
const ops = require('./ops');
const { complete } = require('./reduce');
const { kStorage, kLayout } = require('./symbols');

// The dtypes the family computes in (compute/matmul.h MatmulTakes: every
// real floating dtype; float16 and bfloat16 in float32, rounded once).
const isFloat = (info) => info.kind === 'float';

const shapeText = (s) => `[${s.join(', ')}]`;

// A tensor operand of the family: { tensor, shape, strides, of } over its
// matrix form (rank >= 2); of(u) is the same form of a copy u of the tensor.
function matrixOf(t, column) {
  const { shape, strides } = t[kLayout];
  const of = (u) => matrixOf(u, column);
  if (shape.length >= 2) return { tensor: t, shape, strides, of };
  // A 1-d input is one row [1, k]; a 1-d other is one column [k, 1].
  return column ? { tensor: t, shape: [shape[0], 1], strides: [strides[0], 0], of } :
    { tensor: t, shape: [1, shape[0]], strides: [0, strides[0]], of };
}

// linear's weight [n, k] (or [k]) as the matrix [k, n] (or [k, 1]): its
// strides swapped, no copy.
function transposedWeight(w) {
  const { shape, strides } = w[kLayout];
  const of = transposedWeight;
  return shape.length === 2 ? { tensor: w, shape: [shape[1], shape[0]], strides: [strides[1], strides[0]], of } :
    { tensor: w, shape: [shape[0], 1], strides: [strides[0], 0], of };
}

// x's strides at the result's rank over `batch`: stride 0 where x lacks a
// batch dim or has size 1 there.
function atRank(x, batch) {
  const xb = x.shape.length - 2;
  const strides = batch.map((_, i) => {
    const j = i - (batch.length - xb);
    return j < 0 || x.shape[j] === 1 ? 0 : x.strides[j];
  });
  return strides.concat(x.strides.slice(-2));
}

// The two operands' checks: live tensors of one floating dtype, on one device.
function operands(name, a, b) {
  ops.liveTensor(a, 'input');
  ops.liveTensor(b, name === 'linear' ? 'weight' : 'other');
  const dtype = a[kLayout].info.name;
  if (!isFloat(a[kLayout].info)) throw makeError('ERR_DLPACK_UNSUPPORTED', `${name} is not defined for ${dtype} tensors`);
  if (b[kLayout].info.name !== dtype) {
    throw fail('ERR_INVALID_ARG_VALUE', name === 'linear' ? 'weight' : 'other',
      `a tensor of the input's dtype ${dtype} (torch: "expected both operands to have the same dtype")`,
      `a ${b[kLayout].info.name} tensor`);
  }
}

// out = a b (+ bias) for matrices a ([..., m, k]) and b ([..., k, n]) whose
// batch dims broadcast; the result's shape is `resultShape` (the product's
// with the dims of 1-d operands dropped), `drop` the product's dims it lacks.
function product(name, a, b, bias, resultShape, drop, options) {
  const { out, async, stream } = ops.opOptions(options);
  const aT = a.tensor;
  const bT = b.tensor;
  const batch = ops.broadcastShapes([a.shape.slice(0, -2), b.shape.slice(0, -2)]);
  if (batch === null) {
    throw fail('ERR_INVALID_ARG_VALUE', 'other', 'batch dims that broadcast together',
      `shapes ${shapeText(aT.shape)} and ${shapeText(bT.shape)}`);
  }
  const m = a.shape[a.shape.length - 2];
  const k = a.shape[a.shape.length - 1];
  const n = b.shape[b.shape.length - 1];
  const full = [...batch, m, n];
  const shape = resultShape(batch);
  const info = aT[kLayout].info;
  if (out !== undefined) {
    const s = out[kLayout].shape;
    if (s.length !== shape.length || s.some((d, i) => d !== shape[i])) {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a tensor of the result's shape ${shapeText(shape)}`,
        `one of shape ${shapeText(s)}`);
    }
    if (out[kLayout].info !== info) {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a ${info.name} tensor (the result's dtype)`,
        `a ${out[kLayout].info.name} tensor`);
    }
    route.refuseSharedElements(out[kLayout], `\`options.out\` of ${name}()`);
  }
  const device = ops.placement(name, bias === null ? [aT, bT] : [aT, bT, bias], out);
  // placement() lets a 0-d CPU tensor join a CUDA op as a number; cuBLAS reads
  // every operand on the device.
  for (const t of [aT, bT, bias]) {
    if (device !== null && t !== null && t.device !== device) {
      throw makeError('ERR_DLPACK_WRONG_DEVICE', `Expected every tensor of ${name}() on ${device}, received one on ` +
        `${t.device}`);
    }
  }
  const temporaries = [];
  let deferred = false;
  try {
    // On a device cuBLAS reads a matrix with a unit stride in one of its
    // dims; any other operand is copied once on the device.
    const readable = (x) => {
      if (device === null) return x;
      const r = x.strides.length - 2;
      if (x.strides[r] === 1 || x.strides[r + 1] === 1 || x.shape[r] === 1 || x.shape[r + 1] === 1) return x;
      const dense = x.tensor.contiguous();
      temporaries.push(dense);
      return x.of(dense);
    };
    const ra = readable(a);
    const rb = readable(b);
    // The product is written straight into options.out on the host (the
    // engine stages an overlap with an input itself), into a new tensor
    // copied there on a device (cuBLAS needs out apart from the inputs).
    const direct = out !== undefined && device === null;
    const dest = direct ? out : ops.fresh(shape, info.name, device);
    if (!direct && out !== undefined) temporaries.push(dest);
    const destStrides = dest[kLayout].strides.slice();
    for (const d of drop) destStrides.splice(d, 0, 0);
    const finish = () => {
      if (dest === out || out === undefined) return dest;
      return device === null ? out.copyFrom(dest) : out.copyFrom(dest, { stream });
    };
    if (dest[kLayout].size === 0) return async ? Promise.resolve(finish()) : finish();
    const operand = (x) => ({ storage: x.tensor[kStorage], layout: x.tensor[kLayout], strides: atRank(x, batch) });
    const biasOperand = bias === null ? null : { storage: bias[kStorage], layout: bias[kLayout],
      strides: [bias[kLayout].shape.length === 0 || bias[kLayout].shape[0] === 1 ? 0 : bias[kLayout].strides[0]] };
    const pending = route.runMatmul({
      dtype: info, shape: full, k, a: operand(ra), b: operand(rb), bias: biasOperand,
      out: { storage: dest[kStorage], layout: dest[kLayout], strides: destStrides }, device, stream,
      async: async && device === null,
    });
    if (pending === undefined) return complete(async, undefined, [], finish);
    deferred = true;
    return complete(async, pending, [aT, bT, bias, dest, out === undefined ? null : out], finish,
      () => { for (const t of temporaries) t.dispose(); });
  } finally {
    if (!deferred) for (const t of temporaries) t.dispose();
  }
}

// torch.matmul: 1-d, 2-d, batched, broadcast batch dims.
function matmul(input, other, options = undefined) {
  operands('matmul', input, other);
  const as = input[kLayout].shape;
  const bs = other[kLayout].shape;
  if (as.length === 0 || bs.length === 0) {
    throw fail('ERR_INVALID_ARG_VALUE', as.length === 0 ? 'input' : 'other',
      'a tensor of 1 or more dims (torch: "both arguments to matmul need to be at least 1D")',
      `shapes ${shapeText(as)} and ${shapeText(bs)}`);
  }
  const a = matrixOf(input, false);
  const b = matrixOf(other, true);
  if (a.shape[a.shape.length - 1] !== b.shape[b.shape.length - 2]) {
    throw fail('ERR_INVALID_ARG_VALUE', 'other', `a tensor whose ${bs.length === 1 ? 'size' : 'dim -2'} is ` +
      `${a.shape[a.shape.length - 1]} (input's last dim) to multiply`, `shapes ${shapeText(as)} and ${shapeText(bs)}`);
  }
  // The product's dims that 1-d operands drop from the result.
  return product('matmul', a, b, null, (batch) => {
    const shape = [...batch];
    if (as.length >= 2) shape.push(as[as.length - 2]);
    if (bs.length >= 2) shape.push(bs[bs.length - 1]);
    return shape;
  }, dropped(as, bs), options);
}

// Where the result lacks the product's row dim (1-d input) and column dim
// (1-d other), as indices into the result's strides at which a stride of 0
// is inserted, in order.
function dropped(as, bs) {
  const drop = [];
  const batch = Math.max(as.length, bs.length, 2) - 2;
  if (as.length === 1) drop.push(batch);
  if (bs.length === 1) drop.push(batch + 1);
  return drop;
}

// torch.mm: two matrices.
function mm(input, other, options = undefined) {
  operands('mm', input, other);
  const as = input[kLayout].shape;
  const bs = other[kLayout].shape;
  if (as.length !== 2 || bs.length !== 2 || as[1] !== bs[0]) {
    throw fail('ERR_INVALID_ARG_VALUE', as.length !== 2 ? 'input' : 'other',
      'two matrices [m, k] and [k, n] (mm does not broadcast)', `shapes ${shapeText(as)} and ${shapeText(bs)}`);
  }
  return product('mm', matrixOf(input, false), matrixOf(other, true), null, () => [as[0], bs[1]], [], options);
}

// torch.bmm: [b, m, k] x [b, k, n], one batch dim of one size (no broadcast).
function bmm(input, other, options = undefined) {
  operands('bmm', input, other);
  const as = input[kLayout].shape;
  const bs = other[kLayout].shape;
  if (as.length !== 3 || bs.length !== 3 || as[0] !== bs[0] || as[2] !== bs[1]) {
    throw fail('ERR_INVALID_ARG_VALUE', as.length !== 3 ? 'input' : 'other',
      'batches of matrices [b, m, k] and [b, k, n] (bmm does not broadcast)',
      `shapes ${shapeText(as)} and ${shapeText(bs)}`);
  }
  return product('bmm', matrixOf(input, false), matrixOf(other, true), null, () => [as[0], as[1], bs[2]], [],
    options);
}

// torch.nn.functional.linear: x weight^T + bias, weight [n, k] (or [k]: one
// output, its dim dropped), bias [n], [1] or 0-d (or null / undefined).
function linear(input, weight, bias = undefined, options = undefined) {
  operands('linear', input, weight);
  const xs = input[kLayout].shape;
  const ws = weight[kLayout].shape;
  if (xs.length === 0 || ws.length === 0 || ws.length > 2 || xs[xs.length - 1] !== ws[ws.length - 1]) {
    throw fail('ERR_INVALID_ARG_VALUE', 'weight', 'a weight [n, k] or [k] whose k is the input\'s last dim',
      `shapes ${shapeText(xs)} and ${shapeText(ws)}`);
  }
  const n = ws.length === 2 ? ws[0] : 1;
  if (bias === null) bias = undefined;
  if (bias !== undefined) {
    if (!(bias instanceof Tensor)) throw invalidType('bias', 'a Tensor, null or undefined', bias);
    ops.liveTensor(bias, 'bias');
    const bshape = bias[kLayout].shape;
    if (bias[kLayout].info !== input[kLayout].info) {
      throw fail('ERR_INVALID_ARG_VALUE', 'bias', `a tensor of the input's dtype ${input.dtype}`,
        `a ${bias.dtype} tensor`);
    }
    if (bshape.length > 1 || (bshape.length === 1 && bshape[0] !== n && bshape[0] !== 1)) {
      throw fail('ERR_INVALID_ARG_VALUE', 'bias', `a tensor of shape [${n}], [1] or []`, `one of shape ${shapeText(bshape)}`);
    }
  }
  const b = transposedWeight(weight);
  const a = matrixOf(input, false);
  const drop = dropped(xs, ws.length === 2 ? [0, 0] : [0]);
  return product('linear', a, b, bias === undefined ? null : bias, (batch) => {
    const shape = [...batch];
    if (xs.length >= 2) shape.push(xs[xs.length - 2]);
    if (ws.length === 2) shape.push(n);
    return shape;
  }, drop, options);
}

// Tensor methods (lib/tensor.js installMethods): t.matmul(other), t.mm(other).
const tensorMethods = {
  matmul(other, options) { return matmul(this, other, options); },
  mm(other, options) { return mm(this, other, options); },
};

module.exports = { matmul, mm, bmm, linear, tensorMethods };
