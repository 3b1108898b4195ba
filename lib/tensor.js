'use strict';
// The Tensor class (docs/API.md "Tensor"). Public methods are small forwarders;
// state lives under module-private symbols.
const { makeError, invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { Device, parseDevice, deviceOfString, CPU } = require('./device');
const { copyStream } = require('./cuda');
const { Layout } = require('./layout');
const { dtypeInfo, infos } = require('./dtypes');
const { checkOptions, nearestKey } = require('./options');
const { detachedError } = require('./storage');
const route = require('./route');
const { kToken, kStorage, kLayout, kFlags, kView, kDevice, READ_ONLY, IS_COPY, DISPOSED } = require('./symbols');
const { formatTensor } = require('./format');
const views = require('./views');

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');
// Short: V8 cuts a long description out of the DataCloneError message.
const NOT_CLONEABLE = Symbol('a dlpack Tensor cannot be cloned: send tensor.share() and dl.open() it');

// The RangeError of toJSON() for a value JSON cannot hold exactly.
function notJson(t, value) {
  const text = typeof value === 'bigint' ? `${value}n` : Object.is(value, -0) ? '-0' : value;
  return outOfRange('toJSON()', 'values JSON holds exactly (finite numbers other than -0, integers within 2^53)',
    `${text} in a ${t[kLayout].info.name} tensor; use share() or toArray()`);
}
// What the layers above provide (lib/capsule.js, lib/sharing.js, lib/create.js
// build on this module); lib/index.js connects them once at load, so lib/
// stays a DAG without lazy requires (test/architecture.test.js).
const above = {
  toDLPack: null, share: null, shareMemory: null, toShared: null, valuesFrom: null, scalarTensor: null, fill: null,
  toArrow: null,
};
function connect(layers) {
  Object.assign(above, layers);
}

class Tensor {
  // Internal: one Storage (held until dispose()), one Layout (lib/layout.js).
  constructor(token, storage, layout, flags, device) {
    if (token !== kToken) throw illegalConstructor();
    storage.retain();
    this[kStorage] = storage;
    this[kLayout] = layout;
    this[kFlags] = flags;
    this[kView] = null;
    this[kDevice] = device;
    // The one string-keyed field: structured clone (postMessage, structuredClone)
    // copies string keys only, and a symbol value makes it throw DataCloneError
    // with the advice below instead of sending an empty object.
    this.dlpack = NOT_CLONEABLE;
  }

  get dtype() { return this[kLayout].info.name; }
  get shape() { return frozen(this[kLayout].shape); }
  get strides() { return frozen(this[kLayout].strides); }
  get ndim() { return this[kLayout].shape.length; }
  get size() { return this[kLayout].size; }
  get itemSize() { return this[kLayout].info.itemSize; }
  get nbytes() { return this[kLayout].size * this[kLayout].info.itemSize; }
  get byteOffset() { return this[kLayout].byteOffset; }
  get device() { return this[kDevice]; }
  get readOnly() { return (this[kFlags] & READ_ONLY) !== 0; }
  get isCopy() { return (this[kFlags] & IS_COPY) !== 0; }
  get disposed() { return (this[kFlags] & DISPOSED) !== 0; }
  get isContiguous() { return this[kLayout].isContiguous; }

  get data() {
    hostStorage(this, 'data');
    if (!this.isContiguous) {
      throw makeError('ERR_DLPACK_NOT_CONTIGUOUS',
        'Expected a contiguous tensor for `data`, received strides ' +
        `[${this[kLayout].strides.join(', ')}] for shape [${this[kLayout].shape.join(', ')}]; call contiguous() first`);
    }
    const info = this[kLayout].info;
    const length = this[kLayout].size * info.viewLanes;
    let view = this[kView];
    if (view === null || view.buffer !== this[kStorage].buffer()) {
      // First use, a WebAssembly memory grew and replaced its buffer, or
      // shareMemory() moved the storage.
      const buffer = checkedBuffer(this);
      view = new info.View(buffer, this[kLayout].base, length);
      this[kView] = view;
    } else if (view.length !== length) {
      throw detachedError(this[kStorage]);
    }
    return view;
  }

  get buffer() {
    hostStorage(this, 'buffer');
    return this[kStorage].buffer();
  }

  // torch's reshape: a view when strides can describe the new shape, else a
  // contiguous copy. `reshape([2, 3])` and `reshape(2, 3)` are the same.
  reshape(...args) {
    liveStorage(this);
    const layout = this[kLayout];
    const target = views.inferShape(views.listArgs(args, 'reshape()', 'shape'), layout.size);
    if (layout.isContiguous) {
      return viewOf(this, Layout.contiguous(layout.info, target, layout.byteOffset, layout.size));
    }
    const strides = views.viewStrides(layout.shape, layout.strides, target);
    if (strides !== null) return viewOf(this, layout.view(target, strides));
    return copyAs(this, target);
  }

  // view(dtype) reinterprets the bytes; view(shape) is reshape() that never
  // copies (torch's Tensor.view).
  view(...args) {
    liveStorage(this);
    const layout = this[kLayout];
    if (args.length >= 1 && (typeof args[0] === 'string' || (args[0] !== null && typeof args[0] === 'object' &&
        !Array.isArray(args[0])))) {
      views.maxArgs(args, 1, 'view(dtype)');
      return viewOf(this, views.reinterpret(layout, dtypeInfo(args[0], 'dtype')));
    }
    const target = views.inferShape(views.listArgs(args, 'view()', 'shape'), layout.size);
    const strides = views.viewStrides(layout.shape, layout.strides, target);
    if (strides === null) {
      throw makeError('ERR_DLPACK_NOT_CONTIGUOUS', `Expected strides that can describe shape [${target.join(', ')}] ` +
        `for view(), received strides [${layout.strides.join(', ')}] for shape [${layout.shape.join(', ')}]; ` +
        'use reshape(), which copies');
    }
    return viewOf(this, layout.view(target, strides));
  }

  permute(...dims) {
    liveStorage(this);
    return viewOf(this, views.permute(this[kLayout], views.listArgs(dims, 'permute()', 'dims')));
  }

  transpose(dim0, dim1, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'transpose()');
    return viewOf(this, views.transpose(this[kLayout], dim0, dim1));
  }

  narrow(dim, start, length, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 3, 'narrow()');
    return viewOf(this, views.narrow(this[kLayout], dim, start, length));
  }

  select(dim, index, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'select()');
    return viewOf(this, views.select(this[kLayout], dim, index));
  }

  slice(dim, start, end, step, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 4, 'slice()');
    return viewOf(this, views.slice(this[kLayout], dim, start, end, step));
  }

  squeeze(...args) {
    liveStorage(this);
    views.maxArgs(args, 1, 'squeeze()');
    return viewOf(this, views.squeeze(this[kLayout], args[0]));
  }

  unsqueeze(dim, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 1, 'unsqueeze()');
    return viewOf(this, views.unsqueeze(this[kLayout], dim));
  }

  // A view when the flattened dims can share one stride, else a copy
  // (torch's flatten, which is reshape).
  flatten(startDim = 0, endDim = -1, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'flatten()');
    const target = views.flattenShape(this[kLayout].shape, startDim, endDim);
    return this.reshape(target);
  }

  expand(...sizes) {
    liveStorage(this);
    return viewOf(this, views.expand(this[kLayout], views.listArgs(sizes, 'expand()', 'sizes')));
  }

  // torch's as_strided, with the offset in bytes from the start of the
  // storage (byteOffset's unit), bounds-checked against the storage.
  asStrided(shape, strides, byteOffset = undefined, ...rest) {
    const storage = liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 3, 'asStrided()');
    const info = this[kLayout].info;
    const checked = views.stridedLayout(shape, strides);
    const offset = byteOffset === undefined ? this[kLayout].byteOffset : views.integer(byteOffset, 'byteOffset');
    if (offset % info.itemSize !== 0 || offset < 0) {
      throw makeError(offset < 0 ? 'ERR_OUT_OF_RANGE' : 'ERR_DLPACK_MISALIGNED',
        `Expected a non-negative multiple of ${info.itemSize} (the ${info.name} size) for \`byteOffset\`, ` +
        `received ${offset}`);
    }
    const layout = Layout.of(info, checked.shape, checked.strides, offset);
    const length = storage.byteLength();
    if (!layout.inside(length)) {
      throw outOfRange('strides', `a layout inside the storage's ${length} bytes`,
        `one spanning bytes ${layout.base} to ${offset + layout.high}`);
    }
    return viewOf(this, layout);
  }

  contiguous(options = undefined, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 1, 'contiguous()');
    const { stream, async } = copyOptions(options);
    // A new tensor over the same memory, not `this`: see to().
    if (this.isContiguous) {
      const same = viewOf(this, this[kLayout]);
      return async ? Promise.resolve(same) : same;
    }
    if (async) refuseAsync(this[kDevice], CPU, stream, 'contiguous()');
    return this.clone({ stream, async });
  }

  clone(options = undefined, ...rest) {
    if (rest.length !== 0) views.tooMany(rest, 1, 'clone()');
    const { stream, async } = copyOptions(options);
    const storage = liveStorage(this);
    if (async) {
      refuseAsync(this[kDevice], CPU, stream, 'clone()');
      return route.convertOnHostAsync(storage, this[kLayout], this[kLayout].info, made);
    }
    return made(route.clone(storage, this[kLayout], stream));
  }

  // Into any view, from a tensor of the same shape (any dtype, converted by
  // the rules of lib/convert.js) or from values dl.tensor() takes.
  copyFrom(src, options = undefined, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'copyFrom()');
    const { stream, async } = copyOptions(options);
    refuseReadOnly(this, 'copyFrom()');
    route.refuseSharedElements(this[kLayout], 'copyFrom()'); // on every device, as torch
    let temporary = null;
    if (!(src instanceof Tensor)) {
      temporary = above.valuesFrom(src, this[kLayout].info, this[kLayout].shape, 'src');
      src = temporary;
    }
    try {
      liveStorage(src);
      const shape = this[kLayout].shape;
      if (src[kLayout].shape.length !== shape.length || src[kLayout].shape.some((d, i) => d !== shape[i])) {
        throw fail('ERR_INVALID_ARG_VALUE', 'src', `a tensor of shape [${this[kLayout].shape.join(', ')}]`,
          `one of shape [${src[kLayout].shape.join(', ')}]`);
      }
      if (async) {
        refuseAsync(src[kDevice], this[kDevice], stream, 'copyFrom()');
        const settled = route.copyIntoAsync(this[kStorage], this[kLayout], src[kStorage], src[kLayout]);
        return settled.then(() => this); // `temporary` is disposed below, its memory held till then
      }
      route.copyInto(this[kStorage], this[kLayout], src[kStorage], src[kLayout], stream);
    } finally {
      if (temporary !== null) temporary.dispose();
    }
    return this;
  }

  // torch's fill_: every element `value` (a number, bigint or boolean; an
  // [re, im] pair for a complex dtype), converted by dl.tensor()'s rules and
  // checked before anything is written; `{ async }` as copyFrom() takes it.
  fill_(value, options = undefined, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'fill_()');
    refuseReadOnly(this, 'fill_()');
    route.refuseSharedElements(this[kLayout], 'fill_()');
    const one = above.scalarTensor(value, this[kLayout].info, 'value');
    try {
      return above.fill(this, one, options);
    } finally {
      one.dispose();
    }
  }

  zero_(options = undefined, ...rest) {
    if (rest.length !== 0) views.tooMany(rest, 1, 'zero_()');
    return this.fill_(0, options);
  }

  // t.to(dtype), t.to(device[, { stream }]), t.to({ dtype, device, stream }):
  // a new tensor over the same memory when nothing changes (torch returns
  // `this`; see below), else a new contiguous tensor. Dtype
  // names and device names never collide ('float32' vs 'cpu', 'cuda:0').
  to(target, options = undefined, ...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 2, 'to()');
    let dtype;
    let device;
    let values; // an options object's { stream, async }, each key read once
    if (target !== null && typeof target === 'object' && !Array.isArray(target) && !(target instanceof Device) &&
        !isDtype(target)) {
      if (options !== undefined) {
        throw invalidValue('options', 'undefined when the first argument is an options object', options);
      }
      const { dtype: d, device: place, stream, async } = checkOptions(target, TO_KEYS);
      dtype = d;
      device = place;
      values = { stream, async };
    } else if (isDtype(target)) {
      dtype = target;
    } else if (typeof target === 'string' && deviceOfString(target) === undefined) {
      throw neitherDtypeNorDevice(target);
    } else {
      device = target;
    }
    const stream = values !== undefined ? copyStream(values.stream) : streamOption(options);
    const info = dtype === undefined ? this[kLayout].info : dtypeInfo(dtype, 'dtype');
    const place = device === undefined ? this[kDevice] : parseDevice(device);
    // Already there: a new tensor over the same memory (one more holder, as a
    // view is), not `this` as torch returns, so that disposing what to(),
    // cpu() or contiguous() gave never disposes the tensor it was called on
    // (docs/API.md "Decisions").
    if (values !== undefined && values.async !== undefined) {
      if (typeof values.async !== 'boolean') throw invalidType('options.async', 'a boolean', values.async);
      if (values.async) return this.#toAsync(info, place, stream);
    }
    const moved = route.convert(this[kStorage], this[kLayout], info, place, stream);
    return moved === null ? viewOf(this, this[kLayout]) : made(moved);
  }

  // to({ ..., async: true }): a Promise of the result. A conversion in host
  // memory runs off the event loop (docs/API.md "Off the event loop"); what
  // needs no work resolves at once; a copy to or from CUDA memory is refused.
  #toAsync(info, place, stream) {
    const storage = this[kStorage];
    const layout = this[kLayout];
    if (place === this[kDevice] && info === layout.info) return Promise.resolve(viewOf(this, layout));
    if (place !== CPU || !storage.device.hostAccessible || stream !== 1n) {
      throw makeError('ERR_DLPACK_UNSUPPORTED', 'Expected `async: true` for a conversion from host memory to ' +
        `the CPU, received one from ${this[kDevice]} to ${place}${stream !== 1n ? ' on a stream' : ''}; ` +
        'a CUDA copy is asynchronous on its stream already');
    }
    return route.convertOnHostAsync(storage, layout, info, made);
  }

  // The elementwise ops' methods (docs/API.md "Ops": add, add_, eq, exp, ...)
  // are lib/ops.js's own, installed by lib/index.js (installMethods below).

  // The one element of a 0-d or one-element tensor, as toArray() gives it.
  item(...rest) {
    hostStorage(this, 'item()');
    if (rest.length !== 0) views.tooMany(rest, 0, 'item()');
    if (this[kLayout].size !== 1) {
      throw makeError('ERR_INVALID_ARG_VALUE', 'Expected a tensor with one element for item(), received a ' +
        `tensor of shape [${this[kLayout].shape.join(', ')}]`);
    }
    checkedBuffer(this);
    const { view, origin } = elementView(this);
    return this[kLayout].info.read(view, origin);
  }

  cpu(...rest) {
    liveStorage(this);
    if (rest.length !== 0) views.tooMany(rest, 0, 'cpu()');
    return this.to(CPU);
  }

  cuda(index = 0, ...rest) {
    liveStorage(this);
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
    const read = this[kLayout].info.read;
    const shape = this[kLayout].shape;
    const strides = this[kLayout].strides;
    const data = [];
    const exact = (value) => {
      if (typeof value === 'bigint') {
        if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) throw notJson(this, value);
        return Number(value);
      }
      // JSON.stringify(-0) writes 0: the round trip would give +0.
      if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) throw notJson(this, value);
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
    if (this[kLayout].size !== 0) walk(0, origin);
    return { dtype: this[kLayout].info.name, shape: shape.slice(), data };
  }

  toArray(...rest) {
    hostStorage(this, 'toArray()');
    if (rest.length !== 0) views.tooMany(rest, 0, 'toArray()');
    checkedBuffer(this);
    const { view, origin } = elementView(this);
    const read = this[kLayout].info.read;
    const shape = this[kLayout].shape;
    const strides = this[kLayout].strides;
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
    if (this[kFlags] & DISPOSED) return `tensor(<disposed>, dtype=${this[kLayout].info.name})`;
    if (!this[kDevice].hostAccessible || this[kStorage].released) {
      const { shape, info } = this[kLayout];
      return `tensor(<${shape.join('x') || 'scalar'} on ${this[kDevice]}>, dtype=${info.name})`;
    }
    let body;
    try {
      checkedBuffer(this);
      const { view, origin } = elementView(this);
      body = formatTensor(this[kLayout].shape, this[kLayout].strides, origin, (i) => this[kLayout].info.read(view, i),
        this[kLayout].info.kind === 'float');
    } catch (error) {
      if (error.code !== 'ERR_DLPACK_DETACHED') throw error;
      body = '<detached>';
    }
    const device = this[kDevice] === CPU ? '' : `, device='${this[kDevice]}'`;
    return `tensor(${body}${device}, dtype=${this[kLayout].info.name})`;
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

  share(...rest) {
    if (rest.length !== 0) views.tooMany(rest, 0, 'share()');
    return above.share(this);
  }

  // torch's share_memory_(): moves the storage, in place, into memory other
  // processes can map (docs/API.md "Sharing"); `this`.
  shareMemory(...rest) {
    if (rest.length !== 0) views.tooMany(rest, 0, 'shareMemory()');
    return above.shareMemory(this);
  }

  // A copy in memory other processes can map, or `this` when it is there already.
  toShared(...rest) {
    if (rest.length !== 0) views.tooMany(rest, 0, 'toShared()');
    return above.toShared(this);
  }

  // The reductions' methods (docs/API.md "Reductions": sum, max, softmax,
  // topk, ...) are lib/reduce.js's own, installed by lib/index.js.

  // An Arrow Vector over this tensor's memory (docs/arrow.md, lib/arrow.js).
  toArrow(options = undefined) {
    if (!(this instanceof Tensor)) throw invalidType('this', 'a Tensor', this);
    return above.toArrow(this, options);
  }

  __dlpack_device__() {
    liveStorage(this);
    const device = this[kDevice];
    return [device.code, device.index];
  }
}

// The `stream` of a copy's options (docs/API.md "CUDA": on a stream, copies
// between CUDA memory this library allocated return at once).
function streamOption(options) {
  if (options === undefined) return 1n;
  return copyStream(checkOptions(options, STREAM_KEYS).stream);
}

// { stream, async } of clone() and copyFrom() (`keys` those the method reads).
function copyOptions(options, keys = ['stream', 'async']) {
  if (options === undefined) return { stream: 1n, async: false };
  const { stream, async } = checkOptions(options, keys);
  if (async !== undefined && typeof async !== 'boolean') throw invalidType('options.async', 'a boolean', async);
  return { stream: copyStream(stream), async: async === true };
}

// `async: true` of a copy from `from` to `to`: host memory on both sides only
// (a CUDA copy is asynchronous on its stream already), as to() refuses.
function refuseAsync(from, to, stream, method) {
  if (!from.hostAccessible || !to.hostAccessible || stream !== 1n) {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected \`async: true\` for a ${method} in host memory, received ` +
      `one from ${from} to ${to}${stream !== 1n ? ' on a stream' : ''}; a CUDA copy is asynchronous on its stream ` +
      'already');
  }
}

const isDtype = (v) => (typeof v === 'string' && infos[v] !== undefined) ||
  (v !== null && typeof v === 'object' && typeof v.name === 'string' && infos[v.name] !== undefined &&
   infos[v.name].public === v);
const TO_KEYS = ['dtype', 'device', 'stream', 'async'];
// torch's dtype names that are not ours (torch.float is float32, ...).
const TORCH_NAMES = {
  float: 'float32', double: 'float64', half: 'float16', int: 'int32', long: 'int64', short: 'int16',
  cfloat: 'complex64', cdouble: 'complex128',
};

// t.to('float'): a string that is neither a dtype nor a device name, answered
// with both lists and the dtype it most likely meant.
function neitherDtypeNorDevice(value) {
  const meant = Object.hasOwn(TORCH_NAMES, value) ? TORCH_NAMES[value] : nearestKey(value, Object.keys(infos));
  const error = invalidValue('target', `a dtype (${Object.keys(infos).join(', ')}) or a device ('cpu', 'cuda', ` +
    "'cuda:N', 'cuda_host', 'cuda_managed')", value);
  if (meant !== undefined) error.message += `; did you mean '${meant}'?`;
  return error;
}
const STREAM_KEYS = ['stream'];

// A view of t with `layout`: same storage, flags and device.
function viewOf(t, layout) {
  return new Tensor(kToken, t[kStorage], layout, t[kFlags] & (READ_ONLY | IS_COPY), t[kDevice]);
}

// A contiguous copy of t with another shape of the same size.
function copyAs(t, shape) {
  const c = t.clone();
  const out = makeTensor(c[kStorage], Layout.contiguous(c[kLayout].info, shape, c[kLayout].byteOffset), 0, c[kDevice]);
  c.dispose();
  return out;
}

// copyFrom()'s and fill_()'s guard (`what` names the method in the message).
function refuseReadOnly(t, what) {
  if (t[kFlags] & READ_ONLY) {
    throw makeError('ERR_DLPACK_READ_ONLY', `Expected a writable tensor for ${what}, received a readOnly one`);
  }
}

function liveStorage(t) {
  if (!(t instanceof Tensor)) throw invalidType('this', 'a Tensor', t);
  if (t[kFlags] & DISPOSED) {
    throw makeError('ERR_DLPACK_DISPOSED',
      `Expected a live tensor, received a disposed ${t[kLayout].info.name} tensor`);
  }
  return t[kStorage];
}

function hostStorage(t, what) {
  const storage = liveStorage(t);
  route.onHost(t[kDevice], what);
  return storage;
}

// The buffer, after checking it still covers the tensor (detach, shrink).
function checkedBuffer(t) {
  return route.coveredBuffer(t[kStorage], t[kLayout]);
}

// A typed view over the whole extent, and the element index of element 0.
function elementView(t) {
  const info = t[kLayout].info;
  const buffer = checkedBuffer(t);
  if (t[kLayout].size === 0) return { view: new info.View(0), origin: 0 };
  const layout = t[kLayout];
  const elements = layout.extent / info.itemSize;
  return { view: new info.View(buffer, layout.base, elements * info.viewLanes), origin: layout.low / info.itemSize };
}

// Outside the constructor, whose bytecode stays small enough to be inlined
// where tensors are made (bench/README.md "The per-call path").
function illegalConstructor() {
  return makeError('ERR_ILLEGAL_CONSTRUCTOR', 'Tensors are made by dl.fromBuffer, dl.empty, dl.zeros, ' +
    'dl.tensor or dl.fromDLPack, not by `new Tensor()`');
}

function makeTensor(storage, layout, flags = 0, device = storage.device) {
  return new Tensor(kToken, storage, layout, flags, device);
}

// The tensor over a pair lib/route.js made.
function made(pair) {
  return new Tensor(kToken, pair.storage, pair.layout, 0, pair.storage.device);
}

function frozen(array) {
  return Object.isFrozen(array) ? array : Object.freeze(array);
}

// How a module above installs its own Tensor methods (sharp's
// require('./resize')(Sharp) pattern): lib/index.js calls it once at load with
// the module's `tensorMethods`, plain functions whose `this` is the tensor.
// Installed as class methods are (writable, configurable, not enumerable); a
// name already on the prototype is a programming error, refused at load.
function installMethods(methods) {
  for (const [name, method] of Object.entries(methods)) {
    if (Object.prototype.hasOwnProperty.call(Tensor.prototype, name)) {
      throw new Error(`Tensor.prototype.${name} is installed twice`);
    }
    Object.defineProperty(Tensor.prototype, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
}

module.exports = {
  Tensor, makeTensor, viewOf, liveStorage, hostStorage, checkedBuffer, connect, installMethods,
};
