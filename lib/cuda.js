'use strict';
// dl.cuda (API.md "CUDA"): availability, devices, synchronisation, streams.
// Whether CUDA is compiled in is fixed at build time; whether it is usable is
// asked of the driver once per process (the answer does not change).
const { native, externalBuffers } = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');

let cached = null;
function info() {
  if (cached === null) cached = Object.freeze(native.cudaInfo());
  return cached;
}

const isAvailable = () => info().deviceCount > 0;
const deviceCount = () => info().deviceCount;

// Why CUDA cannot be used here, for error messages.
function reason() {
  const i = info();
  if (!i.compiled && process.arch === 'arm64') {
    return 'CUDA is off on linux-arm64 (the prebuilt binary is CPU-only; a source build with a CUDA toolkit has it)';
  }
  if (!i.compiled) return 'this build of dlpack has no CUDA support (no toolkit when it was built)';
  if (i.deviceCount === 0) return `no usable CUDA device (${i.errorName || 'no device'}: ${i.reason || 'none found'})`;
  return null;
}

function unavailable(what) {
  return makeError('ERR_DLPACK_CUDA_UNAVAILABLE', `Expected a usable CUDA device for ${what}, but ${reason()}`,
    info().errorName || 'cudaErrorNoDevice');
}

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

// A CUDA stream argument as a BigInt (API.md: undefined/1 the legacy default
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

// This process's CUDA allocations on the device (all threads).
function memoryStats(index = 0) {
  return native.cudaStats(checkDevice(index, 'cuda.memoryStats()'));
}

const KIND = { cuda: 0, cuda_host: 1, cuda_managed: 2 };
const SHAREABLE = 3; // plain cudaMalloc: CUDA IPC cannot export pool memory

// Zeroed CUDA memory of `nbytes` for `device` (a Device of a CUDA type);
// `shareable` device memory can be shared with other processes ('cuda-ipc').
function cudaStorage(device, nbytes, shareable = false) {
  checkDevice(device.index, `a tensor on ${device}`, 'device');
  const { Storage } = require('./storage'); // loads after this module
  const storage = Storage.adopt(native.cudaAlloc(shareable ? SHAREABLE : KIND[device.type], device.index, nbytes),
    true, device);
  storage.cudaIpc = shareable;
  return storage;
}

// Copies bytes between two storages (any devices), synchronously.
function copyBytes(dst, dstOffset, src, srcOffset, nbytes) {
  const dstArg = dst.foreign ? dst.handle : dst.getBytes();
  const srcArg = src.foreign ? src.handle : src.getBytes();
  native.cudaCopy(dstArg, dst.foreign, dstOffset, srcArg, src.foreign, srcOffset, nbytes);
}

const cuda = Object.freeze({ isAvailable, deviceCount, synchronize, memoryStats, Stream });

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
};
