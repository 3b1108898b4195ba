'use strict';
// Sharing without copies (docs/API.md "Sharing"): descriptors for worker threads
// ('sab', 'local') and other processes ('shm', 'cuda-ipc'), dl.open(), and
// tensors over WebAssembly memory.
const { native } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');
const { dtypeInfo } = require('./dtypes');
const { parseDevice } = require('./device');
const { normalizeShape, product, contiguousStrides, extent } = require('./shape');
const { Storage, holderOf } = require('./storage');
const { makeTensor, alive } = require('./tensor');
const { checkDevice } = require('./cuda');
const { kInfo, kShape, kStrides, kOffset, kFlags, kDevice, READ_ONLY } = require('./symbols');
const { isSharedArrayBuffer } = require('util').types;

const SHM_VERSION = 2;
const CUDA_IPC_VERSION = 2;
// python/FORMAT.md "Names": the memfd's name, a random token; the whole
// string, so that no NUL, slash or newline reaches a path.
const SEGMENT_NAME = /^dlpack-[0-9a-f]{32}$/;
const IPC_HANDLE = /^[0-9a-f]{128}$/;
const INT32_MAX = 2147483647;

// A zeroed, sealed shared-memory segment of `nbytes` (python/FORMAT.md).
function sharedStorage(nbytes) {
  const [handle, name, fd] = native.shmCreate(nbytes);
  const storage = Storage.adopt(handle, true);
  storage.shm = { name, fd, dataSize: nbytes };
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
  const storage = alive(t);
  if (!t[kDevice].hostAccessible) return shareDevice(t, storage);
  if (storage.shm !== null) {
    return { kind: 'shm', version: SHM_VERSION, name: storage.shm.name, pid: process.pid, fd: storage.shm.fd,
      dataSize: storage.shm.dataSize, ...layoutOf(t) };
  }
  const buffer = storage.memory !== null ? storage.memory.buffer : storage.buffer;
  if (buffer !== null && isSharedArrayBuffer(buffer)) {
    return { kind: 'sab', buffer, ...layoutOf(t) };
  }
  if (storage.foreign) return shareLocal(t, storage);
  throw makeError('ERR_DLPACK_UNSUPPORTED',
    'Expected a tensor over a SharedArrayBuffer, shared memory (dl.empty(shape, { shared: true })) or ' +
    'native memory for share(), received one over a plain ArrayBuffer, which only its own thread can use');
}

function shareLocal(t, storage) {
  const device = String(t[kDevice]);
  return { kind: 'local', id: native.localShare(storage.handle, device), pid: process.pid, device, ...layoutOf(t) };
}

// CUDA memory: other processes can map device memory allocated for sharing
// (or opened from such a share); any other is for this process's threads.
function shareDevice(t, storage) {
  if (!storage.cudaIpc) return shareLocal(t, storage);
  const s = native.cudaIpcShare(storage.handle);
  collectLater();
  return { kind: 'cuda-ipc', version: CUDA_IPC_VERSION, handle: s.handle, ticket: s.ticket, pid: s.pid, fd: s.fd,
    device: String(t[kDevice]), dataSize: s.size, ...layoutOf(t) };
}

// An exporter whose tensor is gone while other processes still map it frees
// the memory once they let go (src/core/cuda_ipc.h): asked here, unref'd,
// while this process has shareable CUDA memory or frees waiting.
let collector = null;
function collectLater() {
  if (collector !== null) return;
  collector = setInterval(() => {
    if (native.cudaIpcCollect() === 0 && native.cudaIpcCounts().exported === 0) {
      clearInterval(collector);
      collector = null;
    }
  }, 500);
  collector.unref();
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
  // Zero strides make any count cheap to describe: the tensor's size must
  // still be a number (row S25).
  if (!Number.isSafeInteger(product(shape))) {
    throw outOfRange('descriptor.shape', `at most ${Number.MAX_SAFE_INTEGER} elements`, `${product(shape)}`);
  }
  const { low, high } = extent(shape, strides, info.itemSize);
  return { info, shape, strides: strides.slice(), byteOffset, flags: d.readOnly ? READ_ONLY : 0, low, high };
}

// Every element of layout `l` lies inside the `available` shared bytes; an
// empty layout may start at their end, not past it (row S09).
function checkInside(l, available) {
  const empty = product(l.shape) === 0;
  if (empty ? l.byteOffset > available : l.byteOffset < l.low || l.byteOffset + l.high > available) {
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
      return makeTensor(holderOf(d.buffer) || new Storage(d.buffer, false), l.info, l.shape, l.strides, l.byteOffset, l.flags);
    }
    case 'shm': {
      if (d.version !== SHM_VERSION) invalidVersion(d.kind, SHM_VERSION, d.version);
      checkSegmentName('descriptor.name', d.name);
      checkPlace(d);
      const l = openLayout(d);
      checkInside(l, checkDataSize(d.dataSize));
      const [handle, fd] = native.shmOpen(d.name, d.pid, d.fd, d.dataSize);
      const storage = Storage.adopt(handle, false);
      storage.shm = { name: d.name, fd, dataSize: d.dataSize };
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
      const [handle, sharedFrom] = native.localOpen(d.id);
      const storage = Storage.adopt(handle, false, device);
      // The device and length the memory was shared with bound what the
      // descriptor may say (CUDA memory must never be read as host memory).
      try {
        if (String(device) !== sharedFrom) {
          throw invalidValue('descriptor.device', `'${sharedFrom}' (the device the memory was shared from)`, d.device);
        }
        checkInside(l, native.storageLength(storage.handle));
      } catch (error) {
        storage.holders = 1;
        storage.release();
        throw error;
      }
      return makeTensor(storage, l.info, l.shape, l.strides, l.byteOffset, l.flags, device);
    }
    case 'cuda-ipc':
      return openCudaIpc(d);
    default:
      throw invalidValue('descriptor.kind', "'sab', 'local', 'shm' or 'cuda-ipc'", d.kind);
  }
}

function openCudaIpc(d) {
  if (d.version !== CUDA_IPC_VERSION) invalidVersion(d.kind, CUDA_IPC_VERSION, d.version);
  if (typeof d.handle !== 'string' || !IPC_HANDLE.test(d.handle)) {
    throw invalidValue('descriptor.handle', '128 lowercase hex digits (a cudaIpcMemHandle_t)', d.handle);
  }
  checkSegmentName('descriptor.ticket', d.ticket);
  checkPlace(d);
  const device = parseDevice(d.device, 'descriptor.device');
  if (device.type !== 'cuda') throw invalidValue('descriptor.device', "a 'cuda:N' device", d.device);
  const l = openLayout(d);
  checkInside(l, checkDataSize(d.dataSize));
  checkDevice(device.index, "dl.open() of a 'cuda-ipc' descriptor", 'descriptor.device');
  const storage = Storage.adopt(native.cudaIpcOpen(d.handle, d.ticket, d.pid, d.fd, device.index, d.dataSize),
    false, device);
  storage.cudaIpc = true;
  return makeTensor(storage, l.info, l.shape, l.strides, l.byteOffset, l.flags, device);
}

// One rule for every segment name a descriptor carries ('shm' name,
// 'cuda-ipc' ticket; rows S12, S13): the grammar of python/FORMAT.md "Names".
function checkSegmentName(field, name) {
  if (typeof name !== 'string') throw invalidType(field, 'a segment name string', name);
  if (!SEGMENT_NAME.test(name)) {
    throw invalidValue(field, "a segment name ('dlpack-' and 32 lowercase hex digits)", name);
  }
}

// Where the segment is open: a process id and one of its descriptor numbers (row S26).
function checkPlace(d) {
  if (!Number.isSafeInteger(d.pid) || d.pid < 1 || d.pid > INT32_MAX) {
    throw invalidValue('descriptor.pid', 'a process id (a positive integer)', d.pid);
  }
  if (!Number.isSafeInteger(d.fd) || d.fd < 0 || d.fd > INT32_MAX) {
    throw invalidValue('descriptor.fd', 'a descriptor number (a non-negative integer)', d.fd);
  }
}

function checkDataSize(dataSize) {
  if (!Number.isSafeInteger(dataSize) || dataSize < 0) {
    throw invalidValue('descriptor.dataSize', 'a non-negative integer', dataSize);
  }
  return dataSize;
}

function invalidVersion(kind, expected, version) {
  throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected '${kind}' descriptor version ${expected}, received ${version}`);
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
