'use strict';
// Sharing without copies (API.md "Sharing"): descriptors for worker threads
// ('sab', 'local') and other processes ('shm'), dl.open(), and tensors over
// WebAssembly memory.
const { native } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');
const { dtypeInfo } = require('./dtypes');
const { parseDevice } = require('./device');
const { normalizeShape, product, contiguousStrides, extent } = require('./shape');
const { Storage } = require('./storage');
const { makeTensor, hostStorage } = require('./tensor');
const { kInfo, kShape, kStrides, kOffset, kFlags, kDevice, READ_ONLY } = require('./internal');
const { isSharedArrayBuffer } = require('util').types;

const SHM_VERSION = 1;

// Segments whose every process died are removed once, when this process
// first touches shared memory (python/FORMAT.md "sweep").
let swept = false;
function sweepOnce() {
  if (swept) return;
  swept = true;
  native.shmSweep();
}

// A zeroed POSIX shared-memory segment of `nbytes` (python/FORMAT.md).
function sharedStorage(nbytes) {
  sweepOnce();
  const [handle, name] = native.shmCreate(nbytes);
  const storage = Storage.adopt(handle, true);
  storage.shm = { name, dataSize: nbytes };
  return storage;
}

function layoutOf(t) {
  return {
    byteOffset: t[kOffset],
    dtype: t[kInfo].name,
    shape: t[kShape].slice(),
    strides: t[kStrides].slice(),
    readOnly: (t[kFlags] & READ_ONLY) !== 0,
  };
}

function share(t) {
  const storage = hostStorage(t, 'share()');
  if (storage.shm !== null) {
    return { kind: 'shm', version: SHM_VERSION, name: storage.shm.name, dataSize: storage.shm.dataSize,
      ...layoutOf(t) };
  }
  const buffer = storage.memory !== null ? storage.memory.buffer : storage.buffer;
  if (buffer !== null && isSharedArrayBuffer(buffer)) {
    return { kind: 'sab', buffer, ...layoutOf(t) };
  }
  if (storage.foreign) {
    return { kind: 'local', id: native.localShare(storage.handle), pid: process.pid,
      device: String(t[kDevice]), ...layoutOf(t) };
  }
  throw makeError('ERR_DLPACK_UNSUPPORTED',
    'Expected a tensor over a SharedArrayBuffer, shared memory (dl.empty(shape, { shared: true })) or ' +
    'native memory for share(), received one over a plain ArrayBuffer, which only its own thread can use');
}

// A descriptor's layout, checked for shape, strides and alignment.
function openLayout(d) {
  const info = dtypeInfo(d.dtype, 'descriptor.dtype');
  const shape = normalizeShape(d.shape, 'descriptor.shape');
  const strides = d.strides === undefined ? contiguousStrides(shape) : d.strides;
  if (!Array.isArray(strides) || strides.length !== shape.length || !strides.every(Number.isSafeInteger)) {
    throw invalidValue('descriptor.strides', `${shape.length} integers`, d.strides);
  }
  const byteOffset = d.byteOffset === undefined ? 0 : d.byteOffset;
  if (!Number.isSafeInteger(byteOffset) || byteOffset < 0) {
    throw invalidValue('descriptor.byteOffset', 'a non-negative integer', byteOffset);
  }
  if (byteOffset % info.itemSize !== 0) {
    throw makeError('ERR_DLPACK_MISALIGNED', `Expected a multiple of ${info.itemSize} for ` +
      `\`descriptor.byteOffset\`, received ${byteOffset}`);
  }
  if (d.readOnly !== undefined && typeof d.readOnly !== 'boolean') {
    throw invalidType('descriptor.readOnly', 'a boolean', d.readOnly);
  }
  const { low, high } = extent(shape, strides, info.itemSize);
  return { info, shape, strides: strides.slice(), byteOffset, flags: d.readOnly ? READ_ONLY : 0, low, high };
}

// Every element of layout `l` lies inside the `available` shared bytes.
function checkInside(l, available) {
  if (product(l.shape) !== 0 && (l.byteOffset < l.low || l.byteOffset + l.high > available)) {
    throw outOfRange('descriptor', `a layout inside the ${available} shared bytes`,
      `elements from byte ${l.byteOffset - l.low} to ${l.byteOffset + l.high}`);
  }
}

function open(d) {
  if (d === null || typeof d !== 'object') throw invalidType('descriptor', 'a share() descriptor', d);
  switch (d.kind) {
    case 'sab': {
      if (!isSharedArrayBuffer(d.buffer)) throw invalidType('descriptor.buffer', 'a SharedArrayBuffer', d.buffer);
      const l = openLayout(d);
      checkInside(l, d.buffer.byteLength);
      return makeTensor(new Storage(d.buffer, false), l.info, l.shape, l.strides, l.byteOffset, l.flags);
    }
    case 'shm': {
      if (d.version !== SHM_VERSION) invalidVersion(d.version);
      if (typeof d.name !== 'string') throw invalidType('descriptor.name', 'a segment name string', d.name);
      if (!Number.isSafeInteger(d.dataSize) || d.dataSize < 0) {
        throw invalidValue('descriptor.dataSize', 'a non-negative integer', d.dataSize);
      }
      const l = openLayout(d);
      checkInside(l, d.dataSize);
      sweepOnce();
      const storage = Storage.adopt(native.shmOpen(d.name, d.dataSize), false);
      storage.shm = { name: d.name, dataSize: d.dataSize };
      return makeTensor(storage, l.info, l.shape, l.strides, l.byteOffset, l.flags);
    }
    case 'local': {
      if (d.pid !== process.pid) {
        throw invalidValue('descriptor.pid', `this process (${process.pid}): 'local' descriptors work ` +
          'between threads of one process; use dl.empty(shape, { shared: true }) across processes', d.pid);
      }
      if (typeof d.id !== 'string') throw invalidType('descriptor.id', 'an id string', d.id);
      // share() writes ids in plain decimal; anything else names no share
      // (a lax parse would read '12x' or ' 12' as 12).
      if (!/^[1-9][0-9]{0,19}$/.test(d.id)) throw invalidValue('descriptor.id', 'a decimal id string', d.id);
      const l = openLayout(d);
      const device = parseDevice(d.device === undefined ? 'cpu' : d.device, 'descriptor.device');
      const storage = Storage.adopt(native.localOpen(d.id), false, device);
      // The memory's own length bounds the layout; known once the handle is held
      // (read natively: the memory may be on a CUDA device).
      try {
        checkInside(l, native.storageLength(storage.handle));
      } catch (error) {
        storage.holders = 1;
        storage.release();
        throw error;
      }
      return makeTensor(storage, l.info, l.shape, l.strides, l.byteOffset, l.flags, device);
    }
    default:
      throw invalidValue('descriptor.kind', "'sab', 'local' or 'shm'", d.kind);
  }
}

function invalidVersion(version) {
  throw makeError('ERR_DLPACK_UNSUPPORTED',
    `Expected shared-memory descriptor version ${SHM_VERSION}, received ${version}`);
}

// dl.wasm.view(memory, { ptr, dtype, shape }): a tensor over WebAssembly
// memory that re-reads memory.buffer on every use, so it survives grow().
function view(memory, options) {
  if (!(memory instanceof WebAssembly.Memory) &&
      Object.prototype.toString.call(memory) !== '[object WebAssembly.Memory]') {
    throw invalidType('memory', 'a WebAssembly.Memory', memory);
  }
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  const info = dtypeInfo(options.dtype, 'options.dtype');
  const { ptr } = options;
  if (!Number.isSafeInteger(ptr) || ptr < 0) throw invalidType('options.ptr', 'a non-negative integer', ptr);
  if (ptr % info.itemSize !== 0) {
    throw makeError('ERR_DLPACK_MISALIGNED', `Expected a multiple of ${info.itemSize} (the ${info.name} size) ` +
      `for \`options.ptr\`, received ${ptr}`);
  }
  const shape = normalizeShape(options.shape, 'options.shape');
  const nbytes = product(shape) * info.itemSize;
  if (ptr + nbytes > memory.buffer.byteLength) {
    throw outOfRange('options.ptr', `a range inside the memory's ${memory.buffer.byteLength} bytes`,
      `bytes ${ptr} to ${ptr + nbytes}`);
  }
  const storage = new Storage(null, false);
  storage.memory = memory;
  return makeTensor(storage, info, shape, contiguousStrides(shape), ptr, 0);
}

const wasm = Object.freeze({ view });

module.exports = { share, open, sharedStorage, wasm };
