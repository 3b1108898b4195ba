'use strict';
// The Tensor class (docs/API.md "Tensor"). Public methods are small forwarders;
// state lives under module-private symbols.
const { native } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { Device, parseDevice, cudaUnavailable, CPU } = require('./device');
const {
  isAvailable, cudaStorage, copyBytes, copyStream, onOneDevice, copyOnDevice, convertOnDevice,
} = require('./cuda');
const { product, contiguousStrides, isContiguous, extent } = require('./shape');
const { dtypeInfo, infos } = require('./dtypes');
const { copyElements } = require('./convert');
const { Storage } = require('./storage');
const { allocate, allocateForCopy } = require('./memory');
const {
  kToken, kStorage, kInfo, kShape, kStrides, kOffset, kLow, kHigh, kSize, kFlags, kView, kDevice,
  READ_ONLY, IS_COPY, DISPOSED,
} = require('./symbols');
const { formatTensor } = require('./format');
const views = require('./views');

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');
// Short: V8 cuts a long description out of the DataCloneError message.
const NOT_CLONEABLE = Symbol('a dlpack Tensor cannot be cloned: send tensor.share() and dl.open() it');

// The RangeError of toJSON() for a value JSON cannot hold exactly.
function notJson(t, value) {
  return outOfRange('toJSON()', 'values JSON holds exactly (finite numbers, integers within 2^53)',
    `${typeof value === 'bigint' ? `${value}n` : value} in a ${t[kInfo].name} tensor; use share() or toArray()`);
}
// What the layers above provide (lib/capsule.js, lib/sharing.js, lib/create.js
// build on this module); lib/index.js connects them once at load, so lib/
// stays a DAG without lazy requires (test/architecture.test.js).
const above = { toDLPack: null, share: null, valuesFrom: null };
function connect(layers) {
  Object.assign(above, layers);
}

class Tensor {
  // Internal: callers pass the element count and byte extent they already
  // know (makeTensor computes them), so creation does no shape arithmetic.
  constructor(token, storage, info, shape, strides, byteOffset, flags, size, low, high, device) {
    if (token !== kToken) {
      throw makeError('ERR_ILLEGAL_CONSTRUCTOR', 'Tensors are made by dl.fromBuffer, dl.empty, dl.zeros, ' +
        'dl.tensor or dl.fromDLPack, not by `new Tensor()`');
    }
    storage.holders++;
    this[kStorage] = storage;
    this[kInfo] = info;
    this[kShape] = shape; // never mutated; frozen when first handed out
    this[kStrides] = strides;
    this[kOffset] = byteOffset;
    this[kLow] = low;
    this[kHigh] = high;
    this[kSize] = size;
    this[kFlags] = flags;
    this[kView] = null;
    this[kDevice] = device;
    // The one string-keyed field: structured clone (postMessage, structuredClone)
    // copies string keys only, and a symbol value makes it throw DataCloneError
    // with the advice below instead of sending an empty object.
    this.dlpack = NOT_CLONEABLE;
  }

  get dtype() { return this[kInfo].name; }
  get shape() { return frozen(this[kShape]); }
  get strides() { return frozen(this[kStrides]); }
  get ndim() { return this[kShape].length; }
  get size() { return this[kSize]; }
  get itemSize() { return this[kInfo].itemSize; }
  get nbytes() { return this[kSize] * this[kInfo].itemSize; }
  get byteOffset() { return this[kOffset]; }
  get device() { return this[kDevice]; }
  get readOnly() { return (this[kFlags] & READ_ONLY) !== 0; }
  get isCopy() { return (this[kFlags] & IS_COPY) !== 0; }
  get disposed() { return (this[kFlags] & DISPOSED) !== 0; }
  get isContiguous() { return isContiguous(this[kShape], this[kStrides]); }

  get data() {
    hostStorage(this, 'data');
    if (!this.isContiguous) {
      throw makeError('ERR_DLPACK_NOT_CONTIGUOUS',
        'Expected a contiguous tensor for `data`, received strides ' +
        `[${this[kStrides].join(', ')}] for shape [${this[kShape].join(', ')}]; call contiguous() first`);
    }
    const info = this[kInfo];
    const length = this[kSize] * info.viewLanes;
    let view = this[kView];
    if (view === null || (this[kStorage].memory !== null && view.buffer !== this[kStorage].memory.buffer)) {
      // First use, or a WebAssembly memory grew and replaced its buffer.
      const buffer = checkedBuffer(this);
      view = new info.View(buffer, this[kOffset] - this[kLow], length);
      this[kView] = view;
    } else if (view.length !== length) {
      throw detached();
    }
    return view;
  }

  get buffer() {
    hostStorage(this, 'buffer');
    return this[kStorage].getBuffer();
  }

  // torch's reshape: a view when strides can describe the new shape, else a
  // contiguous copy. `reshape([2, 3])` and `reshape(2, 3)` are the same.
  reshape(...args) {
    const storage = alive(this);
    const target = views.inferShape(views.listArgs(args, 'reshape()', 'shape'), this[kSize]);
    if (this.isContiguous) {
      return makeTensor(storage, this[kInfo], target, contiguousStrides(target), this[kOffset],
        this[kFlags] & (READ_ONLY | IS_COPY), this[kDevice]);
    }
    const strides = views.viewStrides(this[kShape], this[kStrides], target);
    if (strides !== null) return viewOf(this, target, strides, 0);
    return copyAs(this, target);
  }

  // view(dtype) reinterprets the bytes; view(shape) is reshape() that never
  // copies (torch's Tensor.view).
  view(...args) {
    const storage = alive(this);
    if (args.length >= 1 && (typeof args[0] === 'string' || (args[0] !== null && typeof args[0] === 'object' &&
        !Array.isArray(args[0])))) {
      views.maxArgs(args, 1, 'view(dtype)');
      const to = dtypeInfo(args[0], 'dtype');
      const v = views.reinterpret(this[kShape], this[kStrides], this[kOffset], this[kInfo], to);
      return makeTensor(storage, to, v.shape, v.strides, this[kOffset], this[kFlags] & (READ_ONLY | IS_COPY),
        this[kDevice]);
    }
    const target = views.inferShape(views.listArgs(args, 'view()', 'shape'), this[kSize]);
    const strides = views.viewStrides(this[kShape], this[kStrides], target);
    if (strides === null) {
      throw makeError('ERR_DLPACK_NOT_CONTIGUOUS', `Expected strides that can describe shape [${target.join(', ')}] ` +
        `for view(), received strides [${this[kStrides].join(', ')}] for shape [${this[kShape].join(', ')}]; ` +
        'use reshape(), which copies');
    }
    return viewOf(this, target, strides, 0);
  }

  permute(...dims) {
    alive(this);
    return fromLayout(this, views.permute(this[kShape], this[kStrides], views.listArgs(dims, 'permute()', 'dims')));
  }

  transpose(dim0, dim1, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'transpose()');
    return fromLayout(this, views.transpose(this[kShape], this[kStrides], dim0, dim1));
  }

  narrow(dim, start, length, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 3, 'narrow()');
    return fromLayout(this, views.narrow(this[kShape], this[kStrides], dim, start, length));
  }

  select(dim, index, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'select()');
    return fromLayout(this, views.select(this[kShape], this[kStrides], dim, index));
  }

  slice(dim, start, end, step, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 4, 'slice()');
    return fromLayout(this, views.slice(this[kShape], this[kStrides], dim, start, end, step));
  }

  squeeze(...args) {
    alive(this);
    views.maxArgs(args, 1, 'squeeze()');
    return fromLayout(this, views.squeeze(this[kShape], this[kStrides], args[0]));
  }

  unsqueeze(dim, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 1, 'unsqueeze()');
    return fromLayout(this, views.unsqueeze(this[kShape], this[kStrides], dim));
  }

  // A view when the flattened dims can share one stride, else a copy
  // (torch's flatten, which is reshape).
  flatten(startDim = 0, endDim = -1, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'flatten()');
    const target = views.flattenShape(this[kShape], startDim, endDim);
    return this.reshape(target);
  }

  expand(...sizes) {
    alive(this);
    return fromLayout(this, views.expand(this[kShape], this[kStrides], views.listArgs(sizes, 'expand()', 'sizes')));
  }

  // torch's as_strided, with the offset in bytes from the start of the
  // storage (byteOffset's unit), bounds-checked against the storage.
  asStrided(shape, strides, byteOffset = undefined, ...rest) {
    const storage = alive(this);
    if (rest.length !== 0) views.tooMany(rest, 3, 'asStrided()');
    const layout = views.stridedLayout(shape, strides);
    const info = this[kInfo];
    const offset = byteOffset === undefined ? this[kOffset] : views.integer(byteOffset, 'byteOffset');
    if (offset % info.itemSize !== 0 || offset < 0) {
      throw makeError(offset < 0 ? 'ERR_OUT_OF_RANGE' : 'ERR_DLPACK_MISALIGNED',
        `Expected a non-negative multiple of ${info.itemSize} (the ${info.name} size) for \`byteOffset\`, ` +
        `received ${offset}`);
    }
    const { low, high } = extent(layout.shape, layout.strides, info.itemSize);
    const length = storageLength(storage);
    if (product(layout.shape) !== 0 && (offset - low < 0 || offset + high > length)) {
      throw outOfRange('strides', `a layout inside the storage's ${length} bytes`,
        `one spanning bytes ${offset - low} to ${offset + high}`);
    }
    return makeTensor(storage, info, layout.shape, layout.strides, offset, this[kFlags] & (READ_ONLY | IS_COPY),
      this[kDevice]);
  }

  contiguous(...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 0, 'contiguous()');
    return this.isContiguous ? this : this.clone();
  }

  clone(options = undefined, ...rest) {
    if (rest.length !== 0) views.tooMany(rest, 1, 'clone()');
    const stream = streamOption(options);
    if (!alive(this) || !this[kDevice].hostAccessible) return transfer(this, this[kDevice], stream);
    return convertOnHost(this, this[kInfo]);
  }

  // Into any view, from a tensor of the same shape (any dtype, converted by
  // the rules of lib/convert.js) or from values dl.tensor() takes.
  copyFrom(src, options = undefined, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'copyFrom()');
    const stream = streamOption(options);
    if (this[kFlags] & READ_ONLY) {
      throw makeError('ERR_DLPACK_READ_ONLY', 'Expected a writable tensor for copyFrom(), received a readOnly one');
    }
    let temporary = null;
    if (!(src instanceof Tensor)) {
      temporary = above.valuesFrom(src, this[kInfo], this[kShape], 'src');
      src = temporary;
    }
    try {
      alive(src);
      if (src[kShape].length !== this[kShape].length || src[kShape].some((d, i) => d !== this[kShape][i])) {
        throw fail('ERR_INVALID_ARG_VALUE', 'src', `a tensor of shape [${this[kShape].join(', ')}]`,
          `one of shape [${src[kShape].join(', ')}]`);
      }
      if (this[kSize] === 0) return this;
      if (!this[kDevice].hostAccessible || !src[kDevice].hostAccessible) {
        return copyAcrossDevices(this, src, stream);
      }
      checkedBuffer(this);
      checkedBuffer(src);
      copyElements(this, src);
    } finally {
      if (temporary !== null) temporary.dispose();
    }
    return this;
  }

  // t.to(dtype), t.to(device[, { stream }]), t.to({ dtype, device, stream }):
  // `this` when nothing changes (torch), else a new contiguous tensor. Dtype
  // names and device names never collide ('float32' vs 'cpu', 'cuda:0').
  to(target, options = undefined, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'to()');
    let dtype;
    let device;
    if (target !== null && typeof target === 'object' && !Array.isArray(target) && !(target instanceof Device) &&
        !isDtype(target)) {
      if (options !== undefined) {
        throw invalidValue('options', 'undefined when the first argument is an options object', options);
      }
      checkKeys(target, TO_KEYS, 'options');
      ({ dtype, device } = target);
      options = target;
    } else if (isDtype(target)) {
      dtype = target;
    } else {
      device = target;
    }
    const stream = options === target ? copyStream(target.stream) : streamOption(options);
    const info = dtype === undefined ? this[kInfo] : dtypeInfo(dtype, 'dtype');
    const place = device === undefined ? this[kDevice] : parseDevice(device);
    if (info === this[kInfo]) return moveTo(this, place, stream);
    if (this[kDevice].hostAccessible) return moveOwned(convertOnHost(this, info), place, stream);
    // A CUDA tensor is converted by a kernel on its own device (docs/API.md "Conversion").
    if (!isAvailable()) throw cudaUnavailable(`a conversion on ${this[kDevice]}`);
    const shape = this[kShape].slice();
    const out = makeTensor(cudaStorage(this[kDevice], this[kSize] * info.itemSize), info, shape,
      contiguousStrides(shape), 0, 0, this[kDevice]);
    try {
      if (this[kSize] !== 0) convertOnDevice(out, this, stream);
    } catch (error) {
      out.dispose();
      throw error;
    }
    return moveOwned(out, place, stream);
  }

  // The one element of a 0-d or one-element tensor, as toArray() gives it.
  item(...rest) {
    hostStorage(this, 'item()');
    if (rest.length !== 0) views.tooMany(rest, 0, 'item()');
    if (this[kSize] !== 1) {
      throw makeError('ERR_INVALID_ARG_VALUE', 'Expected a tensor with one element for item(), received a ' +
        `tensor of shape [${this[kShape].join(', ')}]`);
    }
    checkedBuffer(this);
    const { view, origin } = elementView(this);
    return this[kInfo].read(view, origin);
  }

  cpu(...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 0, 'cpu()');
    return this.to(CPU);
  }

  cuda(index = 0, ...rest) {
    alive(this);
    if (rest.length !== 0) views.tooMany(rest, 1, 'cuda()');
    if (views.integer(index, 'index') < 0) throw outOfRange('index', 'a non-negative integer', String(index));
    return this.to(`cuda:${index}`);
  }

  // JSON.stringify(t): { dtype, shape, data } with `data` flat in row-major
  // order, so that dl.tensor(data, { dtype, shape }) gives the values back.
  // Exact or not at all: JSON has no NaN, Infinity or 64-bit integers.
  toJSON() {
    hostStorage(this, 'toJSON()');
    checkedBuffer(this);
    const { view, origin } = elementView(this);
    const read = this[kInfo].read;
    const shape = this[kShape];
    const strides = this[kStrides];
    const data = [];
    const exact = (value) => {
      if (typeof value === 'bigint') {
        if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) throw notJson(this, value);
        return Number(value);
      }
      if (typeof value === 'number' && !Number.isFinite(value)) throw notJson(this, value);
      return value;
    };
    const walk = (dim, pos) => {
      if (dim === shape.length) {
        const value = read(view, pos);
        data.push(Array.isArray(value) ? value.map(exact) : exact(value));
        return;
      }
      for (let i = 0; i < shape[dim]; i++) walk(dim + 1, pos + i * strides[dim]);
    };
    if (this[kSize] !== 0) walk(0, origin);
    return { dtype: this[kInfo].name, shape: shape.slice(), data };
  }

  toArray(...rest) {
    hostStorage(this, 'toArray()');
    if (rest.length !== 0) views.tooMany(rest, 0, 'toArray()');
    checkedBuffer(this);
    const { view, origin } = elementView(this);
    const read = this[kInfo].read;
    const shape = this[kShape];
    const strides = this[kStrides];
    const nest = (dim, pos) => {
      if (dim === shape.length) return read(view, pos);
      const out = new Array(shape[dim]);
      for (let i = 0; i < shape[dim]; i++) out[i] = nest(dim + 1, pos + i * strides[dim]);
      return out;
    };
    return nest(0, origin);
  }

  toString() {
    if (!(this instanceof Tensor)) throw invalidType('this', 'a Tensor', this);
    if (this[kFlags] & DISPOSED) return `tensor(<disposed>, dtype=${this[kInfo].name})`;
    if (!this[kDevice].hostAccessible || this[kStorage].released) {
      return `tensor(<${this[kShape].join('x') || 'scalar'} on ${this[kDevice]}>, dtype=${this[kInfo].name})`;
    }
    let body;
    try {
      checkedBuffer(this);
      const { view, origin } = elementView(this);
      body = formatTensor(this[kShape], this[kStrides], origin, (i) => this[kInfo].read(view, i),
        FLOATS.has(this[kInfo].name));
    } catch (error) {
      if (error.code !== 'ERR_DLPACK_DETACHED') throw error;
      body = '<detached>';
    }
    const device = this[kDevice] === CPU ? '' : `, device='${this[kDevice]}'`;
    return `tensor(${body}${device}, dtype=${this[kInfo].name})`;
  }

  [inspectSymbol]() {
    return Tensor.prototype.toString.call(this);
  }

  dispose() {
    if (!(this instanceof Tensor)) throw invalidType('this', 'a Tensor', this);
    if (this[kFlags] & DISPOSED) return;
    this[kFlags] |= DISPOSED;
    this[kView] = null;
    const storage = this[kStorage];
    this[kStorage] = null;
    storage.release();
  }

  [Symbol.dispose]() {
    Tensor.prototype.dispose.call(this);
  }

  __dlpack__(options = undefined) {
    if (!(this instanceof Tensor)) throw invalidType('this', 'a Tensor', this);
    return above.toDLPack(this, options);
  }

  share() {
    return above.share(this);
  }

  __dlpack_device__() {
    alive(this);
    const device = this[kDevice];
    return [device.code, device.index];
  }
}

// t's elements, row-major and contiguous, as { storage, offset } (t itself
// when it is contiguous). A strided tensor is gathered on the host: host
// memory directly, device memory after downloading the bytes it spans.
function contiguousSource(t) {
  if (t.isContiguous) return { storage: t[kStorage], offset: t[kOffset], temporary: null };
  if (t[kDevice].hostAccessible) {
    const c = t.clone();
    return { storage: c[kStorage], offset: 0, temporary: c };
  }
  const span = t[kLow] + t[kHigh];
  const staged = new Storage(allocate(span), true);
  copyBytes(staged, 0, t[kStorage], t[kOffset] - t[kLow], span);
  const view = makeTensor(staged, t[kInfo], t[kShape], t[kStrides], t[kLow], 0, CPU);
  const c = view.clone();
  view.dispose();
  return { storage: c[kStorage], offset: 0, temporary: c };
}

// The `stream` of a copy's options (docs/API.md "CUDA": on a stream, copies
// between CUDA memory this library allocated return at once).
function streamOption(options) {
  if (options === undefined) return 1n;
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  checkKeys(options, STREAM_KEYS, 'options');
  return copyStream(options.stream);
}

// A contiguous copy of t on `target` (any devices; CUDA must be usable),
// enqueued on `stream` where copyBytes can.
function transfer(t, target, stream = 1n) {
  if (!isAvailable()) throw cudaUnavailable(`a copy from ${t[kDevice]} to ${target}`);
  const shape = t[kShape].slice();
  const nbytes = t[kSize] * t[kInfo].itemSize;
  if (target === t[kDevice] && target.type === 'cuda') {
    // clone()/contiguous() on the device: a kernel, not through the host.
    const out = makeTensor(cudaStorage(target, nbytes), t[kInfo], shape, contiguousStrides(shape), 0, 0, target);
    copyOnDevice(out, t, stream);
    return out;
  }
  const storage = target === CPU ? new Storage(allocate(nbytes), true) : cudaStorage(target, nbytes);
  const source = contiguousSource(t);
  try {
    copyBytes(storage, 0, source.storage, source.offset, nbytes, stream);
  } finally {
    if (source.temporary !== null) source.temporary.dispose();
  }
  return makeTensor(storage, t[kInfo], shape, contiguousStrides(shape), 0, 0, target);
}

// copyFrom() where either side is CUDA memory. On one CUDA device: kernels
// there, any strides and dtypes. Across devices: the destination must be
// contiguous, and other dtypes are converted on the host first.
function copyAcrossDevices(dst, src, stream = 1n) {
  if (!isAvailable()) throw cudaUnavailable(`copyFrom() between ${src[kDevice]} and ${dst[kDevice]}`);
  if (onOneDevice(dst, src)) {
    // Kernels on the device, any strides; memory the destination shares is
    // copied out first, as on the host.
    const from = src[kStorage] === dst[kStorage] ? transfer(src, src[kDevice]) : src;
    try {
      if (from[kInfo] === dst[kInfo]) copyOnDevice(dst, from, stream);
      else convertOnDevice(dst, from, stream);
    } finally {
      if (from !== src) from.dispose();
    }
    return dst;
  }
  if (!dst.isContiguous) {
    throw makeError('ERR_DLPACK_NOT_CONTIGUOUS',
      `Expected a contiguous destination for copyFrom() on ${dst[kDevice]}, received a strided view`);
  }
  let from = src;
  if (src[kInfo] !== dst[kInfo]) {
    const host = src[kDevice].hostAccessible ? src : transfer(src, CPU);
    from = convertOnHost(host, dst[kInfo]);
    if (host !== src) host.dispose();
  }
  const source = contiguousSource(from);
  try {
    copyBytes(dst[kStorage], dst[kOffset], source.storage, source.offset, dst[kSize] * dst[kInfo].itemSize,
      stream);
  } finally {
    if (source.temporary !== null) source.temporary.dispose();
    if (from !== src) from.dispose();
  }
  return dst;
}

// A new contiguous CPU tensor with t's elements as `info` (t host-accessible).
function convertOnHost(t, info) {
  const shape = t[kShape].slice();
  const strides = contiguousStrides(shape);
  // Every byte of `out` is written below (or `out` is dropped unseen), so it
  // may reuse memory a disposed tensor left (lib/memory.js).
  const out = makeTensor(new Storage(allocateForCopy(t[kSize] * info.itemSize), true, CPU), info, shape, strides,
    0, 0, CPU);
  if (t[kSize] !== 0) {
    checkedBuffer(t);
    copyElements(out, t);
  }
  return out;
}

// t on `place`: t itself when it is there already.
function moveTo(t, place, stream = 1n) {
  if (place === t[kDevice]) return t;
  // Host-accessible memory to the CPU is a plain host copy.
  if (place === CPU && t[kDevice].hostAccessible) return t.clone();
  return transfer(t, place, stream);
}

// A tensor this module just made, moved to `place` (the original disposed,
// stream-ordered after the copy where the copy was enqueued).
function moveOwned(t, place, stream = 1n) {
  if (place === t[kDevice]) return t;
  const moved = transfer(t, place, stream);
  t.dispose();
  return moved;
}

const isDtype = (v) => (typeof v === 'string' && infos[v] !== undefined) ||
  (v !== null && typeof v === 'object' && typeof v.name === 'string' && infos[v.name] !== undefined &&
   infos[v.name].public === v);
const TO_KEYS = ['dtype', 'device', 'stream'];
const FLOATS = new Set(['float16', 'bfloat16', 'float32', 'float64']);
const STREAM_KEYS = ['stream'];

// Options objects name only keys the method reads.
function checkKeys(options, keys, name) {
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      throw invalidValue(`${name}.${key}`, `one of the keys ${keys.join(', ')}`, options[key]);
    }
  }
}

// A view of t: same storage, dtype, flags and device.
function viewOf(t, shape, strides, delta) {
  return makeTensor(t[kStorage], t[kInfo], shape, strides, t[kOffset] + delta * t[kInfo].itemSize,
    t[kFlags] & (READ_ONLY | IS_COPY), t[kDevice]);
}

const fromLayout = (t, v) => viewOf(t, v.shape, v.strides, v.delta);

// A contiguous copy of t with another shape of the same size.
function copyAs(t, shape) {
  const c = t.clone();
  const out = makeTensor(c[kStorage], c[kInfo], shape, contiguousStrides(shape), c[kOffset], 0, c[kDevice]);
  c.dispose();
  return out;
}

// Bytes the storage holds (what asStrided may address).
function storageLength(storage) {
  return storage.foreign ? native.storageLength(storage.handle) : storage.getBuffer().byteLength;
}

function detached() {
  return makeError('ERR_DLPACK_DETACHED',
    'Expected the tensor\'s buffer to still hold its bytes, but it was detached or shrunk');
}

function alive(t) {
  if (!(t instanceof Tensor)) throw invalidType('this', 'a Tensor', t);
  if (t[kFlags] & DISPOSED) {
    throw makeError('ERR_DLPACK_DISPOSED', `Expected a live tensor, received a disposed ${t[kInfo].name} tensor`);
  }
  return t[kStorage];
}

function hostStorage(t, what) {
  const storage = alive(t);
  if (!t[kDevice].hostAccessible) {
    throw makeError('ERR_DLPACK_WRONG_DEVICE',
      `Expected a CPU-accessible tensor for \`${what}\`, received one on ${t[kDevice]}`);
  }
  return storage;
}

// The buffer, after checking it still covers the tensor (detach, shrink).
function checkedBuffer(t) {
  return coveredBuffer(t[kStorage], t[kOffset], t[kLow], t[kHigh], t[kSize]);
}

// The storage's buffer, after checking that it still holds the `size`
// elements spanning [offset - low, offset + high).
function coveredBuffer(storage, offset, low, high, size) {
  const buffer = storage.getBuffer();
  if (size !== 0 && (offset - low < 0 || offset + high > buffer.byteLength)) throw detached();
  return buffer;
}

// A typed view over the whole extent, and the element index of element 0.
function elementView(t) {
  const info = t[kInfo];
  const buffer = checkedBuffer(t);
  if (t[kSize] === 0) return { view: new info.View(0), origin: 0 };
  const start = t[kOffset] - t[kLow];
  const elements = (t[kLow] + t[kHigh]) / info.itemSize;
  return { view: new info.View(buffer, start, elements * info.viewLanes), origin: t[kLow] / info.itemSize };
}

function makeTensor(storage, info, shape, strides, byteOffset, flags, device = storage.device) {
  const { low, high } = extent(shape, strides, info.itemSize);
  return new Tensor(kToken, storage, info, shape, strides, byteOffset, flags, product(shape), low, high, device);
}

// A contiguous 1-D or reshaped tensor over JS memory (fromBuffer's hot path).
function makeContiguous(storage, info, shape, strides, byteOffset, size) {
  return new Tensor(kToken, storage, info, shape, strides, byteOffset, 0, size, 0,
    size === 0 ? 0 : size * info.itemSize, storage.device);
}

function frozen(array) {
  return Object.isFrozen(array) ? array : Object.freeze(array);
}

module.exports = {
  Tensor, makeTensor, makeContiguous, alive, hostStorage, checkedBuffer, coveredBuffer, connect,
  checkKeys,
};
