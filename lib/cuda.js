'use strict';
// dl.cuda (docs/API.md "CUDA"): availability, devices, synchronisation, streams.
// Whether CUDA is compiled in is fixed at build time; whether it is usable is
// asked of the driver once per process (the answer does not change).
const { native, externalBuffers, memoryKind, cudaStridedCopy, cudaConvert } = require('./binding');
const { kStorage, kLayout, kDevice } = require('./symbols');
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

// Copies bytes between two storages (any devices). On a stream other than
// the legacy default one, and when both sides are CUDA memory this library
// allocated (device, pinned or managed: their frees are stream-ordered), the
// copy is enqueued there and this returns at once; otherwise (pageable host
// memory, memory imported from another library) it is synchronous.
// Both copies run with a CUDA side's device current (device memory's first)
// and are ordered with the other side's device too (src/core/stream_order.h
// EnqueueOrderedAcross): a copy between two GPUs waits for work on both and
// is waited for by later work on both.
function copyBytes(dst, dstOffset, src, srcOffset, nbytes, stream = 1n) {
  const dstArg = dst.nativeArg();
  const srcArg = src.nativeArg();
  const dstIndex = dst.device.type === 'cpu' ? -1 : dst.device.index;
  const srcIndex = src.device.type === 'cpu' ? -1 : src.device.index;
  const dstFirst = dst.device.type === 'cuda' || srcIndex < 0;
  const device = dstFirst ? dstIndex : srcIndex;
  const other = dstFirst ? srcIndex : dstIndex;
  if (stream !== 1n && dst.streamOrdered && src.streamOrdered) {
    native.cudaCopy(dstArg, true, dstOffset, srcArg, true, srcOffset, nbytes, device, other, stream);
    return;
  }
  native.cudaCopy(dstArg, dst.isNative, dstOffset, srcArg, src.isNative, srcOffset, nbytes, device, other);
}

// Device-side copies (src/core/cuda_kernels.h): kernels between two views of
// CUDA device memory on one device, enqueued on `stream` (a BigInt as
// streamHandle gives; the legacy default stream unless named) and ordered
// with later work on it, as every other CUDA copy here is. Callers pass live
// tensors of one shape on one 'cuda' device whose memory does not overlap
// (copy the source first when it might); these are internal entry points.
const onOneDevice = (a, b) => a[kDevice].type === 'cuda' && a[kDevice] === b[kDevice];

// The stream a kernel between dst and src may run on: the caller's where
// both are memory this library allocated (stream-ordered frees, as in
// copyBytes), else the legacy default stream, ordered with imported memory's
// owner as every synchronous copy is.
const kernelStream = (dst, src, stream) =>
  (dst[kStorage].streamOrdered && src[kStorage].streamOrdered ? stream : 1n);

// dst <- src, same dtype, any strides on both sides (a dense pair is one
// cudaMemcpyAsync).
function copyOnDevice(dst, src, stream = 1n) {
  const d = dst[kLayout];
  const s = src[kLayout];
  cudaStridedCopy(dst[kDevice].index, dst[kStorage].nativeArg(), d.byteOffset, src[kStorage].nativeArg(), s.byteOffset,
    d.info.itemSize, kernelStream(dst, src, stream), d.shape, d.strides, s.strides);
}

// dst <- src converted to dst's dtype by the conversion kernel (rules in
// src/core/device_copy.h: NaN -> 0 and saturation for float -> integer,
// round to nearest even for float16/bfloat16, real part of complex, nonzero
// -> true). `t.to(dtype)` on CUDA is `convertOnDevice(empty of that dtype on
// t's device, t)`.
function convertOnDevice(dst, src, stream = 1n) {
  const d = dst[kLayout];
  const s = src[kLayout];
  cudaConvert(dst[kDevice].index, dst[kStorage].nativeArg(), d.byteOffset, d.info, src[kStorage].nativeArg(),
    s.byteOffset, s.info, kernelStream(dst, src, stream), d.shape, d.strides, s.strides);
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
  cuda, capabilities, unavailable, isAvailable, info, Stream, streamHandle, cudaStorage, copyBytes, checkDevice,
  onOneDevice, copyOnDevice, convertOnDevice, copyStream,
};
