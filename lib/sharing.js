'use strict';
// Sharing without copies (docs/API.md "Sharing"): descriptors for worker threads
// ('sab', 'local') and other processes ('shm', 'cuda-ipc'), dl.open(), and
// tensors over WebAssembly memory.
const { native } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');
const { dtypeInfo } = require('./dtypes');
const { parseDevice } = require('./device');
const { normalizeShape, product, contiguousStrides } = require('./shape');
const { Layout } = require('./layout');
const { Storage, holderOf } = require('./storage');
const { makeTensor, viewOf, liveStorage } = require('./tensor');
const { checkOptions } = require('./options');
const { checkDevice, cudaStorage } = require('./cuda');
const { copyStorage } = require('./route');
const { kStorage, kLayout, kFlags, kDevice, READ_ONLY } = require('./symbols');
const { isSharedArrayBuffer } = require('util').types;

const SHM_VERSION = 2;
const CUDA_IPC_VERSION = 2;
// python/FORMAT.md "Names": the memfd's name, a random token; the whole
// string, so that no NUL, slash or newline reaches a path.
const SEGMENT_NAME = /^dlpack-[0-9a-f]{32}$/;
const IPC_HANDLE = /^[0-9a-f]{128}$/;
const INT32_MAX = 2147483647;
const WASM_VIEW_KEYS = ['ptr', 'dtype', 'shape'];

// A zeroed, sealed shared-memory segment of `nbytes` (python/FORMAT.md).
function sharedStorage(nbytes) {
  const [handle, name, fd] = native.shmCreate(nbytes);
  return Storage.segment(handle, true, { name, fd, dataSize: nbytes });
}

// The layout fields of a descriptor (python/FORMAT.md).
function layoutOf(t) {
  const layout = t[kLayout];
  return {
    byteOffset: layout.byteOffset,
    dtype: layout.info.name,
    shape: layout.shape.slice(),
    strides: layout.strides.slice(),
    readOnly: (t[kFlags] & READ_ONLY) !== 0,
  };
}

function share(t) {
  const storage = liveStorage(t);
  if (!t[kDevice].hostAccessible) return shareDevice(t, storage);
  const segment = storage.segment;
  if (segment !== null) {
    return { kind: 'shm', version: SHM_VERSION, name: segment.name, pid: process.pid, fd: segment.fd,
      dataSize: segment.dataSize, ...layoutOf(t) };
  }
  if (storage.sharedBuffer) return { kind: 'sab', buffer: storage.buffer(), ...layoutOf(t) };
  // The library's own CPU memory is this thread's at every size, a native
  // block (lib/memory.js) as an ArrayBuffer.
  if (storage.isNative && !storage.ownHostMemory) return shareLocal(t, storage);
  throw makeError('ERR_DLPACK_UNSUPPORTED',
    'Expected a tensor over a SharedArrayBuffer, shared memory (dl.empty(shape, { shared: true })) or ' +
    `native memory for share(), received one over ${storage.kind === 'wasm' ? 'non-shared WebAssembly memory' :
      'a plain ArrayBuffer'}, which only its own thread can use; ${unshared(storage)}`);
}

// What to do instead of share() for memory only its own thread can use:
// shareMemory() only where it would not refuse (row T21).
function unshared(storage) {
  if (storage.kind === 'wasm') {
    return 'call t.toShared() for a shared copy, or give the module a shared WebAssembly.Memory ' +
      '({ shared: true, maximum }), whose views share() as \'sab\'';
  }
  if (unmovable(storage) !== null) return 'call t.toShared() for a shared copy (t.shareMemory() cannot move ' +
    `${unmovable(storage)})`;
  return 'call t.shareMemory() to move it into shared memory in place, or t.toShared() for a shared copy';
}

// Memory other processes can map already: a segment, or CUDA memory
// allocated for 'cuda-ipc'.
const crossProcess = (storage) => storage.segment !== null || storage.ipcShareable;

// t.shareMemory() (torch's share_memory_()): the Storage every view of t
// shares moves into a new segment (CPU) or shareable cudaMalloc memory
// ('cuda:N'), so t, its views and every tensor over the same Storage now
// share() as 'shm' / 'cuda-ipc'. Only memory this library allocated moves:
// the old memory is freed at once, and a JS buffer handed out before (t.data,
// t.buffer) is detached (reads as empty, uses throw ERR_DLPACK_DETACHED), so
// nothing silently keeps reading bytes that no longer alias the tensor.
// Memory that something else points at cannot move: row T21.
function shareMemory(t) {
  const storage = liveStorage(t);
  if (crossProcess(storage)) return t;
  const held = unmovable(storage);
  if (held !== null) {
    throw makeError('ERR_DLPACK_COPY_REQUIRED', 'Expected a tensor over memory this library allocated and ' +
      `nothing else points at for shareMemory(), which moves it in place; received one over ${held}. ` +
      't.toShared() makes a shared copy');
  }
  const nbytes = storage.byteLength();
  const device = storage.device;
  const onDevice = device.type === 'cuda';
  const fresh = onDevice ? cudaStorage(device, nbytes, { shareable: true }) : sharedStorage(nbytes);
  try {
    copyStorage(fresh, storage, nbytes);
  } catch (error) {
    fresh.discard();
    throw error;
  }
  storage.replaceMemory(fresh);
  return t;
}

// Why shareMemory() cannot move this storage, or null when it can.
function unmovable(storage) {
  if (storage.inFlight > 0) return 'memory an asynchronous op ({ async: true }) still uses; await it first';
  switch (storage.kind) {
    case 'heap':
      if (storage.sharedBuffer) return 'a SharedArrayBuffer, which other threads hold and cannot be moved';
      if (!storage.owned) return 'a buffer passed to fromBuffer(), which the caller holds';
      if (storage.pinned) return 'memory a DLPack struct (toPointer()) or an Arrow column (toArrow()) may still point at';
      return null;
    case 'wasm':
      return 'WebAssembly memory, which its instance holds';
    case 'native':
      if (!storage.ownHostMemory) break;
      if (!storage.memory.sole) return 'memory a DLPack struct (toPointer()) may still point at';
      return null;
    case 'cuda':
      if (storage.owned && storage.device.type === 'cuda') return null;
      return storage.owned ? `${storage.device} memory, which CUDA IPC cannot share` : 'memory another process shared';
    default: // 'shm' (a segment it opened), 'native' that is not a block
      break;
  }
  return 'memory another library or thread shared (a DLPack import or a \'local\' share)';
}

// t.toShared(): t's elements in new memory other processes can map, on t's
// device ('cuda:N': cudaMalloc for 'cuda-ipc'), else in a CPU segment (pinned
// and managed memory cannot be shared across processes); a new tensor over
// t's memory when it is such memory already (never t, as to() and
// contiguous(): disposing the result never disposes t). t is untouched.
function toShared(t) {
  const storage = liveStorage(t);
  if (crossProcess(storage)) return viewOf(t, t[kLayout]);
  const layout = t[kLayout];
  const shape = layout.shape.slice();
  const device = t[kDevice];
  const out = device.type === 'cuda'
    ? makeTensor(cudaStorage(device, layout.nbytes, { shareable: true }), Layout.contiguous(layout.info, shape), 0,
      device)
    : makeTensor(sharedStorage(layout.nbytes), Layout.contiguous(layout.info, shape));
  try {
    out.copyFrom(t);
  } catch (error) {
    out.dispose();
    throw error;
  }
  return out;
}

function shareLocal(t, storage) {
  const device = String(t[kDevice]);
  return { kind: 'local', id: native.localShare(storage.nativeArg(), device), pid: process.pid, device,
    ...layoutOf(t) };
}

// CUDA memory: other processes can map device memory allocated for sharing
// (or opened from such a share); any other is for this process's threads.
function shareDevice(t, storage) {
  if (!storage.ipcShareable) return shareLocal(t, storage);
  const s = native.cudaIpcShare(storage.nativeArg());
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

// A descriptor's Layout and tensor flags, checked for shape, strides and
// alignment.
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
  return { layout: Layout.of(info, shape, strides.slice(), byteOffset, 'descriptor.shape'),
    flags: d.readOnly ? READ_ONLY : 0 };
}

// Every element of layout `l` lies inside the `available` shared bytes; an
// empty layout may start at their end, not past it (row S09).
function checkInside(layout, available) {
  if (layout.size === 0 ? layout.byteOffset > available : !layout.inside(available)) {
    throw outOfRange('descriptor', `a layout inside the ${available} shared bytes`,
      `elements from byte ${layout.base} to ${layout.byteOffset + layout.high}`);
  }
}

function open(d) {
  if (d === null || typeof d !== 'object') throw invalidType('descriptor', 'a share() descriptor', d);
  switch (d.kind) {
    case 'sab': {
      if (!isSharedArrayBuffer(d.buffer)) throw invalidType('descriptor.buffer', 'a SharedArrayBuffer', d.buffer);
      const { layout, flags } = openLayout(d);
      checkInside(layout, d.buffer.byteLength);
      return makeTensor(holderOf(d.buffer) || Storage.heap(d.buffer, false), layout, flags);
    }
    case 'shm': {
      if (d.version !== SHM_VERSION) invalidVersion(d.kind, SHM_VERSION, d.version);
      checkSegmentName('descriptor.name', d.name);
      checkPlace(d);
      const { layout, flags } = openLayout(d);
      checkInside(layout, checkDataSize(d.dataSize));
      const [handle, fd] = native.shmOpen(d.name, d.pid, d.fd, d.dataSize);
      return makeTensor(Storage.segment(handle, false, { name: d.name, fd, dataSize: d.dataSize }), layout, flags);
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
      const { layout, flags } = openLayout(d);
      const device = parseDevice(d.device === undefined ? 'cpu' : d.device, 'descriptor.device');
      const [handle, sharedFrom] = native.localOpen(d.id);
      const t = makeTensor(Storage.native(handle, false, device), layout, flags, device);
      // The device and length the memory was shared with bound what the
      // descriptor may say (CUDA memory must never be read as host memory).
      try {
        if (String(device) !== sharedFrom) {
          throw invalidValue('descriptor.device', `'${sharedFrom}' (the device the memory was shared from)`, d.device);
        }
        checkInside(layout, t[kStorage].byteLength());
      } catch (error) {
        t.dispose();
        throw error;
      }
      return t;
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
  const { layout, flags } = openLayout(d);
  checkInside(layout, checkDataSize(d.dataSize));
  checkDevice(device.index, "dl.open() of a 'cuda-ipc' descriptor", 'descriptor.device');
  const storage = Storage.cuda(native.cudaIpcOpen(d.handle, d.ticket, d.pid, d.fd, device.index, d.dataSize),
    false, device, { shareable: true, allocated: false });
  return makeTensor(storage, layout, flags, device);
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
  const o = checkOptions(options, WASM_VIEW_KEYS);
  const info = dtypeInfo(o.dtype, 'options.dtype');
  const { ptr } = o;
  if (!Number.isSafeInteger(ptr) || ptr < 0) throw invalidType('options.ptr', 'a non-negative integer', ptr);
  if (ptr % info.itemSize !== 0) {
    throw makeError('ERR_DLPACK_MISALIGNED', `Expected a multiple of ${info.itemSize} (the ${info.name} size) ` +
      `for \`options.ptr\`, received ${ptr}`);
  }
  const shape = normalizeShape(o.shape, 'options.shape');
  const nbytes = product(shape) * info.itemSize;
  if (ptr + nbytes > memory.buffer.byteLength) {
    throw outOfRange('options.ptr', `a range inside the memory's ${memory.buffer.byteLength} bytes`,
      `bytes ${ptr} to ${ptr + nbytes}`);
  }
  return makeTensor(Storage.wasm(memory), Layout.contiguous(info, shape, ptr));
}

const wasm = Object.freeze({ view });

module.exports = { share, shareMemory, toShared, open, sharedStorage, wasm };
