'use strict';
// Creating tensors (docs/API.md "Creating tensors"): fromBuffer, empty, zeros, ones,
// full, arange, the *Like forms, tensor; and the fill behind full() and t.fill_().
const { makeError, invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { dtypeInfo, dtypeOfView, infos } = require('./dtypes');
const { parseDevice } = require('./device');
const { cudaStorage } = require('./cuda');
const { normalizeShape, product } = require('./shape');
const { Layout } = require('./layout');
const { Storage, isDetached, holderOf } = require('./storage');
const { Tensor, makeTensor, liveStorage } = require('./tensor');
const { checkOptions } = require('./options');
const { kToken } = require('./symbols');
const { integerValue, isInteger } = require('./convert');
const { sharedStorage } = require('./sharing');
const scalars = require('./scalars');
const { viewCount, viewFailure } = require('./binding');
const { isAnyArrayBuffer, isTypedArray, isDataView, viewParts, typedArrayLength, viewBuffer, anyBufferLength,
  posesAsBuffer } =
  require('./typed');

const FROM_BUFFER_KEYS = ['dtype', 'offset', 'count', 'shape', 'strides'];
const CREATE_KEYS = ['dtype', 'device', 'shared'];
const TENSOR_KEYS = ['dtype', 'shape', 'device'];
const ARANGE_KEYS = ['dtype', 'device'];

// torch.frombuffer semantics: a zero-copy view that keeps `source` alive.
function fromBuffer(source, options) {
  // Each option read once (one destructuring).
  const { dtype, offset = 0, count, shape, strides } = options !== null && typeof options === 'object' ?
    checkOptions(options, FROM_BUFFER_KEYS) : {};
  if (dtype === undefined) throw invalidType('options.dtype', 'a dtype name string', undefined);
  const info = dtypeInfo(dtype, 'options.dtype');

  let buffer;
  let base;
  let length;
  // Real buffers and views only, read through the intrinsic getters (lib/typed.js).
  const whole = anyBufferLength(source);
  if (whole >= 0) {
    buffer = source;
    base = 0;
    length = whole;
  } else if (isTypedArray(source) || isDataView(source)) {
    buffer = viewBuffer(source);
    const bytes = viewBytes(source);
    if (bytes === null) {
      throw makeError('ERR_DLPACK_DETACHED', 'Expected a view inside its buffer for `source`, received one ' +
        'whose buffer was detached or shrunk below it');
    }
    ({ base, length } = bytes);
  } else if (posesAsBuffer(source)) {
    throw fail('ERR_INVALID_ARG_TYPE', 'source', 'an ArrayBuffer, SharedArrayBuffer, TypedArray, DataView or Buffer',
      `an object that inherits from ${source.constructor && source.constructor.name} but is not one`);
  } else {
    throw invalidType('source', 'an ArrayBuffer, SharedArrayBuffer, TypedArray, DataView or Buffer', source);
  }
  if (length === 0 && isDetached(buffer)) {
    throw makeError('ERR_DLPACK_DETACHED', 'Expected an attached buffer for `source`, received a detached one');
  }

  // Any integer (native code judges the range; 2^60 is a count too large, not
  // a wrong type); Node's validateInteger: a number that is not an integer is
  // out of range.
  //
  // The checks are written here, and the tensor made with `new Tensor`
  // rather than makeTensor(): the optimizing compiler inlines callees into
  // this function up to a total bytecode size (920 bytes in Node 20's V8),
  // and with two wholeNumber() calls and makeTensor's defaults the Layout
  // constructor was left a call (bench/README.md "The per-call path").
  const wanted = count === undefined ? -1 : count;
  if (typeof offset !== 'number' || !Number.isInteger(offset)) throw notWholeNumber(offset, 'options.offset');
  if (typeof wanted !== 'number' || !Number.isInteger(wanted)) throw notWholeNumber(wanted, 'options.count');
  if (strides !== undefined) return stridedView(buffer, base, length, info, offset, shape, strides, count);
  // Range, alignment and element count: src/core/buffer_view.cc.
  const n = viewCount(length, base, info.itemSize, offset, wanted);
  if (n < 0) throw viewError(-n, info, length, base, offset, wanted, count !== undefined);

  // Memory the library owns is held through its own Storage (lib/storage.js).
  const storage = holderOf(buffer) || Storage.heap(buffer, false);
  if (shape === undefined) {
    return new Tensor(kToken, storage, Layout.vector(info, n, base + offset), 0, storage.device);
  }
  const dims = normalizeShape(shape, 'options.shape');
  if (product(dims) !== n) {
    throw outOfRange('options.shape', `a shape whose product is ${n} (the element count)`, `[${dims.join(', ')}]`);
  }
  return makeTensor(storage, Layout.contiguous(info, dims, base + offset, n));
}

function notWholeNumber(value, name) {
  return typeof value !== 'number' ? invalidType(name, 'an integer', value) : outOfRange(name, 'an integer', String(value));
}

// fromBuffer(source, { dtype, shape, strides, offset }): element 0 at byte
// `offset` of the source, the elements wherever the strides (in elements,
// negative allowed) put them, all inside the source's bytes.
function stridedView(buffer, base, length, info, offset, shape, strides, count) {
  if (shape === undefined) {
    throw invalidType('options.shape', 'an array of non-negative integers (options.strides needs it)', undefined);
  }
  if (count !== undefined) {
    throw invalidValue('options.count', 'undefined when options.strides is given (the shape sets the count)', count);
  }
  const dims = normalizeShape(shape, 'options.shape');
  if (!Array.isArray(strides)) throw invalidType('options.strides', 'an array of integers', strides);
  if (strides.length !== dims.length) {
    throw invalidValue('options.strides', `${dims.length} strides (one per dimension of options.shape)`, strides);
  }
  for (let i = 0; i < strides.length; i++) {
    const s = strides[i];
    if (typeof s !== 'number') throw invalidType(`options.strides[${i}]`, 'an integer', s);
    if (!Number.isSafeInteger(s)) throw outOfRange(`options.strides[${i}]`, 'an integer', String(s));
  }
  if (offset < 0 || offset > length) {
    throw outOfRange('options.offset', `an integer from 0 to ${length} (the byte length)`, String(offset));
  }
  if ((base + offset) % info.itemSize !== 0) {
    throw viewError(viewFailure.misaligned, info, length, base, offset, -1);
  }
  const layout = Layout.of(info, dims, strides.slice(), base + offset, 'options.shape');
  const { low, high } = layout;
  if (layout.size !== 0 && (offset - low < 0 || offset + high > length)) {
    throw outOfRange('options.strides', `strides whose elements lie inside the ${length} bytes of \`source\``,
      `[${strides.join(', ')}], spanning bytes ${offset - low} to ${offset + high}`);
  }
  return makeTensor(holderOf(buffer) || Storage.heap(buffer, false), layout);
}

// A view's { base, length } in its buffer, or null when nothing is left to
// view: its buffer was detached, or is a resizable ArrayBuffer shrunk below
// it. A DataView then throws on byteOffset; a typed array reports 0 bytes at
// offset 0, so an empty one is told apart by subarray(), which re-reads the
// offset it was made with and throws when that is out of bounds.
function viewBytes(view) {
  let base;
  let length;
  let buffer;
  try {
    ({ buffer, byteOffset: base, byteLength: length } = viewParts(view));
  } catch {
    return null;
  }
  if (length === 0) {
    if (isDetached(buffer)) return null;
    if (buffer.resizable === true && isTypedArray(view)) {
      try {
        TypedArraySubarray.call(view, 0);
      } catch {
        return null;
      }
    }
  }
  return { base, length };
}
const TypedArraySubarray = Object.getPrototypeOf(Uint8Array.prototype).subarray;

function viewError(failure, info, length, base, offset, count, countGiven = true) {
  const { itemSize, name } = info;
  const rest = length - offset;
  switch (failure) {
    case viewFailure.offset:
      return outOfRange('options.offset', `an integer from 0 to ${length} (the byte length)`, String(offset));
    case viewFailure.misaligned:
      return fail('ERR_DLPACK_MISALIGNED', 'options.offset',
        `a byte offset that puts the first element on a multiple of ${itemSize} (the ${name} size)`,
        base === 0 ? String(offset) : `${offset} (at byte ${base + offset} of the buffer)`);
    case viewFailure.remainder:
      if (!countGiven) {
        // Name what the caller passed: the source's length, not a count it never gave.
        return outOfRange('source', `a byte length whose ${rest} bytes after the offset are a whole number of ` +
          `${name} elements (${itemSize} bytes each), or options.count`, `${length} bytes`);
      }
      return outOfRange('options.count',
        `-1 only when the ${rest} bytes after the offset are a whole number of ${name} elements (${itemSize} bytes each)`,
        String(count));
    default: // viewFailure.count
      return outOfRange('options.count',
        `-1 or a count whose ${itemSize}-byte elements fit in the ${rest} bytes after the offset`,
        String(count));
  }
}

function allocateTensor(shapeValue, options, zeroed) {
  const { dtype = 'float32', device, shared = false } = checkOptions(options, CREATE_KEYS);
  const info = dtypeInfo(dtype, 'options.dtype');
  const target = parseDevice(device, 'options.device');
  if (typeof shared !== 'boolean') throw invalidType('options.shared', 'a boolean', shared);
  if (shared && target.type !== 'cpu' && target.type !== 'cuda') {
    throw invalidValue('options.shared', `false for a tensor on ${target} (CUDA IPC shares device memory only)`,
      shared);
  }
  const shape = normalizeShape(shapeValue);
  const nbytes = product(shape) * info.itemSize;
  if (!Number.isSafeInteger(nbytes)) {
    // Native allocators take the size as an integer; this many bytes exist nowhere anyway.
    throw outOfRange('shape', 'a tensor of at most 2^53 - 1 bytes', `${nbytes} bytes`);
  }
  let storage;
  if (target.type !== 'cpu') storage = cudaStorage(target, nbytes, { shareable: shared, zeroed });
  else storage = shared ? sharedStorage(nbytes) : Storage.allocate(nbytes);
  return makeTensor(storage, Layout.contiguous(info, shape));
}

// Host memory is zeroed either way: JavaScript cannot hand out uninitialised
// ArrayBuffers without leaking other data, and fresh pages cost nothing.
// CUDA device memory from empty() is not (torch.empty's contract; JS cannot
// read it without a copy), which saves a memset launch per allocation.
const empty = (shape, options) => allocateTensor(shape, options, false);
const zeros = (shape, options) => allocateTensor(shape, options, true);

// torch.full: `shape` of fillValue, its dtype inferred as tensor() infers it
// (bool for a boolean, int64 for a bigint, else float32) unless given. The
// value is checked and converted before anything is allocated.
function full(shape, fillValue, options) {
  const { dtype, device, shared } = checkOptions(options, CREATE_KEYS);
  const info = dtype === undefined ? undefined : dtypeInfo(dtype, 'options.dtype');
  const one = scalarTensor(fillValue, info, 'fillValue');
  try {
    const t = allocateTensor(shape, { device, shared, dtype: one.dtype }, false);
    try {
      return fill(t, one);
    } catch (error) {
      t.dispose();
      throw error;
    }
  } finally {
    one.dispose();
  }
}

const ones = (shape, options) => full(shape, 1, { dtype: 'float32', ...checkOptions(options, CREATE_KEYS) });

// torch's *_like: input's shape, and its dtype and device unless the options
// give others. Row-major always (torch keeps a dense input's strides: a
// transposed input gives a transposed result there).
function likeOptions(input, options) {
  if (!(input instanceof Tensor)) throw invalidType('input', 'a Tensor', input);
  liveStorage(input);
  const { dtype, device, shared } = checkOptions(options, CREATE_KEYS);
  return {
    dtype: dtype === undefined ? input.dtype : dtype,
    device: device === undefined ? input.device : device,
    shared,
  };
}
const like = (make) => (input, options) => {
  const opts = likeOptions(input, options);
  return make(input.shape, opts);
};
const emptyLike = like(empty);
const zerosLike = like(zeros);
const onesLike = like(ones);
function fullLike(input, fillValue, options) {
  const opts = likeOptions(input, options);
  return full(input.shape, fillValue, opts);
}

// One value as a 0-d host tensor of info's dtype (inferred by tensor()'s
// rules when info is undefined): full()'s and fill_()'s source. A number,
// bigint or boolean; for a complex dtype also an [re, im] pair. It must
// convert without overflow (lib/scalars.js checkedValue: torch's rule for
// full and fill_), and is stored as that conversion gives it (-1 into uint8
// is 255, 2.5 into int32 is 2).
function scalarTensor(value, info, where) {
  const complex = info !== undefined && info.viewLanes === 2;
  if (!isScalar(value) && !(complex && Array.isArray(value) && value.length === 2)) {
    throw invalidType(where, complex ? 'a number, bigint, boolean or [re, im] pair' : 'a number, bigint or boolean',
      value);
  }
  const target = info || inferredDType([value]);
  const element = scalars.elementValue(scalars.checkedValue(value, target, where), target);
  return build(element, { dtype: target.name, shape: [] }, where);
}

// Every element of t from the 0-d host tensor `one`, through copyFrom() of one
// broadcast to t's shape (so t's rules hold: readOnly, expanded views, `{ async }`).
// A CUDA tensor gets the one element on its device first, so the broadcast
// copy runs there.
function fill(t, one, options) {
  const source = t.device.hostAccessible ? one : one.to(t.device);
  const broadcast = source.expand(t.shape);
  try {
    return t.copyFrom(broadcast, options);
  } finally {
    broadcast.dispose();
    if (source !== one) source.dispose();
  }
}

// torch.arange: arange(end), arange(start, end), arange(start, end, step), and
// an options object last ({ dtype, device }). Values start + i * step for i
// below ceil((end - start) / step). The dtype is int64 when every bound is a
// bigint (computed exactly), else float32 (a JS number does not say whether it
// was written as an integer: tensor()'s rule), unless given. Each value is
// computed in double and rounded once to the dtype. An integer dtype takes
// integer bounds only (torch truncates fractional ones, for int64 before sizing
// the result and for the other integer dtypes after), and every value in its
// range; bool and complex are refused, as torch refuses them.
function arange(...args) {
  let options;
  if (args.length > 1 && args[args.length - 1] !== null && typeof args[args.length - 1] === 'object') {
    options = args.pop();
  }
  const { dtype, device: deviceOption } = checkOptions(options, ARANGE_KEYS);
  if (args.length < 1 || args.length > 3) {
    throw fail('ERR_INVALID_ARG_VALUE', 'arguments', '(end), (start, end) or (start, end, step)',
      `${args.length} bounds`);
  }
  const names = args.length === 1 ? ['end'] : ['start', 'end', 'step'].slice(0, args.length);
  for (let i = 0; i < args.length; i++) {
    const v = args[i];
    if (typeof v !== 'number' && typeof v !== 'bigint') throw invalidType(names[i], 'a number or bigint', v);
    if (typeof v === 'number' && !Number.isFinite(v)) throw outOfRange(names[i], 'a finite number', String(v));
  }
  const exact = args.every((v) => typeof v === 'bigint');
  const one = exact ? 1n : 1;
  const [start, end, step] = args.length === 1 ? [exact ? 0n : 0, args[0], one] : [args[0], args[1], args[2] ?? one];
  const info = dtype === undefined ? (exact ? infos.int64 : infos.float32) : dtypeInfo(dtype, 'options.dtype');
  const device = parseDevice(deviceOption, 'options.device');
  if (info.kind === 'bool' || info.kind === 'complex') {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `arange() makes no ${info.name} tensor (torch has none either)`);
  }
  const num = (v) => (typeof v === 'bigint' ? Number(v) : v);
  if (num(step) === 0) throw outOfRange('step', 'a nonzero number', String(step));
  if (num(end) !== num(start) && (num(end) > num(start)) !== (num(step) > 0)) {
    throw outOfRange('step', `a step of the sign of end - start (from ${start} to ${end})`, String(step));
  }
  // The element count, exactly for bigints.
  let count;
  if (exact) {
    const span = end - start;
    const q = span / step;
    count = Number(q * step === span ? q : q + 1n);
  } else {
    count = Math.max(0, Math.ceil((num(end) - num(start)) / num(step)));
  }
  if (!Number.isSafeInteger(count * info.itemSize)) {
    throw outOfRange('end', 'bounds that give at most 2^53 - 1 bytes', `${count} elements`);
  }
  const integer = isInteger(info);
  if (integer && !exact) {
    for (const [name, v] of [['start', start], ['end', end], ['step', step]]) {
      if (!Number.isInteger(num(v))) throw outOfRange(name, `an integer for a ${info.name} tensor`, String(v));
    }
  }
  const valueAt = exact ? (i) => start + BigInt(i) * step : (i) => num(start) + i * num(step);
  if (integer && count > 0) {
    // Monotonic: with both ends in range, every value is.
    integerValue(valueAt(0), info.name, 'start');
    integerValue(valueAt(count - 1), info.name, 'end');
  }
  // float16 and bfloat16 are written as float64 and converted natively.
  const written = info.name === 'float16' || info.name === 'bfloat16' ? infos.float64 : info;
  const host = allocateTensor([count], { dtype: written.name }, false);
  const view = new written.View(host.buffer);
  // A 64-bit integer view takes bigints, every other a number (the values of
  // an integer dtype are integers: checked above).
  const asElement = written.name === 'int64' || written.name === 'uint64' ? BigInt : Number;
  for (let i = 0; i < count; i++) view[i] = asElement(valueAt(i));
  if (written === info && device.type === 'cpu') return host;
  try {
    return host.to({ dtype: info.name, device });
  } finally {
    host.dispose();
  }
}

// dl.tensor(values, { dtype, shape, device }): copies values into new memory.
function tensor(values, options) {
  return build(values, options, 'values');
}

// dl.tensor(), with `where` naming the values in messages (copyFrom's `src`).
function build(values, options, where) {
  const { dtype, shape: shapeOption, device } = checkOptions(options, TENSOR_KEYS);
  const target = parseDevice(device, 'options.device');
  if (target.type !== 'cpu') {
    // Built on the CPU, then copied over.
    const host = build(values, { dtype, shape: shapeOption }, where);
    const moved = host.to(target);
    host.dispose();
    return moved;
  }
  let info = dtype === undefined ? undefined : dtypeInfo(dtype, 'options.dtype');

  let flat;
  let shape;
  if (posesAsBuffer(values) && !isTypedArray(values) && !isAnyArrayBuffer(values) && !isDataView(values)) {
    throw fail('ERR_INVALID_ARG_TYPE', where, 'a typed array, array or iterable',
      `an object that inherits from ${values.constructor && values.constructor.name} but is not one`);
  }
  if (isTypedArray(values)) {
    const implied = dtypeOfView(values);
    // A fresh view over the same bytes, so neither own properties nor an
    // overridden iterator change what is read.
    const { buffer, byteOffset } = viewParts(values);
    const count = typedArrayLength(values);
    const clean = new implied.View(buffer, byteOffset, count);
    info = info || implied;
    shape = [count];
    if (info === implied) {
      if (shapeOption !== undefined) shape = requestedShape(shapeOption, count, where);
      const t = allocateTensor(shape, { dtype: info.name });
      new Uint8Array(t.buffer).set(new Uint8Array(buffer, byteOffset, count * implied.itemSize));
      return t;
    }
    flat = Array.from(clean);
  } else if (isAnyArrayBuffer(values) || isDataView(values)) {
    throw invalidType(where, 'a typed array, array or iterable (use dl.fromBuffer for raw bytes)', values);
  } else {
    ({ flat, shape } = flatten(values, info !== undefined && info.viewLanes === 2, where));
    info = info || inferredDType(flat);
  }
  if (shapeOption !== undefined) shape = requestedShape(shapeOption, flat.length, where);
  if (isInteger(info)) {
    // Every value is checked before any is written (lib/convert.js).
    const name = info.name;
    const at = (i) => (shape.length === 0 ? where : `${where} (element ${i})`);
    for (let i = 0; i < flat.length; i++) flat[i] = integerValue(flat[i], name, at(i));
  }
  const t = allocateTensor(shape, { dtype: info.name });
  const view = new info.View(t.buffer);
  const write = info.write;
  for (let i = 0; i < flat.length; i++) {
    const v = flat[i];
    try {
      write(view, i, v);
    } catch (error) {
      if (!(error instanceof RangeError || error instanceof TypeError || error instanceof SyntaxError)) throw error;
      throw invalidValue(`${where} (element ${i})`, `a value convertible to ${info.name}`, v);
    }
  }
  return t;
}

// torch.tensor's inference where JavaScript keeps the distinction: all booleans are bool,
// bigints (with or without booleans) int64; anything else float32, since a JS number does
// not say whether it was written as an integer (torch.tensor([1, 2]) is int64).
function inferredDType(flat) {
  if (flat.length === 0) return infos.float32;
  let bigints = 0;
  for (const v of flat) {
    if (typeof v === 'bigint') bigints++;
    else if (typeof v !== 'boolean') return infos.float32;
  }
  return bigints > 0 ? infos.int64 : infos.bool;
}

// copyFrom(values): the values as a tensor of the destination's dtype and
// shape, with `where` naming them in messages.
const valuesFrom = (values, info, shape, where) => build(values, { dtype: info.name, shape: shape.slice() }, where);

// tensor()'s `shape` option for `count` values.
function requestedShape(value, count, where) {
  const requested = normalizeShape(value, 'options.shape');
  if (product(requested) !== count && where !== 'values') {
    throw fail('ERR_INVALID_ARG_VALUE', where, `${product(requested)} values (a tensor of shape ` +
      `[${requested.join(', ')}])`, `${count} value${count === 1 ? '' : 's'}`);
  }
  if (product(requested) !== count) {
    throw outOfRange('options.shape', `a shape whose product is ${count} (the number of values)`,
      `[${requested.join(', ')}]`);
  }
  return requested;
}

const isScalar = (v) => typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';

// Nested arrays or iterables -> row-major values and the shape. For complex
// dtypes an innermost [re, im] pair is one element.
function flatten(values, complex, where) {
  const isPair = (v) => complex && Array.isArray(v) && v.length === 2 && isScalar(v[0]) && isScalar(v[1]);
  const isLeaf = (v) => isScalar(v) || isPair(v);
  // Iterables are read once, into arrays, before the shape is inferred.
  const materialize = (v, where, depth) => {
    if (isLeaf(v)) return v;
    if (depth > 64) throw outOfRange(where, 'at most 64 levels of nesting', 'more');
    let items;
    if (Array.isArray(v)) items = v;
    else if (v !== null && typeof v === 'object' && typeof v[Symbol.iterator] === 'function') items = Array.from(v);
    else throw invalidValue(where, 'a number, bigint, boolean, array or iterable', v);
    const out = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      // A hole (`new Array(3)`, `[, 1]`) is no value; map() would skip it.
      if (!(i in items)) {
        throw fail('ERR_INVALID_ARG_VALUE', `${where}[${i}]`, 'a number, bigint, boolean, array or iterable',
          'a hole (a sparse array)');
      }
      out[i] = materialize(items[i], `${where}[${i}]`, depth + 1);
    }
    return out;
  };
  const root = materialize(values, where, 0);
  if (isLeaf(root)) return { flat: [root], shape: [] };
  const shape = [];
  for (let level = root; ; level = level[0]) {
    shape.push(level.length);
    if (level.length === 0 || isLeaf(level[0])) break;
  }
  const flat = [];
  const walk = (v, dim, where) => {
    if (dim === shape.length) {
      if (!isLeaf(v)) throw invalidValue(where, 'a number, bigint or boolean', v);
      flat.push(v);
      return;
    }
    if (isLeaf(v) || v.length !== shape[dim]) {
      throw invalidValue(where, `a nested array of shape [${shape.join(', ')}] (length ${shape[dim]} here)`, v);
    }
    for (let i = 0; i < v.length; i++) walk(v[i], dim + 1, `${where}[${i}]`);
  };
  walk(root, 0, where);
  return { flat, shape };
}

module.exports = {
  fromBuffer, empty, zeros, ones, full, arange, emptyLike, zerosLike, onesLike, fullLike, tensor, valuesFrom,
  scalarTensor, fill,
};
