'use strict';
// The DLPack protocol (docs/API.md "DLPack protocol"): DLPackCapsule, export
// (toDLPack / __dlpack__) and import (fromDLPack).
const {
  native, importResult, exportStruct, adoptPointer, importStruct, dlpackVersion, dlpackFlags,
} = require('./binding');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');
const { checkOptions } = require('./options');
const { byIndex } = require('./dtypes');
const { parseDevice, deviceFromCode, cudaUnavailable, CPU } = require('./device');
const { streamHandle, isAvailable } = require('./cuda');
const { Storage, detachedError } = require('./storage');
const { Tensor, makeTensor, liveStorage, checkedBuffer } = require('./tensor');
const { coveredBuffer } = require('./route');
const { Layout } = require('./layout');
const { fillStruct, takeStruct } = require('./struct_slab');
const { kToken, kStorage, kFlags, kLayout, kDevice, kCapsule, READ_ONLY, IS_COPY } = require('./symbols');

const { readOnly: FLAG_READ_ONLY, isCopied: FLAG_IS_COPIED } = dlpackFlags; // DLPACK_FLAG_BITMASK_*
const LEGACY_VERSION = Object.freeze({ major: 0, minor: 0 });
// The keys of __dlpack__()/toDLPack(), fromDLPack() and fromPointer() options.
const EXPORT_KEYS = ['stream', 'maxVersion', 'dlDevice', 'copy'];
const IMPORT_KEYS = ['device', 'copy'];
const POINTER_KEYS = ['versioned'];
const MAX_POINTER = (1n << 64n) - 1n;
const TWO_64 = 2 ** 64;
// Made once: the literal `-1n` is a BigInt negation run on every evaluation
// (a builtin call and an allocation per export).
const NO_SYNC = -1n;

// A capsule is one of two things, told apart by `state.storage`:
//  - made by __dlpack__: it holds the exported memory (one hold on its
//    Storage, like a tensor) and the layout. The C struct is built when
//    ownership leaves JavaScript (toPointer); between JS consumers none is
//    needed, so fromDLPack takes the layout directly.
//  - adopted by fromPointer: native code wraps a producer's struct, and
//    fromDLPack runs the native import checklist on it.
class DLPackCapsule {
  constructor(token, versioned, version) {
    if (token !== kToken) {
      throw makeError('ERR_ILLEGAL_CONSTRUCTOR',
        'Capsules come from tensor.__dlpack__() or DLPackCapsule.fromPointer(), not by `new DLPackCapsule()`');
    }
    this[kCapsule] = {
      versioned, version, consumed: false,
      handle: null, // fromPointer: the native handle owning the struct
      storage: null, layout: null, dlFlags: 0, device: null,
    };
  }

  get versioned() { return this[kCapsule].versioned; }
  get version() { return this[kCapsule].version; }
  get consumed() { return this[kCapsule].consumed; }

  // Hands the DLManagedTensor(Versioned)* to native code, which now owns it
  // and must call its deleter exactly once.
  toPointer() {
    unconsumed(this);
    const state = this[kCapsule];
    if (state.storage === null) {
      const pointer = native.capsuleToPointer(state.handle);
      state.consumed = true;
      state.handle = null;
      return pointer;
    }
    const { storage, layout, device } = state;
    if (state.versioned && device === CPU && !storage.isNative) {
      // Filled in the struct slab (lib/struct_slab.js), after the check the native export makes.
      coveredBuffer(storage, layout);
      const filled = fillStruct(storage, layout, state.dlFlags);
      if (filled !== null) {
        state.consumed = true; // the capsule's hold moved to the slot
        state.storage = null;
        return filled;
      }
    }
    const pointer = exportStruct(storage.nativeArg(), storage.isNative, state.versioned, layout.shape, layout.strides,
      layout.byteOffset, layout.info.index, state.dlFlags, device.code, device.index);
    storage.pin(); // the struct points at this memory now: dispose() must never detach it
    releaseHold(state);
    return pointer;
  }

  dispose() {
    const state = capsuleState(this);
    if (state.consumed) return;
    if (state.storage !== null) {
      releaseHold(state);
    } else {
      state.consumed = true;
      native.capsuleDispose(state.handle);
      state.handle = null;
    }
  }

  [Symbol.dispose]() {
    DLPackCapsule.prototype.dispose.call(this);
  }

  toString() {
    const { versioned, version, consumed } = capsuleState(this);
    return `DLPackCapsule(${versioned ? 'DLManagedTensorVersioned' : 'DLManagedTensor'}, ` +
      `version=${version.major}.${version.minor}${consumed ? ', consumed' : ''})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return DLPackCapsule.prototype.toString.call(this);
  }

  // Adopts a managed tensor made by native code. Unsafe: the pointer is
  // trusted, and `versioned` must say which struct it points at.
  //
  // The refusals and the native adoption are functions of their own
  // (pointerRefusal, adoptNatively): this one is inlined where it is called, and
  // the optimizing compiler inlines only up to a total bytecode size, which
  // its throws and the native path used up before the capsule's constructor
  // (bench/README.md "The per-call path").
  static fromPointer(pointer, options) {
    // Number() is exact for 0 and below, and rounds only 2^64 - 1 up to 2^64.
    const address = typeof pointer === 'bigint' ? Number(pointer) : NaN;
    if (!(address > 0 && address <= TWO_64) || (address === TWO_64 && pointer > MAX_POINTER) ||
        options === null || typeof options !== 'object') {
      throw pointerRefusal(pointer, options);
    }
    const { versioned } = checkOptions(options, POINTER_KEYS);
    if (typeof versioned !== 'boolean') throw invalidType('options.versioned', 'a boolean', versioned);
    if (versioned) {
      // Our own struct, unchanged: a capsule like __dlpack__'s, holding the memory again.
      const capsule = new DLPackCapsule(kToken, true, dlpackVersion);
      const state = capsule[kCapsule];
      if (takeStruct(address, state)) {
        state.device = CPU;
        return capsule;
      }
    }
    return adoptNatively(pointer, versioned);
  }
}

// fromPointer's refusal of its arguments, in the order it checks them.
function pointerRefusal(pointer, options) {
  if (typeof pointer !== 'bigint') return invalidType('pointer', 'a bigint', pointer);
  const address = Number(pointer);
  if (!(address > 0 && address <= TWO_64) || (address === TWO_64 && pointer > MAX_POINTER)) {
    return outOfRange('pointer', 'a non-NULL 64-bit address', `${pointer}n`);
  }
  return invalidType('options', '{ versioned: true } (a DLManagedTensorVersioned) or { versioned: false } ' +
    '(a legacy DLManagedTensor)', options);
}

// A struct native code made (or changed), adopted natively.
function adoptNatively(pointer, versioned) {
  const capsule = new DLPackCapsule(kToken, versioned, LEGACY_VERSION);
  const state = capsule[kCapsule];
  const adopted = adoptPointer(pointer, versioned);
  state.handle = adopted.handle;
  if (versioned) state.version = versionOf(adopted.major, adopted.minor);
  // Where the memory is, if the struct says so in a way we can name; the
  // import checklist still checks it.
  state.device = deviceFromCode(adopted.deviceType, adopted.deviceId) || null;
  return capsule;
}

// Frozen { major, minor } objects, one per version seen.
const versionKey = (major, minor) => major * 2 ** 32 + minor;
const versions = new Map([[versionKey(dlpackVersion.major, dlpackVersion.minor), dlpackVersion], [versionKey(0, 0), LEGACY_VERSION]]);
function versionOf(major, minor) {
  if (major === dlpackVersion.major && minor === dlpackVersion.minor) return dlpackVersion;
  const key = versionKey(major, minor);
  let version = versions.get(key);
  if (version === undefined) {
    version = Object.freeze({ major, minor });
    if (versions.size < 64) versions.set(key, version); // producers choose minors: keep it bounded
  }
  return version;
}

// The capsule's hold on its Storage ends: consumed, handed out or disposed.
function releaseHold(state) {
  const storage = state.storage;
  state.consumed = true;
  state.storage = null;
  storage.release();
}

function capsuleState(capsule) {
  const state = capsule !== null && typeof capsule === 'object' ? capsule[kCapsule] : undefined;
  if (state === undefined) throw invalidType('capsule', 'a DLPackCapsule', capsule);
  return state;
}

function unconsumed(capsule) {
  if (capsuleState(capsule).consumed) {
    throw makeError('ERR_DLPACK_CONSUMED', 'Expected an unconsumed DLPackCapsule, received one ' +
      'that was already consumed, disposed or handed out by toPointer()');
  }
}

function parseCopy(copy) {
  if (copy !== undefined && typeof copy !== 'boolean') {
    throw invalidType('copy', 'true, false or undefined', copy);
  }
  return copy;
}

function isIntegerPair(value) {
  return Array.isArray(value) && value.length === 2 &&
    Number.isSafeInteger(value[0]) && Number.isSafeInteger(value[1]) && value[0] >= 0 && value[1] >= 0;
}

// [deviceType, index] -> Device; a type we cannot name is unsupported.
function parseDlDevice(value) {
  if (!isIntegerPair(value)) throw invalidType('dlDevice', '[deviceType, index] (two non-negative integers)', value);
  const device = deviceFromCode(value[0], value[1]);
  if (device === undefined) {
    throw makeError('ERR_DLPACK_UNSUPPORTED',
      `Expected dlDevice type 1 (CPU), 2 (CUDA), 3 (CUDAHost) or 13 (CUDAManaged), received ${value[0]}`);
  }
  return device;
}

// The consumer's stream as a BigInt (docs/API.md: undefined/1 legacy default,
// 2 per-thread default, larger a handle, -1 no synchronisation, 0 an error).
// Host memory takes only undefined.
function parseStream(stream, device) {
  if (device.hostAccessible) {
    if (stream !== undefined) throw invalidValue('stream', `undefined for a tensor on ${device}`, stream);
    return NO_SYNC;
  }
  return streamHandle(stream);
}

function toDLPack(tensor, options) {
  if (!(tensor instanceof Tensor)) throw invalidType('tensor', 'a Tensor', tensor);
  liveStorage(tensor);
  const { stream, maxVersion, dlDevice, copy } = checkOptions(options, EXPORT_KEYS);
  parseCopy(copy);
  let versioned = true;
  if (maxVersion !== undefined && maxVersion !== null) {
    if (!isIntegerPair(maxVersion)) throw invalidType('maxVersion', '[major, minor] (two non-negative integers)', maxVersion);
    versioned = maxVersion[0] >= 1;
  }
  const source = tensor[kDevice];
  const target = dlDevice === undefined ? source : parseDlDevice(dlDevice);
  const consumerStream = parseStream(stream, source);
  // Host-accessible memory can be described as kDLCPU without a copy.
  const sameMemory = target === source || (target === CPU && source.hostAccessible);
  const mustCopy = copy === true || !sameMemory;
  if (mustCopy && copy === false) {
    throw makeError('ERR_DLPACK_COPY_REQUIRED',
      `Expected an export without a copy (copy: false), but ${source} -> ${target} needs one`);
  }
  if (mustCopy && (!target.hostAccessible || !source.hostAccessible) && !isAvailable()) {
    throw cudaUnavailable(`a DLPack export from ${source} to ${target}`);
  }
  if (!source.hostAccessible && consumerStream > 1n) {
    // The consumer's stream waits for work on ours (the legacy default
    // stream); 1 is that stream itself and -1 asks for no ordering.
    if (!isAvailable()) throw cudaUnavailable(`ordering stream ${consumerStream} after this tensor's work`);
    native.cudaStreamWait(source.index, consumerStream);
  }

  let t = tensor;
  let flags = 0;
  if (mustCopy) {
    t = sameMemory ? tensor.clone() : tensor.to(target);
    flags |= FLAG_IS_COPIED;
  } else if (tensor[kFlags] & READ_ONLY) {
    if (!versioned) {
      throw makeError('ERR_DLPACK_UNSUPPORTED', 'Expected a writable tensor for a legacy (maxVersion ' +
        `[${maxVersion.join(', ')}]) export, which cannot mark memory read-only; received a readOnly tensor`);
    }
    flags |= FLAG_READ_ONLY;
  }

  const storage = t[kStorage];
  // JS memory can be detached or shrunk under us (native memory cannot, but
  // the buffer made over it may have been taken away, and the tensor's bytes
  // with it: Storage#hostArg); asking native memory for its buffer would make
  // one needlessly.
  if (!storage.isNative) checkedBuffer(t);
  else if (storage.memory.detached) throw detachedError(storage);
  const capsule = new DLPackCapsule(kToken, versioned, versioned ? dlpackVersion : LEGACY_VERSION);
  const state = capsule[kCapsule];
  storage.retain(); // the capsule's hold, until it is consumed, handed out or disposed
  state.storage = storage;
  state.layout = t[kLayout];
  state.dlFlags = flags;
  state.device = target === CPU ? CPU : t[kDevice];
  if (t !== tensor) t.dispose(); // the capsule holds the copy now
  return capsule;
}

function isCapsule(x) {
  return x !== null && typeof x === 'object' && x[kCapsule] !== undefined;
}

function fromDLPack(x, options) {
  const { device: deviceOption, copy } = checkOptions(options, IMPORT_KEYS);
  parseCopy(copy);
  const device = deviceOption === undefined ? undefined : parseDevice(deviceOption);
  let capsule = x;
  if (!isCapsule(x)) {
    if (x === null || (typeof x !== 'object' && typeof x !== 'function') || typeof x.__dlpack__ !== 'function') {
      throw invalidType('x', 'a DLPackCapsule or an object with __dlpack__()', x);
    }
    const request = { maxVersion: [dlpackVersion.major, dlpackVersion.minor] };
    const where = typeof x.__dlpack_device__ === 'function' ? x.__dlpack_device__() : undefined;
    // CUDA producers order their work before our (legacy default) stream.
    if (Array.isArray(where) && where[0] === 2) request.stream = 1;
    if (device !== undefined) request.dlDevice = [device.code, device.index];
    if (copy !== undefined) request.copy = copy;
    capsule = x.__dlpack__(request);
    if (!isCapsule(capsule)) {
      throw invalidType('x.__dlpack__()', 'a DLPackCapsule result', capsule);
    }
  }
  unconsumed(capsule);
  const state = capsule[kCapsule];
  // What can be refused is refused before the capsule is consumed (docs/API.md:
  // a failed import does not consume it).
  if (state.storage !== null && !state.storage.isNative) coveredBuffer(state.storage, state.layout);
  if (device !== undefined) checkMove(state.device, device, copy);
  let t = state.storage !== null ? takeLayout(state) : importCapsule(capsule, copy !== false);
  try {
    if (copy === true && !t.isCopy) {
      const c = t.clone();
      t.dispose();
      c[kFlags] |= IS_COPY;
      t = c;
    }
    if (device !== undefined && device !== t[kDevice]) {
      checkMove(t[kDevice], device, copy);
      const moved = t.to(device);
      if (moved !== t) t.dispose();
      moved[kFlags] |= IS_COPY;
      t = moved;
    }
  } catch (error) {
    t.dispose(); // consumed, but nothing is left behind (a copy failed at run time)
    throw error;
  }
  return t;
}

// fromDLPack(..., { device: target, copy }) from memory on `source` (null:
// not known before the import): a copy that copy: false forbids, or one
// that needs CUDA where there is none.
function checkMove(source, target, copy) {
  if (source === null || source === target) return;
  if (copy === false) {
    throw makeError('ERR_DLPACK_COPY_REQUIRED',
      `Expected an import without a copy (copy: false), but ${source} -> ${target} needs one`);
  }
  const hostCopy = target === CPU && source.hostAccessible;
  if (!hostCopy && !isAvailable()) throw cudaUnavailable(`a copy from ${source} to ${target}`);
}

// A capsule of ours: the tensor is rebuilt from the layout it carries, and
// the capsule's hold on the memory passes to it.
function takeLayout(state) {
  const { storage, dlFlags } = state;
  const flags = (dlFlags & FLAG_READ_ONLY ? READ_ONLY : 0) | (dlFlags & FLAG_IS_COPIED ? IS_COPY : 0);
  const t = new Tensor(kToken, storage, state.layout, flags, state.device);
  releaseHold(state);
  return t;
}

function importCapsule(capsule, allowCopy) {
  const state = capsule[kCapsule];
  let imported;
  try {
    imported = importStruct(state.handle, allowCopy);
  } catch (error) {
    // An unknown major version is consumed (its deleter was called); every
    // other failure leaves the capsule as it was.
    state.consumed = !native.capsuleOwns(state.handle);
    throw error;
  }
  state.consumed = true;
  state.handle = null;

  const { result, kind, dlFlags } = imported;
  let byteOffset = imported.byteOffset;
  let flags = (dlFlags & FLAG_READ_ONLY ? READ_ONLY : 0) | (dlFlags & FLAG_IS_COPIED ? IS_COPY : 0);
  let storage;
  if (kind === importResult.jsBuffer) {
    // Our own struct came back: to the Storage it came from, or a new one over the buffer.
    storage = result[kStorage];
    if (storage === undefined || storage.released) {
      // Its tensors were disposed while the struct kept the buffer alive.
      storage = Storage.heap(result.buffer, storage !== undefined && storage.owned);
      storage.pin(); // other structs may still point at it
    }
    byteOffset += result.byteOffset;
  } else if (kind === importResult.foreign) {
    storage = Storage.native(result, false, deviceFromCode(imported.deviceType, imported.deviceId));
  } else {
    storage = Storage.heap(result, true); // copied: the runtime refused external memory
    flags |= IS_COPY;
  }
  return makeTensor(storage, Layout.of(byIndex[imported.dtypeIndex], imported.shape, imported.strides, byteOffset),
    flags);
}

module.exports = { DLPackCapsule, dlpackVersion, toDLPack, fromDLPack };
