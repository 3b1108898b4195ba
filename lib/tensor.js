'use strict';
// The Tensor class (API.md "Tensor"). Public methods are small forwarders;
// state lives under module-private symbols.
const { native, writeShape, slot, scratch } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { parseDevice, cudaUnavailable, CPU } = require('./device');
const {
  isAvailable, cudaStorage, copyBytes, copyStream, onOneDevice, copyOnDevice, convertOnDevice,
} = require('./cuda');
const { normalizeShape, product, contiguousStrides, isContiguous, extent } = require('./shape');
const { Storage } = require('./storage');
const {
  kToken, kStorage, kInfo, kShape, kStrides, kOffset, kLow, kHigh, kSize, kFlags, kView, kDevice,
  READ_ONLY, IS_COPY, DISPOSED,
} = require('./internal');
const { formatTensor } = require('./format');

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');
let dlpack = null; // lib/dlpack.js, which needs this module first
const protocol = () => dlpack || (dlpack = require('./dlpack'));
let sharingModule = null; // lib/sharing.js, which needs this module first
const sharing = () => sharingModule || (sharingModule = require('./sharing'));

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

  reshape(shape) {
    const storage = alive(this);
    const info = this[kInfo];
    const target = inferShape(shape, this[kSize]);
    if (!this.isContiguous) {
      throw makeError('ERR_DLPACK_NOT_CONTIGUOUS',
        'Expected a contiguous tensor for reshape(), received a strided view; call contiguous() first');
    }
    return makeTensor(storage, info, target, contiguousStrides(target), this[kOffset],
      this[kFlags] & (READ_ONLY | IS_COPY), this[kDevice]);
  }

  contiguous() {
    alive(this);
    return this.isContiguous ? this : this.clone();
  }

  clone(options = undefined) {
    const stream = streamOption(options);
    if (!alive(this) || !this[kDevice].hostAccessible) return transfer(this, this[kDevice], stream);
    const storage = this[kStorage];
    const info = this[kInfo];
    const shape = this[kShape].slice();
    const nbytes = this.nbytes;
    const buffer = allocate(nbytes);
    if (nbytes !== 0) {
      const srcBytes = storage.getBytes();
      checkedBuffer(this);
      if (this.isContiguous) {
        new Uint8Array(buffer).set(srcBytes.subarray(this[kOffset], this[kOffset] + nbytes));
      } else {
        writeShape(shape, contiguousStrides(shape));
        for (let i = 0; i < shape.length; i++) scratchSource(i, this[kStrides][i]);
        native.copyStrided(new Uint8Array(buffer), 0, srcBytes, this[kOffset], info.itemSize);
      }
    }
    // A clone is plain CPU memory, whatever host-accessible memory it came from.
    return makeTensor(new Storage(buffer, true, CPU), info, shape, contiguousStrides(shape), 0, 0);
  }

  copyFrom(src, options = undefined) {
    const stream = streamOption(options);
    const storage = alive(this);
    if (this[kFlags] & READ_ONLY) {
      throw makeError('ERR_DLPACK_READ_ONLY', 'Expected a writable tensor for copyFrom(), received a readOnly one');
    }
    if (!(src instanceof Tensor)) {
      src = require('./create').tensor(src, { dtype: this[kInfo].name, shape: this[kShape].slice() });
    }
    alive(src);
    if (src[kShape].length !== this[kShape].length || src[kShape].some((d, i) => d !== this[kShape][i])) {
      throw fail('ERR_INVALID_ARG_VALUE', 'src', `a tensor of shape [${this[kShape].join(', ')}]`,
        `one of shape [${src[kShape].join(', ')}]`);
    }
    if (this[kSize] === 0) return this;
    if (!this[kDevice].hostAccessible || !src[kDevice].hostAccessible) return copyAcrossDevices(this, src, stream);
    const srcStorage = src[kStorage];
    checkedBuffer(this);
    checkedBuffer(src);
    if (srcStorage === storage) src = src.clone(); // overlapping memory: copy through a temporary
    if (src[kInfo] === this[kInfo]) {
      writeShape(this[kShape], this[kStrides]);
      for (let i = 0; i < this[kShape].length; i++) scratchSource(i, src[kStrides][i]);
      native.copyStrided(storage.getBytes(), this[kOffset], src[kStorage].getBytes(), src[kOffset],
        this[kInfo].itemSize);
    } else {
      const from = elementView(src);
      const to = elementView(this);
      const read = src[kInfo].read;
      const write = this[kInfo].write;
      forEachElement(this[kShape], src[kStrides], this[kStrides], from.origin, to.origin, (s, d) => {
        write(to.view, d, read(from.view, s));
      });
    }
    return this;
  }

  to(device, options = undefined) {
    alive(this);
    const target = parseDevice(device);
    const stream = streamOption(options);
    if (target === this[kDevice]) return this;
    // Host-accessible memory to the CPU is a plain host copy.
    if (target === CPU && this[kDevice].hostAccessible) return this.clone();
    return transfer(this, target, stream);
  }

  cpu() {
    alive(this);
    return this.to(CPU);
  }

  cuda(index = 0) {
    alive(this);
    if (!Number.isSafeInteger(index) || index < 0) throw invalidValue('index', 'a non-negative integer', index);
    return this.to(`cuda:${index}`);
  }

  toArray() {
    hostStorage(this, 'toArray()');
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
      body = formatTensor(this[kShape], this[kStrides], origin, (i) => this[kInfo].read(view, i));
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
    return protocol().toDLPack(this, options);
  }

  share() {
    return sharing().share(this);
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
  if (t[kDevice].hostAccessible || t[kDevice].type === 'cuda') {
    const c = t.clone(); // on a CUDA device: gathered by a kernel there
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
    from = require('./create').tensor(host.toArray(), { dtype: dst[kInfo].name, shape: dst[kShape].slice() });
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

function forEachElement(shape, srcStrides, dstStrides, srcOrigin, dstOrigin, fn) {
  const walk = (dim, s, d) => {
    if (dim === shape.length) {
      fn(s, d);
      return;
    }
    for (let i = 0; i < shape[dim]; i++) walk(dim + 1, s + i * srcStrides[dim], d + i * dstStrides[dim]);
  };
  walk(0, srcOrigin, dstOrigin);
}

function scratchSource(i, stride) {
  scratch[slot.sourceStrides + i] = stride;
}

// reshape() argument: one dimension may be -1 (inferred).
function inferShape(value, size) {
  const raw = typeof value === 'number' ? [value] : value;
  if (!Array.isArray(raw)) throw invalidType('shape', 'an array of integers', value);
  const inferred = raw.indexOf(-1);
  if (inferred !== -1 && raw.indexOf(-1, inferred + 1) !== -1) {
    throw invalidValue('shape', 'at most one -1 dimension', value);
  }
  const shape = normalizeShape(inferred === -1 ? raw : raw.map((d) => (d === -1 ? 0 : d)));
  if (inferred !== -1) {
    const rest = product(shape.filter((_, i) => i !== inferred));
    if (rest === 0 || size % rest !== 0) {
      throw outOfRange('shape', `a shape whose product is ${size}`, `[${raw.join(', ')}]`);
    }
    shape[inferred] = size / rest;
  }
  if (product(shape) !== size) {
    throw outOfRange('shape', `a shape whose product is ${size}`, `[${raw.join(', ')}]`);
  }
  return shape;
}

// Fresh zeroed memory, made in this realm so `t.buffer instanceof ArrayBuffer`
// holds for the caller. Large buffers come from fresh zero pages, so zeroing
// costs nothing until the pages are written.
function allocate(nbytes) {
  if (nbytes > MAX_BYTES) throw outOfRange('shape', `a tensor of at most ${MAX_BYTES} bytes`, `${nbytes} bytes`);
  return new ArrayBuffer(nbytes);
}
const MAX_BYTES = require('buffer').constants.MAX_LENGTH;

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
  Tensor, makeTensor, makeContiguous, allocate, alive, hostStorage, checkedBuffer, coveredBuffer,
};
