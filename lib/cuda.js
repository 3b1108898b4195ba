'use strict';
// dl.cuda (docs/API.md "CUDA"): availability, devices, synchronisation, streams.
// Whether CUDA is compiled in is fixed at build time; whether it is usable is
// asked of the driver once per process (the answer does not change).
const { native, externalBuffers, memoryKind } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');

// Availability lives in lib/cuda_info.js, below lib/device.js (which names
// the error) and lib/storage.js (which this module needs): no cycle.
const { info, isAvailable, deviceCount, reason, unavailable } = require('./cuda_info');
const { Storage } = require('./storage');

// A device index that exists, or throws (unavailable first).
function checkDevice(index, what, name = 'index') {
  if (!Number.isSafeInteger(index) || index < 0) throw invalidType(name, 'a non-negative integer', index);
  if (!isAvailable()) throw unavailable(what);
  if (index >= deviceCount()) {
    throw outOfRange(name, `a device index below ${deviceCount()}`, String(index));
  }
  return index;
}

function synchronize(index = 0) {
  native.cudaSynchronize(checkDevice(index, 'cuda.synchronize()'));
}

const streams = new FinalizationRegistry(({ device, handle }) => {
  try {
    native.cudaStreamDestroy(device, handle);
  } catch {
    // A stream whose device went away cannot be destroyed; nothing leaks in JS.
  }
});

class Stream {
  constructor(index = 0) {
    this.device = checkDevice(index, 'new cuda.Stream()');
    this.handle = native.cudaStreamCreate(this.device);
    this.token = { device: this.device, handle: this.handle };
    streams.register(this, this.token, this.token);
  }

  synchronize() {
    live(this);
    native.cudaStreamSynchronize(this.device, this.handle);
  }

  // Resolves once the stream has run all the work enqueued on it so far (a
  // host callback on the stream, through a thread-safe function): awaiting
  // it does not block the event loop.
  done() {
    live(this);
    return native.cudaStreamDone(this.device, this.handle);
  }

  dispose() {
    if (this.handle === null) return;
    const handle = this.handle;
    this.handle = null;
    streams.unregister(this.token);
    native.cudaStreamDestroy(this.device, handle);
  }

  [Symbol.dispose]() {
    this.dispose();
  }
}

function live(stream) {
  if (stream.handle === null) {
    throw makeError('ERR_DLPACK_DISPOSED', 'Expected a live cuda.Stream, received a disposed one');
  }
}

// A CUDA stream argument as a BigInt (docs/API.md: undefined/1 the legacy default
// stream, 2 per-thread default, larger a handle, -1 no synchronisation, 0 an
// error), for `__dlpack__({ stream })` and `to(device, { stream })`.
function streamHandle(stream) {
  if (stream === undefined) return 1n;
  const value = stream instanceof Stream ? stream.handle : stream;
  if ((typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint') {
    const n = BigInt(value);
    if (n === 0n) {
      throw invalidValue('stream', 'a stream other than 0 (ambiguous in DLPack: use 1 for the legacy ' +
        'default stream, 2 for the per-thread one)', stream);
    }
    if (n >= -1n && n < 1n << 64n) return n;
  }
  throw invalidType('stream', 'undefined, -1, 1, 2, a stream handle or a cuda.Stream', stream);
}

// This process's CUDA allocations on the device (all threads); cachedBytes
// are freed blocks the block cache keeps (src/core/block_cache.h), not
// counted in allocatedBytes.
function memoryStats(index = 0) {
  return native.cudaStats(checkDevice(index, 'cuda.memoryStats()'));
}

// Gives the cached blocks back to the driver (torch.cuda.empty_cache());
// returns the bytes freed.
function emptyCache(index = 0) {
  return native.cudaEmptyCache(checkDevice(index, 'cuda.emptyCache()'));
}

// The native memory kind of each CUDA device type; shareable memory is plain
// cudaMalloc memory (CUDA IPC cannot export pool memory).
const KIND = { cuda: memoryKind.device, cuda_host: memoryKind.pinned, cuda_managed: memoryKind.managed };

// CUDA memory of `nbytes` for `device` (a Device of a CUDA type); `shareable`
// device memory can be shared with other processes ('cuda-ipc'). Device
// memory is zeroed only when `zeroed` (zeros(); empty() and the result of a
// copy, written whole, skip the memset); pinned, managed and shareable memory
// always are (src/core/cuda_memory.h).
function cudaStorage(device, nbytes, { shareable = false, zeroed = false } = {}) {
  // The message is built only when the check fails: this runs per allocation.
  if (!(device.index < deviceCount())) checkDevice(device.index, `a tensor on ${device}`, 'device');
  const kind = shareable ? memoryKind.shareable : KIND[device.type];
  const handle = native.cudaAlloc(kind, device.index, nbytes, zeroed);
  return Storage.cuda(handle, true, device, { shareable, allocated: true });
}

// A copy's `stream` option as a BigInt (streamHandle's rules; -1, "no
// ordering" in DLPack, is the legacy default stream for a copy).
function copyStream(stream) {
  const handle = streamHandle(stream);
  return handle === -1n ? 1n : handle;
}

const cuda = Object.freeze({ isAvailable, deviceCount, synchronize, memoryStats, emptyCache, Stream });

// dl.capabilities(): what this build and machine can do.
function capabilities() {
  const i = info();
  return {
    cuda: { compiled: i.compiled, available: i.deviceCount > 0, deviceCount: i.deviceCount, reason: reason() },
    externalArrayBuffers: externalBuffers,
  };
}

module.exports = {
  cuda, capabilities, unavailable, isAvailable, info, Stream, streamHandle, cudaStorage, checkDevice, copyStream,
};
