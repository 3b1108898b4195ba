'use strict';
// Reductions, softmax and topk (docs/API.md "Reductions"), torch's names and
// rules: dims (one, a list, none = all; negative from the end), keepdim, the
// result dtypes (src/core/compute/reduce.h, handed over at load), results and `out`.
// The loops are native (src/core/compute/reduce.h) and split across threads; a sum
// gives the same bits for any thread count. Every op but complex ones also
// runs on a CUDA tensor's device (src/core/cuda_ops.h): sum, mean, amax,
// amin as DeviceReduceRows, max/min/argmax/argmin/topk as DeviceRowPicks,
// softmax/logSoftmax as DeviceSoftmaxRows, each after one device copy that
// makes the reduced dims the contiguous inner ones.
// `{ async: true }` (docs/API.md "Off the event loop") runs the host loop on a
// libuv thread and returns a Promise of the result (complete()); on a device
// the kernels are enqueued at the call and the Promise resolves at once.
const { makeError, invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { Tensor, makeTensor, liveStorage, hostStorage, checkedBuffer } = require('./tensor');
const { checkOptions } = require('./options');
const { reduceTable } = require('./binding');
const route = require('./route');
const { byIndex, dtypeInfo } = require('./dtypes');
const { Layout } = require('./layout');
const { Storage } = require('./storage');
const { contiguousStrides } = require('./shape');
const { dimension, integer, tooMany } = require('./views');
const { CPU, cudaUnavailable } = require('./device');
const { isAvailable, cudaStorage } = require('./cuda');
const ops = require('./ops');
const { kStorage, kLayout, READ_ONLY, kFlags } = require('./symbols');

const OP = reduceTable.ops;
// RESULT[op][dtype index]: the result dtype's row, or null where op refuses it.
const RESULT = reduceTable.results.map((row) => row.map((i) => (i < 0 ? null : byIndex[i])));

// What each op's options may name.
const KEYS = {
  sum: ['keepdim', 'dtype', 'out', 'async'],
  mean: ['keepdim', 'dtype', 'out', 'async'],
  amax: ['keepdim', 'out', 'async'],
  amin: ['keepdim', 'out', 'async'],
  max: ['keepdim', 'async'],
  min: ['keepdim', 'async'],
  argmax: ['keepdim', 'out', 'async'],
  argmin: ['keepdim', 'out', 'async'],
  softmax: ['dtype', 'out', 'async'],
  logSoftmax: ['dtype', 'out', 'async'],
  topk: ['largest', 'sorted', 'async'],
};

// Why an op refuses a dtype (torch's rules).
const REFUSED = {
  sum: 'a real or complex tensor',
  mean: 'a floating-point or complex tensor (or `dtype`: torch refuses the mean of integers)',
  softmax: 'a floating-point tensor (or `dtype`: torch refuses integers)',
  other: 'a real (not complex) tensor',
};

// The input, live, with its bytes there: host memory, or a CUDA tensor
// (docs/API.md "Reductions").
function input(t, method) {
  if (!(t instanceof Tensor)) throw invalidType('input', 'a Tensor', t);
  liveStorage(t);
  if (!t.device.hostAccessible) return deviceInput(t, method);
  hostStorage(t, method);
  checkedBuffer(t);
  return t;
}

// A CUDA input of a device reduction: real (complex reductions run on the host
// only). Whether CUDA is usable is asked once the arguments are checked
// (reduceOnDevice).
function deviceInput(t, method) {
  if (t[kLayout].info.kind === 'complex') {
    throw makeError('ERR_DLPACK_WRONG_DEVICE', `Expected a real tensor for \`${method}\` on ${t.device}: complex ` +
      'reductions run on the host only; call .cpu() first');
  }
  return t;
}

function flag(v, key, fallback) {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw invalidType(`options.${key}`, 'a boolean', v);
  return v;
}

// { keepdim, dtype, out, largest, sorted, async } from `options`, which may
// name only the op's keys.
function readOptions(options, op) {
  if (options === undefined) {
    return { keepdim: false, dtype: null, out: null, largest: true, sorted: true, async: false };
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidType('options', 'an object', options);
  }
  // Each option read once (one destructuring), then checked.
  const { keepdim, dtype, out, largest, sorted, async } = checkOptions(options, KEYS[op], 'options');
  const o = {
    keepdim: flag(keepdim, 'keepdim', false),
    dtype: dtype === undefined ? null : dtypeInfo(dtype, 'options.dtype'),
    out: null,
    largest: flag(largest, 'largest', true),
    sorted: flag(sorted, 'sorted', true),
    async: flag(async, 'async', false),
  };
  if (out !== undefined) {
    if (!(out instanceof Tensor)) throw invalidType('options.out', 'a Tensor', out);
    liveStorage(out); // its device is checked against the input's (outOn)
    if (out[kFlags] & READ_ONLY) {
      throw fail('ERR_DLPACK_READ_ONLY', 'options.out', 'a writable tensor', 'a readOnly one');
    }
    // At the call, the rule of every write (lib/route.js), not once the loop has run.
    route.refuseSharedElements(out[kLayout], `\`options.out\` of ${op}()`);
    o.out = out;
  }
  return o;
}

// The methods take (dim, options) or (options): an object that is not an
// array in first place is the options.
function split(dim, options) {
  if (options === undefined && dim !== null && typeof dim === 'object' && !Array.isArray(dim)) {
    return [undefined, dim];
  }
  return [dim, options];
}

// Which dims of `ndim` to reduce: undefined, null or [] means all (torch);
// a number or an array of distinct dims, negative from the end.
function dimMask(dim, ndim) {
  const mask = new Array(ndim).fill(dim === undefined || dim === null);
  if (dim === undefined || dim === null) return mask;
  if (typeof dim === 'number') {
    if (ndim > 0) mask[dimension(dim, ndim, 'dim')] = true;
    else dimension(dim, ndim, 'dim');
    return mask;
  }
  if (!Array.isArray(dim)) throw invalidType('dim', 'an integer, an array of integers or undefined', dim);
  if (dim.length === 0) return mask.fill(true);
  const seen = new Array(Math.max(ndim, 1)).fill(false);
  for (let i = 0; i < dim.length; i++) {
    if (typeof dim[i] !== 'number') throw invalidType(`dim[${i}]`, 'an integer', dim[i]);
    const d = dimension(dim[i], ndim, `dim[${i}]`);
    if (seen[d]) throw invalidValue('dim', `distinct dimensions (dimension ${d} repeats)`, dim);
    seen[d] = true;
    if (ndim > 0) mask[d] = true;
  }
  return mask;
}

// One integer dim, required or defaulted.
function oneDim(dim, ndim, name = 'dim') {
  if (typeof dim !== 'number') throw invalidType(name, 'an integer', dim);
  return dimension(dim, ndim, name);
}

// The result row of `op` for t's dtype, or the coded refusal.
function resultInfo(op, t, family) {
  const info = RESULT[OP[op]][t[kLayout].info.index];
  if (info === null) {
    throw fail('ERR_INVALID_ARG_VALUE', 'input', `${REFUSED[family]} for ${op}()`, `dtype ${t.dtype}`);
  }
  return info;
}

// A new contiguous host tensor whose every byte the op writes.
function result(info, shape) {
  let size = 1;
  for (const n of shape) size *= n;
  return makeTensor(Storage.allocateForCopy(size * info.itemSize), Layout.contiguous(info, shape), 0, CPU);
}

// t, or t converted to `dtype` (torch: the input is cast before the op).
function converted(t, dtype) {
  return dtype === null || dtype === t[kLayout].info ? t : t.to(dtype.name);
}

// `value` into `out` (converted by copyFrom's rules) when there is one.
function deliver(value, out) {
  if (out === null) return value;
  const want = value[kLayout].shape;
  const s = out[kLayout].shape;
  if (s.length !== want.length || s.some((n, i) => n !== want[i])) {
    value.dispose();
    throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a tensor of shape [${want.join(', ')}]`,
      `one of shape [${s.join(', ')}]`);
  }
  try {
    out.copyFrom(value);
  } finally {
    value.dispose();
  }
  return out;
}

// The op's result once its native loop has run: synchronously, finish();
// with `async`, a Promise of it. `pending` is the loop's Promise (undefined
// where nothing runs off this thread: a sync call, a 0-size result, a CUDA
// tensor, whose kernels are enqueued at the call as the elementwise ops'
// are); until it settles the storages of `held` (tensors, null skipped: the
// input, the results, options.out) are held (Storage.holdUntilSettled: dispose()
// lets go of the tensor, not the memory; shareMemory() is refused). A
// failure after the launch rejects. `cleanup` runs once, after finish().
function complete(async, pending, held, finish, cleanup = () => {}) {
  if (pending === undefined) {
    try {
      const value = finish();
      return async ? Promise.resolve(value) : value;
    } finally {
      cleanup();
    }
  }
  const storages = held.filter((x) => x !== null).map((x) => x[kStorage]);
  return Storage.holdUntilSettled(storages, pending.then(finish)).finally(cleanup);
}

// A device result (its kernels enqueued at the call), or a Promise of it for
// `{ async: true }`, as the elementwise device ops give it.
function settled(async, value) {
  return async ? Promise.resolve(value) : value;
}

// Every dim of t is kept: a 0-size reduction that has no identity is refused.
function nonEmpty(op, shape, mask) {
  for (let i = 0; i < shape.length; i++) {
    if (mask[i] && shape[i] === 0) {
      throw fail('ERR_INVALID_ARG_VALUE', 'input', `a non-zero size in each reduced dim for ${op}() (it has ` +
        'no identity)', `size 0 in dim ${i}`);
    }
  }
}

// options.out on the input's device: host memory for a host input (as every
// reduction), the input's CUDA device for a CUDA one.
function outOn(t, out, op) {
  if (out === null) return;
  if (t.device.hostAccessible) {
    hostStorage(out, `${op}() options.out`);
  } else if (out.device !== t.device) {
    throw makeError('ERR_DLPACK_WRONG_DEVICE', `Expected \`options.out\` of ${op}() on ${t.device}, the input's ` +
      `device, received one on ${out.device}`);
  }
}

// The dtype a device reduction computes in (src/core/cuda_ops.h
// DeviceReduceRows): sums of bool and integers in int64, max/min of unsigned
// integers and bool in uint64, of signed in int64; float16/bfloat16 in float32.
function deviceType(op, info) {
  if (info.kind === 'float') return info.name === 'float64' ? 'float64' : 'float32';
  if (op === 'sum' || op === 'mean' || info.kind === 'int') return 'int64';
  return 'uint64';
}

// The dims of `mask` moved last and t converted to `compute`, one
// contiguous device copy: { dense, order, rows, n } (rows of n elements),
// its temporaries pushed onto `temporaries`.
function deviceRows(t, mask, compute, temporaries) {
  const { shape } = t[kLayout];
  const order = [];
  for (let i = 0; i < shape.length; i++) if (!mask[i]) order.push(i);
  const kept = order.length;
  for (let i = 0; i < shape.length; i++) if (mask[i]) order.push(i);
  let rows = 1;
  for (let i = 0; i < kept; i++) rows *= shape[order[i]];
  let n = 1;
  for (let i = kept; i < order.length; i++) n *= shape[order[i]];
  const moved = order.every((d, i) => d === i) ? t : t.permute(order);
  if (moved !== t) temporaries.push(moved);
  const dense = moved[kLayout].info.name === compute ? moved.contiguous() : moved.to(compute);
  temporaries.push(dense);
  return { dense, order, rows, n };
}

// `x` (laid out in `order`, dims of t permuted) back in t's dim order,
// contiguous; x itself when order is the identity.
function unmoved(x, order, temporaries) {
  if (order.every((d, i) => d === i)) return x;
  const inverse = order.map((_, i) => order.indexOf(i));
  const back = x.permute(inverse);
  temporaries.push(x, back);
  return back.contiguous();
}

// A new contiguous tensor of `info` and `shape` on CUDA device `device`.
function deviceResult(device, info, shape) {
  let size = 1;
  for (const n of shape) size *= n;
  return makeTensor(cudaStorage(device, size * info.itemSize), Layout.contiguous(info, shape), 0, device);
}

// sum, mean, amax, amin of a CUDA tensor: its reduced dims moved last and the
// whole converted to the computing dtype (one contiguous copy on the device),
// then one kernel block per result element (a fixed tree: the same bits every
// run); the result cast to its dtype, a mean divided by the count as torch
// does (the sum rounded to the dtype first).
function reduceOnDevice(op, t, mask, o, info) {
  if (!isAvailable()) throw cudaUnavailable(`${op}() on ${t.device}`);
  const { shape } = t[kLayout];
  const outShape = o.keepdim ? shape.map((n, i) => (mask[i] ? 1 : n)) : shape.filter((_, i) => !mask[i]);
  const temporaries = [];
  try {
    const { dense, rows, n } = deviceRows(t, mask, deviceType(op, t[kLayout].info), temporaries);
    const acc = deviceResult(t.device, dense[kLayout].info, [rows]);
    temporaries.push(acc);
    if (rows !== 0) {
      route.runReduceRowsOnDevice(op === 'amax' ? 1 : op === 'amin' ? 2 : 0, dense[kStorage], dense[kLayout],
        acc[kStorage], acc[kLayout], rows, n);
    }
    let value = acc.dtype === info.name ? acc : acc.to(info.name);
    if (value !== acc) temporaries.push(value);
    if (op === 'mean') {
      value = ops.functions.div(value, n);
      temporaries.push(value);
    }
    // The one result not disposed below: a reshaped view of `value`.
    return value.reshape(outShape);
  } finally {
    for (const x of temporaries) x.dispose();
  }
}

// sum, mean, amax, amin over the dims of `mask`: { value, pending }, the
// result tensor and (o.async on the host) the Promise of its loop.
function reduceOver(op, t, mask, o) {
  const info = resultInfo(op, t, op === 'sum' || op === 'mean' ? op : 'other');
  const { shape } = t[kLayout];
  if (op === 'amax' || op === 'amin') nonEmpty(op, shape, mask);
  if (!t.device.hostAccessible) return { value: reduceOnDevice(op, t, mask, o, info), pending: undefined };
  const order = [];
  for (let i = 0; i < shape.length; i++) if (!mask[i]) order.push(i);
  const kept = order.length;
  for (let i = 0; i < shape.length; i++) if (mask[i]) order.push(i);
  const outShape = o.keepdim ? shape.map((n, i) => (mask[i] ? 1 : n)) : order.slice(0, kept).map((i) => shape[i]);
  const out = result(info, outShape);
  if (out[kLayout].size === 0) return { value: out, pending: undefined };
  const pending = route.runReduceDims(OP[op], t[kStorage], t[kLayout], order, shape.length - kept, out[kStorage],
    out[kLayout], o.async);
  return { value: out, pending };
}

function reduction(op) {
  return function reduce(t, dim, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 3, `${op}()`);
    input(t, `${op}()`);
    [dim, options] = split(dim, options);
    const o = readOptions(options, op);
    outOn(t, o.out, op);
    const src = converted(t, o.dtype);
    const cleanup = () => {
      if (src !== t) src.dispose();
    };
    let r;
    try {
      r = reduceOver(op, src, dimMask(dim, src[kLayout].shape.length), o);
    } catch (error) {
      cleanup();
      throw error;
    }
    return complete(o.async, r.pending, [src, r.value, o.out], () => deliver(r.value, o.out), cleanup);
  };
}

// Along one dim: lanes of t, results at contiguous strides of `outShape`
// (per dim of t), `keepdim` shape `kept`. A Promise of the loop when `async`.
function lanes(op, t, dim, outShape, values, indices, async, k = 0, largest = true, sorted = true) {
  const outStrides = contiguousStrides(outShape);
  return route.runReduceLanes(OP[op], t[kStorage], t[kLayout], dim, outStrides,
    values === null ? null : values[kStorage], 0, indices === null ? null : indices[kStorage], k, largest, sorted,
    async);
}

// softmax/logSoftmax of t along dim into `out` of t's shape, at out's offset
// and strides (a new result, or options.out where directOut() allows it).
function softmaxLanes(op, t, dim, out, async) {
  const layout = out[kLayout];
  return route.runReduceLanes(OP[op], t[kStorage], t[kLayout], dim, layout.strides, out[kStorage], layout.byteOffset,
    null, 0, true, true, async);
}

// The first k elements along dim `d` of a CUDA tensor t in an order (largest
// or smallest first, NaN first where `nanFirst` (argmax, argmin, max, min,
// topk of the largest) else last (topk of the smallest), ties to the lower
// index: the host's rules),
// as { values, indices } of t's shape with dim d of size k (keepdim false:
// with d dropped, k = 1), either skipped when `want` says so. The lanes are
// made contiguous rows in the computing dtype (deviceType) by one device
// copy, picked by one launch (src/core/cuda_ops.h DeviceRowPicks), the values
// converted back (exact: the computing dtype holds every input value).
function picksOnDevice(method, t, d, k, largest, nanFirst, keepdim, want = { values: true, indices: true }) {
  if (!isAvailable()) throw cudaUnavailable(`${method} on ${t.device}`);
  const info = t[kLayout].info;
  const shape = t[kLayout].shape;
  const mask = shape.map((_, i) => i === d);
  const kShape = shape.map((n, i) => (i === d ? k : n));
  const outShape = keepdim ? kShape : shape.filter((_, i) => i !== d);
  const temporaries = [];
  try {
    const { dense, order, rows, n } = deviceRows(t, mask, deviceType('amax', info), temporaries);
    const movedShape = order.map((i) => kShape[i]);
    const values = want.values ? deviceResult(t.device, dense[kLayout].info, movedShape) : null;
    if (values !== null) temporaries.push(values);
    const indices = want.indices ? deviceResult(t.device, dtypeInfo('int64'), movedShape) : null;
    if (indices !== null) temporaries.push(indices);
    if (rows !== 0 && k !== 0) {
      route.runRowPicksOnDevice(largest, nanFirst, dense[kStorage], dense[kLayout], values && values[kStorage],
        values && values[kLayout], indices && indices[kStorage], indices && indices[kLayout], rows, n, k);
    }
    // Each result not disposed below: a new tensor or a reshaped view.
    const finish = (x, dtype) => {
      let r = unmoved(x, order, temporaries);
      if (r.dtype !== dtype) {
        temporaries.push(r);
        r = r.to(dtype);
      }
      temporaries.push(r);
      return r.reshape(outShape);
    };
    return {
      values: values === null ? null : finish(values, info.name),
      indices: indices === null ? null : finish(indices, 'int64'),
    };
  } finally {
    for (const x of temporaries) x.dispose();
  }
}

// max(dim) / min(dim) -> { values, indices }; without a dim, amax / amin of all.
function extreme(op) {
  return function extremeOf(t, dim, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 3, `${op}()`);
    [dim, options] = split(dim, options);
    input(t, `${op}()`);
    if (dim === undefined) {
      const o = readOptions(options, op);
      const r = reduceOver(op === 'max' ? 'amax' : 'amin', t, dimMask(undefined, t.ndim), o);
      return complete(o.async, r.pending, [t, r.value], () => r.value);
    }
    const o = readOptions(options, op);
    const shape = t[kLayout].shape;
    const d = oneDim(dim, shape.length);
    resultInfo(op, t, 'other');
    if (shape.length > 0) nonEmpty(`${op}`, shape, shape.map((_, i) => i === d));
    if (!t.device.hostAccessible) return settled(o.async, picksOnDevice(`${op}()`, t, d, 1, op === 'max', true, o.keepdim));
    const keep = shape.map((n, i) => (i === d ? 1 : n));
    const outShape = o.keepdim ? keep : shape.filter((_, i) => i !== d);
    const values = result(t[kLayout].info, outShape);
    const indices = result(dtypeInfo('int64'), outShape);
    const pending = values[kLayout].size === 0 ? undefined : lanes(op, t, d, keep, values, indices, o.async);
    return complete(o.async, pending, [t, values, indices], () => ({ values, indices }));
  };
}

// argmax / argmin: along a dim, or over the flattened tensor.
function argExtreme(op) {
  const along = op === 'argmax' ? 'max' : 'min';
  return function argOf(t, dim, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 3, `${op}()`);
    input(t, `${op}()`);
    [dim, options] = split(dim, options);
    const o = readOptions(options, op);
    outOn(t, o.out, op);
    resultInfo(along, t, 'other');
    const shape = t[kLayout].shape;
    const int64 = dtypeInfo('int64');
    if (dim === undefined || dim === null) {
      if (t[kLayout].size === 0) {
        throw fail('ERR_INVALID_ARG_VALUE', 'input', `a non-empty tensor for ${op}() without a dim (it has no ` +
          'identity)', `one of shape [${shape.join(', ')}]`);
      }
      const flat = t.reshape(-1);
      if (!t.device.hostAccessible) {
        let kept;
        try {
          const { indices } = picksOnDevice(`${op}()`, flat, 0, 1, along === 'max', true, o.keepdim, { values: false,
            indices: true });
          kept = o.keepdim ? indices.reshape(shape.map(() => 1)) : indices;
          if (kept !== indices) indices.dispose();
        } finally {
          flat.dispose();
        }
        return settled(o.async, deliver(kept, o.out));
      }
      let indices;
      let pending;
      try {
        indices = result(int64, o.keepdim ? shape.map(() => 1) : []);
        pending = lanes(along, flat, 0, [1], null, indices, o.async);
      } catch (error) {
        flat.dispose();
        throw error;
      }
      return complete(o.async, pending, [flat, indices, o.out], () => deliver(indices, o.out), () => flat.dispose());
    }
    const d = oneDim(dim, shape.length);
    if (shape.length > 0) nonEmpty(op, shape, shape.map((_, i) => i === d));
    if (!t.device.hostAccessible) {
      const { indices } = picksOnDevice(`${op}()`, t, d, 1, along === 'max', true, o.keepdim, { values: false,
        indices: true });
      return settled(o.async, deliver(indices, o.out));
    }
    const keep = shape.map((n, i) => (i === d ? 1 : n));
    const indices = result(int64, o.keepdim ? keep : shape.filter((_, i) => i !== d));
    const pending = indices[kLayout].size === 0 ? undefined : lanes(along, t, d, keep, null, indices, o.async);
    return complete(o.async, pending, [t, indices, o.out], () => deliver(indices, o.out));
  };
}

// softmax / logSoftmax of a CUDA tensor along `d`, numerically stable as on
// the host: dim d made the contiguous inner one in the computing dtype
// (float32, float64 for float64) by one device copy, then one launch, a block
// per lane (src/core/cuda_ops.h DeviceSoftmaxRows): the lane's maximum, the
// sum of e^(x - max), then e^(x - max) / sum or x - max - log(sum); the
// result back in t's dim order and dtype (float16/bfloat16 rounded once).
function softmaxOnDevice(op, src, d) {
  if (!isAvailable()) throw cudaUnavailable(`${op}() on ${src.device}`);
  const info = src[kLayout].info;
  const shape = src[kLayout].shape;
  const temporaries = [];
  try {
    const compute = info.name === 'float64' ? 'float64' : 'float32';
    const { dense, order, rows, n } = deviceRows(src, shape.map((_, i) => i === d), compute, temporaries);
    const out = deviceResult(src.device, dense[kLayout].info, dense[kLayout].shape.slice());
    temporaries.push(out);
    if (rows !== 0 && n !== 0) {
      route.runSoftmaxRowsOnDevice(op === 'logSoftmax', dense[kStorage], dense[kLayout], out[kStorage], out[kLayout],
        rows, n);
    }
    let r = unmoved(out, order, temporaries);
    if (r.dtype !== info.name) {
      temporaries.push(r);
      r = r.to(info.name);
    }
    // The one result not disposed below: a view of r.
    temporaries.push(r);
    return r.reshape(shape.slice());
  } finally {
    for (const x of temporaries) x.dispose();
  }
}

// Whether a synchronous softmax can write its results straight into
// options.out (as an elementwise op does), rather than into a new tensor
// copied there (a 1 MB result: 15% of the call): host memory, src's dtype
// and shape, no two elements at one address (copyFrom's refusal stays where
// it was), and no byte in common with src unless they are the very same
// elements (a lane is read whole before it is written, so in place is safe;
// a partial overlap would let one lane's results overwrite another lane's
// inputs). The async form keeps the copy: an out disposed in flight must
// see nothing written (docs/API.md).
function directOut(out, src) {
  if (out === null || !out.device.hostAccessible) return false;
  const layout = out[kLayout];
  const want = src[kLayout];
  if (layout.info !== want.info || layout.shape.length !== want.shape.length) return false;
  for (let i = 0; i < layout.shape.length; i++) {
    if (layout.shape[i] !== want.shape[i]) return false;
  }
  return route.sharedElements(layout) === null && !ops.partialOverlap(out, [src], want.shape);
}

// softmax(dim) / logSoftmax(dim): the dim is required (torch's implicit dim
// is deprecated).
function softmaxOf(op) {
  return function softmax(t, dim, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 3, `${op}()`);
    input(t, `${op}()`);
    const o = readOptions(options, op);
    outOn(t, o.out, op);
    const src = converted(t, o.dtype);
    const cleanup = () => {
      if (src !== t) src.dispose();
    };
    let out;
    let pending;
    try {
      resultInfo(op, src, 'softmax');
      const shape = src[kLayout].shape;
      const d = oneDim(dim, shape.length);
      if (!src.device.hostAccessible) {
        out = softmaxOnDevice(op, src, d);
      } else {
        out = !o.async && directOut(o.out, src) ? o.out : result(src[kLayout].info, shape.slice());
        if (out[kLayout].size !== 0) pending = softmaxLanes(op, src, d, out, o.async);
      }
    } catch (error) {
      cleanup();
      throw error;
    }
    return complete(o.async, pending, [src, out, o.out], () => (out === o.out ? out : deliver(out, o.out)), cleanup);
  };
}

// topk(k, dim = -1, { largest = true, sorted = true }) -> { values, indices }.
function topk(t, k, dim = -1, options = undefined, ...rest) {
  if (rest.length !== 0) tooMany(rest, 4, 'topk()');
  input(t, 'topk()');
  [dim, options] = dim !== null && typeof dim === 'object' && !Array.isArray(dim) && options === undefined ?
    [-1, dim] : [dim, options];
  const o = readOptions(options, 'topk');
  resultInfo('topk', t, 'other');
  const shape = t[kLayout].shape;
  const d = oneDim(dim, shape.length);
  integer(k, 'k');
  const len = shape.length === 0 ? 1 : shape[d];
  if (k < 0 || k > len) throw outOfRange('k', `an integer from 0 to ${len} (the size of dim ${d})`, String(k));
  if (!t.device.hostAccessible) {
    // A 0-d input gives a 0-d result, one element for k = 0 or 1 (as on the host).
    if (shape.length === 0) return settled(o.async, picksOnDevice('topk()', t, 0, 1, o.largest, o.largest, false));
    return settled(o.async, picksOnDevice('topk()', t, d, k, o.largest, o.largest, true));
  }
  const outShape = shape.map((n, i) => (i === d ? k : n));
  const values = result(t[kLayout].info, outShape);
  const indices = result(dtypeInfo('int64'), outShape.slice());
  // A 0-d result holds one element whatever k is (torch gives it for k = 0 too).
  const count = shape.length === 0 ? 1 : k;
  const pending = values[kLayout].size === 0 ? undefined :
    lanes('topk', t, d, outShape, values, indices, o.async, count, o.largest, o.sorted);
  return complete(o.async, pending, [t, values, indices], () => ({ values, indices }));
}

const functions = {
  sum: reduction('sum'),
  mean: reduction('mean'),
  amax: reduction('amax'),
  amin: reduction('amin'),
  max: extreme('max'),
  min: extreme('min'),
  argmax: argExtreme('argmax'),
  argmin: argExtreme('argmin'),
  softmax: softmaxOf('softmax'),
  logSoftmax: softmaxOf('logSoftmax'),
  topk,
};

// The reductions' Tensor methods (lib/index.js installs them through
// lib/tensor.js installMethods): t.sum(dim, options), t.max(dim), t.topk(k),
// ..., each the function with `this` as the input.
const tensorMethods = {
  sum(...args) { return functions.sum(this, ...args); },
  mean(...args) { return functions.mean(this, ...args); },
  amax(...args) { return functions.amax(this, ...args); },
  amin(...args) { return functions.amin(this, ...args); },
  max(...args) { return functions.max(this, ...args); },
  min(...args) { return functions.min(this, ...args); },
  argmax(...args) { return functions.argmax(this, ...args); },
  argmin(...args) { return functions.argmin(this, ...args); },
  softmax(...args) { return functions.softmax(this, ...args); },
  logSoftmax(...args) { return functions.logSoftmax(this, ...args); },
  topk(...args) { return functions.topk(this, ...args); },
};

module.exports = {
  ...functions,
  tensorMethods,
  // What the compute families share with the reductions (lib/stats.js).
  complete, deliver, split, dimMask,
};
