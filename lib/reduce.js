'use strict';
// Reductions, softmax and topk (docs/API.md "Reductions"), torch's names and
// rules: dims (one, a list, none = all; negative from the end), keepdim, the
// result dtypes (src/core/compute/reduce.h, handed over at load), results and `out`.
// The loops are native (src/core/compute/reduce.h) and split across threads; a sum
// gives the same bits for any thread count. Every op but complex ones also
// runs on a CUDA tensor's device, through the same call: one descriptor
// (reduceInto -> lib/route.js runReduce -> src/core/compute/reduce_call.h
// RunReduce), forked at the bottom into the host engine or the row kernels
// (src/core/cuda_ops.h). Where the kernels do not take the operands as they
// are (dense rows in the computing dtype, the reduced dims last) the core
// says so, and staged() makes them so (one permute and conversion copy) and
// calls again; every device copy and launch is enqueued on `stream`.
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
const { isAvailable, cudaStorage, copyStream } = require('./cuda');
const ops = require('./ops');
const { kStorage, kLayout, READ_ONLY, kFlags } = require('./symbols');

const OP = reduceTable.ops;
// RESULT[op][dtype index]: the result dtype's row, or null where op refuses it.
const RESULT = reduceTable.results.map((row) => row.map((i) => (i < 0 ? null : byIndex[i])));
// STAGED[op][dtype index]: the dtype a device call is staged in where the
// row kernels do not take it as it is (src/core/compute/reduce_call.h
// StagedType), or null (complex, which placeOf() refuses on a device first).
const STAGED = reduceTable.staging.map((row) => row.map((i) => (i < 0 ? null : byIndex[i])));
// Whether an op reduces a set of dims (reduce_call.h ReducesDims) rather than
// running along one.
const REDUCES_DIMS = reduceTable.dims;

// What each op's options may name.
const KEYS = {
  sum: ['keepdim', 'dtype', 'out', 'async', 'stream'],
  mean: ['keepdim', 'dtype', 'out', 'async', 'stream'],
  amax: ['keepdim', 'out', 'async', 'stream'],
  amin: ['keepdim', 'out', 'async', 'stream'],
  max: ['keepdim', 'async', 'stream'],
  min: ['keepdim', 'async', 'stream'],
  argmax: ['keepdim', 'out', 'async', 'stream'],
  argmin: ['keepdim', 'out', 'async', 'stream'],
  softmax: ['dtype', 'out', 'async', 'stream'],
  logSoftmax: ['dtype', 'out', 'async', 'stream'],
  topk: ['largest', 'sorted', 'async', 'stream'],
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
// (placeOf).
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

// { keepdim, dtype, out, largest, sorted, async, stream } from `options`,
// which may name only the op's keys; `stream` a device reduction's stream as
// copies take it (lib/cuda.js copyStream; the legacy default stream, 1n,
// unless named), read and checked on the host too, as the elementwise ops
// read it.
function readOptions(options, op) {
  if (options === undefined) {
    return { keepdim: false, dtype: null, out: null, largest: true, sorted: true, async: false, stream: 1n };
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidType('options', 'an object', options);
  }
  // Each option read once (one destructuring), then checked.
  const { keepdim, dtype, out, largest, sorted, async, stream } = checkOptions(options, KEYS[op], 'options');
  const o = {
    keepdim: flag(keepdim, 'keepdim', false),
    dtype: dtype === undefined ? null : dtypeInfo(dtype, 'options.dtype'),
    out: null,
    largest: flag(largest, 'largest', true),
    sorted: flag(sorted, 'sorted', true),
    async: flag(async, 'async', false),
    stream: copyStream(stream),
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

// Where the results of a reduction of t live: host memory (CPU) for a host
// input, t's CUDA device for a CUDA one, once CUDA is known to be usable.
function placeOf(t, method) {
  if (t.device.hostAccessible) return CPU;
  if (!isAvailable()) throw cudaUnavailable(`${method} on ${t.device}`);
  return t.device;
}

// The options of a copy a reduction of t makes: on a device, on the
// reduction's `stream`; none on the host.
function copyOn(t, o) {
  return t.device.hostAccessible ? undefined : { stream: o.stream };
}

// A new contiguous tensor of `info` and `shape` on `place` (CPU, or a CUDA
// device) whose every byte the op writes.
function result(info, shape, place = CPU) {
  let size = 1;
  for (const n of shape) size *= n;
  const bytes = size * info.itemSize;
  const storage = place === CPU ? Storage.allocateForCopy(bytes) : cudaStorage(place, bytes);
  return makeTensor(storage, Layout.contiguous(info, shape), 0, place);
}

// t, or t converted to `dtype` (torch: the input is cast before the op); `on`
// the copy's options (copyOn).
function converted(t, dtype, on) {
  return dtype === null || dtype === t[kLayout].info ? t : t.to(dtype.name, on);
}

// `value` into `out` (converted by copyFrom's rules) when there is one; `on`
// the copy's options (copyOn).
function deliver(value, out, on = undefined) {
  if (out === null) return value;
  const want = value[kLayout].shape;
  const s = out[kLayout].shape;
  if (s.length !== want.length || s.some((n, i) => n !== want[i])) {
    value.dispose();
    throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a tensor of shape [${want.join(', ')}]`,
      `one of shape [${s.join(', ')}]`);
  }
  try {
    out.copyFrom(value, on);
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

// One reduction into its results, host or CUDA alike. call: { op (a name),
// input (a tensor), order and reduced (sum/mean/amax/amin: the input's dims
// in this order, the last `reduced` of them reduced, into contiguous
// values), dim, keep and outStrides (the others: along dim, results of shape
// `keep` per dim of the input, at outStrides), values, indices (tensors or
// null), k, largest, sorted, stream, async }. The loop's Promise for async on
// the host, else undefined (a device's kernels are enqueued at the call).
function reduceInto(call) {
  const ran = runCall(call);
  if (ran === false) staged(call);
  return ran === true || ran === false ? undefined : ran;
}

// The call as lib/route.js runReduce takes it.
function runCall(c) {
  const pair = (x) => (x === null ? null : { storage: x[kStorage], offset: x[kLayout].byteOffset });
  return route.runReduce({ op: OP[c.op], input: { storage: c.input[kStorage], layout: c.input[kLayout] },
    order: c.order, reduced: c.reduced, dim: c.dim, outStrides: c.outStrides, values: pair(c.values),
    indices: pair(c.indices), k: c.k, largest: c.largest, sorted: c.sorted, stream: c.stream, async: c.async });
}

// The device staging, where the row kernels do not take the call's operands
// as they are (runCall answered false, nothing enqueued): the input's reduced
// dims (or its `dim`) moved last and the whole converted to the computing
// dtype (STAGED) in one device copy, dense results of that dtype in that
// order, the call again (which they take), and the results copied back into
// the call's own (converted: exact, the computing dtype holds every value; a
// float16/bfloat16 softmax rounded once). A mean is a sum there, divided by
// the count in the result's dtype (torch rounds the sum first). Every copy
// and launch on the call's stream; the kernels give the same bits every run.
function staged(c) {
  const t = c.input;
  const { shape, info } = t[kLayout];
  const on = { stream: c.stream };
  const dims = REDUCES_DIMS[OP[c.op]];
  const order = dims ? c.order : [...shape.keys()].filter((i) => i !== c.dim).concat(shape.length === 0 ? [] : [c.dim]);
  const identity = order.every((d, i) => d === i);
  const compute = STAGED[OP[c.op]][info.index];
  const temporaries = [];
  // x viewed as `want` (x itself where it has that shape already).
  const viewAs = (x, want) => {
    const s = x[kLayout].shape;
    if (s.length === want.length && s.every((n, i) => n === want[i])) return x;
    const v = x.reshape(want);
    temporaries.push(v);
    return v;
  };
  try {
    const moved = identity ? t : t.permute(order);
    if (moved !== t) temporaries.push(moved);
    let dense = moved;
    if (moved[kLayout].info !== compute) dense = moved.to(compute.name, on);
    else if (!moved.isContiguous) dense = moved.clone(on);
    if (dense !== moved) temporaries.push(dense);
    if (dims) {
      const kept = shape.length - c.reduced;
      const keptShape = order.slice(0, kept).map((i) => shape[i]);
      const values = result(compute, keptShape, t.device);
      temporaries.push(values);
      again({ ...c, op: c.op === 'mean' ? 'sum' : c.op, input: dense, order: undefined, values });
      // The call's values are contiguous over the kept dims, in this order.
      viewAs(c.values, keptShape).copyFrom(values, on);
      if (c.op === 'mean') {
        let n = 1;
        for (let i = kept; i < order.length; i++) n *= shape[order[i]];
        ops.functions.div(c.values, n, { out: c.values, stream: c.stream });
      }
      return;
    }
    const movedKeep = order.map((i) => c.keep[i]);
    const values = c.values === null ? null : result(compute, movedKeep, t.device);
    if (values !== null) temporaries.push(values);
    const indices = c.indices === null ? null : result(dtypeInfo('int64'), movedKeep, t.device);
    if (indices !== null) temporaries.push(indices);
    again({ ...c, input: dense, dim: Math.max(shape.length - 1, 0), outStrides: contiguousStrides(movedKeep), values,
      indices });
    const inverse = order.map((_, i) => order.indexOf(i));
    for (const [from, into] of [[values, c.values], [indices, c.indices]]) {
      if (from === null) continue;
      const back = identity ? from : from.permute(inverse);
      if (back !== from) temporaries.push(back);
      // The call's results are contiguous, of `keep` (a dim of 1 dropped without keepdim).
      viewAs(into, c.keep).copyFrom(back, on);
    }
  } finally {
    for (const x of temporaries) x.dispose();
  }
}

// A staged call, which the row kernels take.
function again(c) {
  if (runCall(c) === false) {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected the row kernels to take a staged ${c.op}() (a bug)`);
  }
}

// sum, mean, amax, amin over the dims of `mask`: { value, pending }, the
// result tensor and (o.async on the host) the Promise of its loop.
function reduceOver(op, t, mask, o) {
  const info = resultInfo(op, t, op === 'sum' || op === 'mean' ? op : 'other');
  const { shape } = t[kLayout];
  if (op === 'amax' || op === 'amin') nonEmpty(op, shape, mask);
  const order = [];
  for (let i = 0; i < shape.length; i++) if (!mask[i]) order.push(i);
  const kept = order.length;
  for (let i = 0; i < shape.length; i++) if (mask[i]) order.push(i);
  const outShape = o.keepdim ? shape.map((n, i) => (mask[i] ? 1 : n)) : order.slice(0, kept).map((i) => shape[i]);
  const out = result(info, outShape, placeOf(t, `${op}()`));
  if (out[kLayout].size === 0) return { value: out, pending: undefined };
  let pending;
  try {
    pending = reduceInto({ op, input: t, order, reduced: shape.length - kept, values: out, indices: null,
      stream: o.stream, async: o.async });
  } catch (error) {
    out.dispose();
    throw error;
  }
  return { value: out, pending };
}

function reduction(op) {
  return function reduce(t, dim, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 3, `${op}()`);
    input(t, `${op}()`);
    [dim, options] = split(dim, options);
    const o = readOptions(options, op);
    outOn(t, o.out, op);
    const on = copyOn(t, o);
    const src = converted(t, o.dtype, on);
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
    return complete(o.async, r.pending, [src, r.value, o.out], () => deliver(r.value, o.out, on), cleanup);
  };
}

// Along one dim: lanes of t, results of shape `keep` (per dim of t, the
// result's shape with keepdim) at its contiguous strides. A Promise of the
// loop when async on the host.
function lanes(op, t, dim, keep, values, indices, o, k = 0) {
  return reduceInto({ op, input: t, dim, keep, outStrides: contiguousStrides(keep), values, indices, k,
    largest: o.largest, sorted: o.sorted, stream: o.stream, async: o.async });
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
    const place = placeOf(t, `${op}()`);
    const keep = shape.map((n, i) => (i === d ? 1 : n));
    const outShape = o.keepdim ? keep : shape.filter((_, i) => i !== d);
    const values = result(t[kLayout].info, outShape, place);
    const indices = result(dtypeInfo('int64'), outShape, place);
    const pending = values[kLayout].size === 0 ? undefined : lanes(op, t, d, keep, values, indices, o);
    return complete(o.async, pending, [t, values, indices], () => ({ values, indices }));
  };
}

// t's elements as one dim: a view where t is contiguous, else a contiguous
// copy (on a device, enqueued on the copy options' stream).
function flattened(t, on) {
  const dense = t.contiguous(on);
  try {
    return dense.reshape(-1);
  } finally {
    dense.dispose();
  }
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
    const on = copyOn(t, o);
    if (dim === undefined || dim === null) {
      if (t[kLayout].size === 0) {
        throw fail('ERR_INVALID_ARG_VALUE', 'input', `a non-empty tensor for ${op}() without a dim (it has no ` +
          'identity)', `one of shape [${shape.join(', ')}]`);
      }
      const place = placeOf(t, `${op}()`);
      const flat = flattened(t, on);
      let indices;
      let pending;
      try {
        indices = result(int64, o.keepdim ? shape.map(() => 1) : [], place);
        pending = lanes(along, flat, 0, [1], null, indices, o);
      } catch (error) {
        flat.dispose();
        if (indices !== undefined) indices.dispose();
        throw error;
      }
      return complete(o.async, pending, [flat, indices, o.out], () => deliver(indices, o.out, on), () => flat.dispose());
    }
    const d = oneDim(dim, shape.length);
    if (shape.length > 0) nonEmpty(op, shape, shape.map((_, i) => i === d));
    const keep = shape.map((n, i) => (i === d ? 1 : n));
    const indices = result(int64, o.keepdim ? keep : shape.filter((_, i) => i !== d), placeOf(t, `${op}()`));
    const pending = indices[kLayout].size === 0 ? undefined : lanes(along, t, d, keep, null, indices, o);
    return complete(o.async, pending, [t, indices, o.out], () => deliver(indices, o.out, on));
  };
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
    const on = copyOn(t, o);
    const src = converted(t, o.dtype, on);
    const cleanup = () => {
      if (src !== t) src.dispose();
    };
    let out;
    let pending;
    try {
      resultInfo(op, src, 'softmax');
      const shape = src[kLayout].shape;
      const d = oneDim(dim, shape.length);
      const place = placeOf(src, `${op}()`);
      out = !o.async && directOut(o.out, src) ? o.out : result(src[kLayout].info, shape.slice(), place);
      if (out[kLayout].size !== 0) {
        // At out's strides and offset: options.out itself where directOut() allows it.
        pending = reduceInto({ op, input: src, dim: d, keep: shape, outStrides: out[kLayout].strides, values: out,
          indices: null, stream: o.stream, async: o.async });
      }
    } catch (error) {
      if (out !== undefined && out !== o.out) out.dispose();
      cleanup();
      throw error;
    }
    return complete(o.async, pending, [src, out, o.out], () => (out === o.out ? out : deliver(out, o.out, on)),
      cleanup);
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
  const place = placeOf(t, 'topk()');
  const outShape = shape.map((n, i) => (i === d ? k : n));
  const values = result(t[kLayout].info, outShape, place);
  const indices = result(dtypeInfo('int64'), outShape.slice(), place);
  // A 0-d result holds one element whatever k is (torch gives it for k = 0 too).
  const count = shape.length === 0 ? 1 : k;
  const pending = values[kLayout].size === 0 ? undefined : lanes('topk', t, d, outShape, values, indices, o, count);
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
