// @ts-check
'use strict';
// The calling convention with the native addon, in one place. The addon
// hands its lists over at load (src/addon/convention.h: the scratch block's
// slots, the numbers that come back, the dtype table); this is the one lib
// file that reads or writes the scratch block, a Float64Array shared with
// native code that carries shapes, strides and numbers without building
// arguments. The rest of lib/ calls the wrappers below with plain values, or
// `native` directly for calls that take only arguments.
const { DLPackError, makeError, adopt } = require('./errors');
/** @typedef {import('./native').StorageHandle} StorageHandle */
/** @typedef {import('./native').HostMemory} HostMemory */
/** @typedef {{ name: string, code: number, bits: number }} DtypeRow */
/** @type {readonly DtypeRow[]} */
const byIndex = require('./dtypes').byIndex;

// Its functions and what init() returns are declared in lib/native.d.ts;
// `npm run typecheck` checks this file's calls against it.
const addon = require('./load').load(); // a local build, else the prebuilt binary (lib/load.js)
// `warn` reports other threads' ends (src/addon/env_state.h EnvLink).
const warn = (/** @type {string} */ message) => process.emitWarning(message, { code: 'DLPACK_THREAD_MEMORY' });
// A failing binding returns this marker instead of throwing, and keeps its error for
// takeError() (src/addon/env_state.h EnvState::Fail): a Node-API throw stays pending
// while Node rethrows it, and a finalizer that a GC runs then is taken for its thrower,
// a fatal error (issue 20, HIGH 3). Symbol.for: one marker for every load of lib/.
const FAILED = Symbol.for('dlpack.nativeFailure');
const convention = addon.init(makeError, warn, require('worker_threads').isMainThread, FAILED);

// The addon's functions as lib/ calls them: each throws the error its binding
// kept, and a Promise it returns rejects with this load's error (errors.js
// adopt: the factory that built it may be another load's).
/** @param {any} error @returns {never} */
const rethrow = (error) => { throw adopt(error); };
/** @template {(...args: any[]) => any} F @param {F} fn @returns {F} */
function throwing(fn) {
  return /** @type {F} */ ((...args) => {
    const result = fn(...args);
    if (result === FAILED) throw adopt(addon.takeError());
    // A native Promise (the asynchronous forms) is of the realm the addon was
    // loaded in, so it is told by its `then`, not by instanceof.
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      return result.then(undefined, rethrow);
    }
    return result;
  });
}
// State every load of lib/ in this thread shares (Jest loads lib/ once per test file,
// jest.isolateModules() again), kept on the addon's exports object, the one thing
// those loads have in common; `native` above is this load's own.
/** @template T @param {symbol} key @param {() => T} make @returns {T} */
function threadShared(key, make) {
  const slots = /** @type {any} */ (addon);
  if (!(key in slots)) slots[key] = make();
  return slots[key];
}
/** @type {import('./native').Native} */
const native = /** @type {any} */ ({});
for (const name of Object.keys(addon)) {
  const value = /** @type {any} */ (addon)[name];
  /** @type {any} */ (native)[name] = typeof value === 'function' ? throwing(value) : value;
}
// The addon's elementwise entry called directly (the per-call path of every op,
// bench "ops, per call"): throwing()'s rest-and-spread cost an array per call.
const elementwiseNative = /** @type {any} */ (addon).elementwise;
const elementwiseDenseNative = /** @type {any} */ (addon).elementwiseDense;
// fromBuffer's count (viewCount below), called directly for the same reason.
const bufferViewCountNative = /** @type {any} */ (addon).bufferViewCount;
/** @param {any} result */
const checked = (result) => {
  if (result === FAILED) throw adopt(addon.takeError());
  return result;
};
const { externalBuffers } = convention;
const scratch = new Float64Array(convention.scratch);
// The slot numbers, as constants: they sit on every hot path, where a
// property load per call shows in fromBuffer's time (figure: bench/README.md
// "FFI hand-off: toPointer / fromPointer", the calling-convention change).
/** @param {string} name */
function slotOf(name) {
  const at = convention.slots[name];
  if (!Number.isInteger(at)) {
    throw new DLPackError(`dlpack: the native addon has no scratch slot "${name}"; ` +
      'rebuild it with `npm rebuild dlpack --foreground-scripts`', 'ERR_DLPACK_NO_BINARY');
  }
  return at;
}
const NDIM = slotOf('ndim');
const DTYPE = slotOf('dtype');
const DEVICE_TYPE = slotOf('deviceType');
const DEVICE_ID = slotOf('deviceId');
const FLAGS = slotOf('flags');
const BYTE_OFFSET = slotOf('byteOffset');
const MAJOR = slotOf('major');
const MINOR = slotOf('minor');
const RESULT = slotOf('result');
const VIEW = slotOf('view');
const OFFSETS = slotOf('offsets');
const SHAPE = slotOf('shape');
const STRIDES = slotOf('strides');
const SOURCE_STRIDES = slotOf('sourceStrides');
const OPERAND_STRIDES = slotOf('operandStrides');
// The most dimensions a tensor may have (src/core/layout.h kMaxDims): the
// slots one list of strides takes, which the addon also states.
const MAX_DIMS = STRIDES - SHAPE;
if (convention.maxDims !== MAX_DIMS) {
  throw new DLPackError(`dlpack: the native addon's scratch block holds ${MAX_DIMS} dimensions and its ` +
    `tensors ${convention.maxDims}; rebuild it with \`npm rebuild dlpack --foreground-scripts\``,
  'ERR_DLPACK_NO_BINARY');
}
// The DLPack version the addon's structs state (src/core/dlpack_abi.h).
const dlpackVersion = Object.freeze({ major: convention.dlpackVersion.major, minor: convention.dlpackVersion.minor });
// The DLManagedTensorVersioned flag bits lib/ sets and reads (dlpack_abi.h).
const dlpackFlags = Object.freeze({ readOnly: convention.dlpackFlags.readOnly, isCopied: convention.dlpackFlags.isCopied });
// Buffers at least this large get transparent huge pages, when hugePageAdvice
// (DLPACK_HUGE_PAGES, and whether the VM's balloon takes free pages back:
// src/core/pages.h HugePageAdviceWanted).
const { hugePageAdviceMin, hugePageAdvice } = convention;
// The struct slab's states, field offsets and layout (src/core/struct_slab.h;
// lib/struct_slab.js reads them, docs/development.md "The struct slab").
const slabConvention = Object.freeze({
  states: Object.freeze({ ...convention.slab.states }),
  fields: Object.freeze({ ...convention.slab.fields }),
  layout: Object.freeze({ ...convention.slab.layout }),
});
const importResult = Object.freeze({ ...convention.importResult });
const viewFailure = Object.freeze({ ...convention.viewFailure });
const memoryKind = Object.freeze({ ...convention.memoryKind });
// The engine's ops by name (src/core/compute/elementwise.h DLNODE_ELEMENTWISE_OPS).
const opCodes = Object.freeze({ ...convention.ops });
// The device an op call names for the host (src/core/compute/elementwise_call.h kHostDevice).
const HOST_DEVICE = convention.hostDevice;
// DLPack's device type codes for the devices lib/device.js names.
const deviceCodes = Object.freeze({ ...convention.deviceCodes });
// The most threads dl.setNumThreads() takes (src/core/parallel.h kMaxThreads).
const { maxThreads } = convention;

// Why the addon's dtype table (src/core/dtype.h, [[name, code, bits], ...])
// and lib/dtypes.js's rows differ, or null when they agree row for row.
/** @param {import('./native').Convention['dtypes']} nativeRows */
function dtypeMismatch(nativeRows, jsRows = byIndex) {
  const rows = Math.max(nativeRows.length, jsRows.length);
  /** @param {DtypeRow | undefined} r */
  const show = (r) => (r === undefined ? 'nothing' : `${r.name} (code ${r.code}, ${r.bits} bits)`);
  for (let i = 0; i < rows; i++) {
    const n = nativeRows[i];
    const natural = n === undefined ? undefined : { name: n[0], code: n[1], bits: n[2] };
    const js = jsRows[i];
    if (natural === undefined || js === undefined || natural.name !== js.name || natural.code !== js.code ||
        natural.bits !== js.bits) {
      return `dtype ${i} is ${show(natural)} in the native addon and ${show(js)} in lib/dtypes.js`;
    }
  }
  return null;
}

// A binary built from other sources than this lib/ would misread every dtype
// index: refuse to load rather than mislabel memory.
/** @param {import('./native').Convention['dtypes']} nativeRows */
function checkDtypes(nativeRows, jsRows = byIndex) {
  const why = dtypeMismatch(nativeRows, jsRows);
  if (why !== null) {
    throw new DLPackError(`dlpack: the native addon does not match this package's JavaScript (${why}); ` +
      'rebuild it with `npm rebuild dlpack --foreground-scripts`', 'ERR_DLPACK_NO_BINARY');
  }
}
checkDtypes(convention.dtypes);

/** @param {readonly number[]} shape @param {readonly number[]} strides */
function writeShape(shape, strides) {
  scratch[NDIM] = shape.length;
  for (let i = 0; i < shape.length; i++) {
    scratch[SHAPE + i] = shape[i];
    scratch[STRIDES + i] = strides[i];
  }
}

/** @param {readonly number[]} strides */
function writeSourceStrides(strides) {
  for (let i = 0; i < strides.length; i++) scratch[SOURCE_STRIDES + i] = strides[i];
}

// fromBuffer's element count (src/core/buffer_view.h), or minus the
// viewFailure that refused it.
//
// CheckBufferView is a pure function of its five numbers, so the last count
// it gave is kept with the five and handed back when the same five come
// again, without the crossing (about a quarter of a fromBuffer call:
// bench/README.md "The per-call path"). Every count is still the native
// arithmetic's (libFuzzer's, test/fuzz) for exactly these inputs: each is
// compared with ===, which equates only -0 and 0, one input there (both are
// 0). Refusals are not kept. test/frombuffer.test.js changes one number at
// a time against a fresh native answer.
let lastLength = NaN; // equal to nothing: none kept yet
let lastBase = 0;
let lastItemSize = 0;
let lastOffset = 0;
let lastCount = 0;
let lastN = 0;
/** @param {number} length @param {number} base @param {number} itemSize @param {number} offset @param {number} count */
function viewCount(length, base, itemSize, offset, count) {
  if (length === lastLength && base === lastBase && itemSize === lastItemSize && offset === lastOffset &&
      count === lastCount) {
    return lastN;
  }
  return nativeViewCount(length, base, itemSize, offset, count);
}

/** @param {number} length @param {number} base @param {number} itemSize @param {number} offset @param {number} count */
function nativeViewCount(length, base, itemSize, offset, count) {
  scratch[VIEW] = length;
  scratch[VIEW + 1] = base;
  scratch[VIEW + 2] = itemSize;
  scratch[VIEW + 3] = offset;
  scratch[VIEW + 4] = count;
  const n = checked(bufferViewCountNative());
  if (n >= 0) {
    lastLength = length;
    lastBase = base;
    lastItemSize = itemSize;
    lastOffset = offset;
    lastCount = count;
    lastN = n;
  }
  return n;
}

// A new DLManagedTensor(Versioned) over `memory` (a Uint8Array over JS
// memory, or a native storage handle when `foreign`); its address as a BigInt.
/**
 * @param {Uint8Array | StorageHandle} memory @param {boolean} foreign @param {boolean} versioned
 * @param {readonly number[]} shape @param {readonly number[]} strides @param {number} byteOffset
 * @param {number} dtypeIndex @param {number} dlFlags @param {number} deviceCode @param {number} deviceIndex
 */
function exportStruct(memory, foreign, versioned, shape, strides, byteOffset, dtypeIndex, dlFlags, deviceCode,
  deviceIndex) {
  writeShape(shape, strides);
  scratch[BYTE_OFFSET] = byteOffset;
  scratch[DTYPE] = dtypeIndex;
  scratch[FLAGS] = dlFlags;
  scratch[DEVICE_TYPE] = deviceCode;
  scratch[DEVICE_ID] = deviceIndex;
  return native.exportTensor(memory, foreign, versioned);
}

// Adopts a producer's struct: its native handle, the version the struct
// states (0.0 for a legacy one), and its device as DLPack codes (type -1
// where the version leaves the layout unknown).
/** @param {bigint} pointer @param {boolean} versioned */
function adoptPointer(pointer, versioned) {
  const handle = native.capsuleFromPointer(pointer, versioned);
  return {
    handle,
    major: scratch[MAJOR],
    minor: scratch[MINOR],
    deviceType: scratch[DEVICE_TYPE],
    deviceId: scratch[DEVICE_ID],
  };
}

// Runs the import checklist on an adopted struct (src/addon/import.h):
// `result` is a typed array over our own JS memory (kind
// importResult.jsBuffer), a storage handle (foreign) or an ArrayBuffer
// holding a copy (copied), with the layout the struct describes.
/** @param {import('./native').CapsuleHandle} handle @param {boolean} allowCopy */
function importStruct(handle, allowCopy) {
  const result = native.importCapsule(handle, allowCopy);
  const ndim = scratch[NDIM];
  const shape = new Array(ndim);
  const strides = new Array(ndim);
  for (let i = 0; i < ndim; i++) {
    shape[i] = scratch[SHAPE + i];
    strides[i] = scratch[STRIDES + i];
  }
  return {
    result,
    kind: scratch[RESULT],
    dtypeIndex: scratch[DTYPE],
    dlFlags: scratch[FLAGS],
    byteOffset: scratch[BYTE_OFFSET],
    deviceType: scratch[DEVICE_TYPE],
    deviceId: scratch[DEVICE_ID],
    shape,
    strides,
  };
}

// dst <- src element by element with conversion (src/addon/copy.h); memory
// as lib/storage.js hostArg() gives it, offsets in bytes, dtypes indices.
// `stage`: undefined on this thread; a number, the asynchronous form, which
// returns a Promise that settles once the copy has run, with its operands'
// stage mask (lib/route.js jobMask). Likewise for the op wrappers below.
/**
 * @param {HostMemory} dst @param {number} dstOffset @param {number} dstDtype
 * @param {HostMemory} src @param {number} srcOffset @param {number} srcDtype
 * @param {readonly number[]} shape @param {readonly number[]} dstStrides @param {readonly number[]} srcStrides
 * @param {number} [stage]
 */
function copyStrided(dst, dstOffset, dstDtype, src, srcOffset, srcDtype, shape, dstStrides, srcStrides,
  stage = undefined) {
  writeShape(shape, dstStrides);
  writeSourceStrides(srcStrides);
  if (stage !== undefined) return native.copyStridedAsync(dst, dstOffset, dstDtype, src, srcOffset, srcDtype, stage);
  return native.copyStrided(dst, dstOffset, dstDtype, src, srcOffset, srcDtype);
}

// The CUDA kernels between two views on one device (src/addon/cuda.h).
/**
 * @param {number} device @param {StorageHandle} dstHandle @param {number} dstOffset
 * @param {StorageHandle} srcHandle @param {number} srcOffset @param {number} itemSize @param {bigint} stream
 * @param {readonly number[]} shape @param {readonly number[]} dstStrides @param {readonly number[]} srcStrides
 */
function cudaStridedCopy(device, dstHandle, dstOffset, srcHandle, srcOffset, itemSize, stream, shape, dstStrides,
  srcStrides) {
  writeShape(shape, dstStrides);
  writeSourceStrides(srcStrides);
  native.cudaStridedCopy(device, dstHandle, dstOffset, srcHandle, srcOffset, itemSize, stream);
}

/**
 * @param {number} device @param {StorageHandle} dstHandle @param {number} dstOffset @param {DtypeRow} to
 * @param {StorageHandle} srcHandle @param {number} srcOffset @param {DtypeRow} from @param {bigint} stream
 * @param {readonly number[]} shape @param {readonly number[]} dstStrides @param {readonly number[]} srcStrides
 */
function cudaConvert(device, dstHandle, dstOffset, to, srcHandle, srcOffset, from, stream, shape, dstStrides,
  srcStrides) {
  writeShape(shape, dstStrides);
  writeSourceStrides(srcStrides);
  native.cudaConvert(device, dstHandle, dstOffset, to.code, to.bits, srcHandle, srcOffset, from.code, from.bits,
    stream);
}

// Input k of an op as the addon reads it (host and device alike): a number as
// itself; a tensor as its memory, its strides written to the scratch block
// (input 0's in kSourceStrides, the others' in kOperandStrides).
/**
 * @param {number | { memory: any, strides: readonly number[] }} v @param {number} k
 * @param {readonly number[]} shape
 */
function inputArg(v, k, shape) {
  if (typeof v === 'number') return v;
  const at = k === 0 ? SOURCE_STRIDES : OPERAND_STRIDES + (k - 1) * MAX_DIMS;
  const strides = v.strides;
  for (let i = 0; i < shape.length; i++) scratch[at + i] = strides[i];
  return v.memory;
}

// elementwise()'s dense form (src/addon/ops.h ElementwiseDense), on the host
// on this thread: out and every tensor input row-major over `n` elements, so
// no shape or strides are written, and the offsets travel in the scratch
// block (the call takes at most six arguments). out and each tensor input are
// their memory (lib/storage.js hostArg) and byte offset; an input may be a
// number (its offset ignored).
/**
 * @param {number} op @param {number} dtypeIndex @param {number} n @param {HostMemory | StorageHandle} out
 * @param {number} outOffset @param {HostMemory | StorageHandle | number} a @param {number} aOffset
 * @param {HostMemory | StorageHandle | number} [b] @param {number} [bOffset]
 * @returns {void}
 */
function elementwiseDense(op, dtypeIndex, n, out, outOffset, a, aOffset, b, bOffset) {
  scratch[SHAPE] = n;
  scratch[OFFSETS] = outOffset;
  scratch[OFFSETS + 1] = aOffset;
  if (b === undefined) return native.elementwiseDense(op, dtypeIndex, out, a);
  scratch[OFFSETS + 2] = /** @type {number} */ (bOffset);
  return checked(elementwiseDenseNative(op, dtypeIndex, out, a, b));
}

// out = op(inputs) over the broadcast `shape` (src/addon/ops.h, one entry for
// the host and CUDA): on `device` (HOST_DEVICE, or a CUDA device's index,
// whose kernel is enqueued on `stream`), on this thread or (`stage` given, the
// host only) on a libuv thread. out is its memory (lib/storage.js hostArg on
// the host, nativeArg on a device), byte offset and strides; each input a
// number or { memory, offset, strides } (strides already broadcast to
// `shape`). `stage`: bit i stages the i-th tensor operand (lib/route.js
// jobMask).
/**
 * @param {number} device @param {number} op @param {number} dtypeIndex @param {bigint} stream
 * @param {readonly number[]} shape @param {HostMemory | StorageHandle} out @param {number} outOffset
 * @param {readonly number[]} outStrides
 * @param {Array<number | { memory: HostMemory | StorageHandle, offset: number, strides: readonly number[] }>} inputs
 * @param {number} [stage]
 * @returns {void | Promise<void>}
 */
function elementwise(device, op, dtypeIndex, stream, shape, out, outOffset, outStrides, inputs, stage = undefined) {
  writeShape(shape, outStrides);
  const n = inputs.length;
  // The common arities spelt out: no argument array is built per call.
  if (stage === undefined && n === 2) {
    const a = inputs[0];
    const b = inputs[1];
    return checked(elementwiseNative(device, op, dtypeIndex, stream, out, outOffset, inputArg(a, 0, shape),
      typeof a === 'number' ? 0 : a.offset, inputArg(b, 1, shape), typeof b === 'number' ? 0 : b.offset));
  }
  if (stage === undefined && n === 1) {
    const a = inputs[0];
    return checked(elementwiseNative(device, op, dtypeIndex, stream, out, outOffset, inputArg(a, 0, shape),
      typeof a === 'number' ? 0 : a.offset));
  }
  /** @type {[number, number, number, bigint, HostMemory | StorageHandle, number, ...any[]]} */
  const args = [device, op, dtypeIndex, stream, out, outOffset];
  for (let k = 0; k < n; k++) {
    const v = inputs[k];
    args.push(inputArg(v, k, shape), typeof v === 'number' ? 0 : v.offset);
  }
  if (stage === undefined) return native.elementwise(...args);
  args.push(stage); // the binding reads it last
  return native.elementwiseAsync(...args);
}

// dl.normalize's one pass (src/addon/normalize.h): on the host (device
// HOST_DEVICE) or as the one-pass kernel on CUDA device `device`, enqueued on
// `stream`; out and input are their memory (hostArg on the host, nativeArg on
// a device) with byte offsets and strides. True where the pass ran (always on
// the host); false, with nothing enqueued, where the device's kernel does not
// take the case. With `stage` (the host's async form), a Promise instead.
/**
 * @param {number} device @param {number} inDtype @param {number} outDtype @param {bigint} stream
 * @param {readonly number[]} shape @param {HostMemory | StorageHandle} out @param {number} outOffset
 * @param {readonly number[]} outStrides @param {HostMemory | StorageHandle} input @param {number} inOffset
 * @param {readonly number[]} inStrides @param {Float64Array} meanStd @param {number} scale
 * @param {number} [stage]
 * @returns {boolean | Promise<void>}
 */
function normalize(device, inDtype, outDtype, stream, shape, out, outOffset, outStrides, input, inOffset, inStrides,
  meanStd, scale, stage = undefined) {
  writeShape(shape, outStrides);
  writeSourceStrides(inStrides);
  return stage !== undefined ?
    native.normalizeAsync(device, inDtype, outDtype, stream, out, outOffset, input, inOffset, meanStd, scale, stage) :
    native.normalize(device, inDtype, outDtype, stream, out, outOffset, input, inOffset, meanStd, scale);
}

// The reductions' op numbers and result dtypes (src/addon/reduce.h).
const reduceTable = native.reduceTable();

// One reduction (src/addon/reduce.h): on the host (device HOST_DEVICE) or as
// the row kernels on CUDA device `device`, enqueued on `stream`; memory is
// hostArg on the host, nativeArg on a device, with byte offsets. sum/mean/
// amax/amin reduce the last `reducedOrDim` dims of the source (dims in the
// order given) into contiguous values; max/min, softmax/logSoftmax and topk
// run along dim `reducedOrDim`, their results at `outStrides` (per source
// dim; either result's memory may be null where the op has none). True where
// it ran (always on the host); false, with nothing enqueued, where the
// device's kernels do not take the operands as they are. With `stage` (the
// host's async form), a Promise instead.
/**
 * @param {number} op @param {number} device @param {bigint} stream
 * @param {HostMemory | StorageHandle} src @param {number} srcOffset @param {number} srcDtype
 * @param {readonly number[]} shape @param {readonly number[]} strides @param {number} reducedOrDim
 * @param {readonly number[]} outStrides @param {HostMemory | StorageHandle | null} values
 * @param {number} valuesOffset @param {HostMemory | StorageHandle | null} indices @param {number} indicesOffset
 * @param {number} k @param {boolean} largest @param {boolean} sorted @param {number} [stage]
 * @returns {boolean | Promise<void>}
 */
function reduce(op, device, stream, src, srcOffset, srcDtype, shape, strides, reducedOrDim, outStrides, values,
  valuesOffset, indices, indicesOffset, k, largest, sorted, stage = undefined) {
  writeShape(shape, strides);
  writeSourceStrides(outStrides);
  if (stage !== undefined) {
    return native.reduceAsync(op, device, stream, src, srcOffset, srcDtype, reducedOrDim, values, valuesOffset,
      indices, indicesOffset, k, largest, sorted, stage);
  }
  return native.reduce(op, device, stream, src, srcOffset, srcDtype, reducedOrDim, values, valuesOffset, indices,
    indicesOffset, k, largest, sorted);
}

// --- the compute families (src/addon/linalg.h) ---------------------------------
// Each operand: { memory, offset, strides } (memory: host memory, or a CUDA
// storage handle for matmul on a device), offsets in bytes; `place`
// { deviceType, deviceId, stream }; `stage` as for the wrappers above.

/** @param {number} at @param {readonly number[]} strides */
function writeStridesAt(at, strides) {
  for (let i = 0; i < strides.length; i++) scratch[at + i] = strides[i];
}

/** @typedef {{ memory: HostMemory, offset: number, strides: readonly number[] }} FamilyOperand */
/** @typedef {{ deviceType: number, deviceId: number, stream: bigint }} FamilyPlace */

// out[..., m, n] = a[..., m, k] b[..., k, n] (+ bias[n]); every operand of
// out's rank, batch dims broadcast (stride 0).
/**
 * @param {number} dtypeIndex @param {readonly number[]} shape @param {FamilyOperand} out
 * @param {FamilyOperand} a @param {FamilyOperand} b @param {number} k
 * @param {{ memory: HostMemory, offset: number, stride: number } | null} bias @param {FamilyPlace} place
 * @param {number} [stage]
 * @returns {void | Promise<void>}
 */
function matmul(dtypeIndex, shape, out, a, b, k, bias, place, stage = undefined) {
  writeShape(shape, out.strides);
  writeStridesAt(SOURCE_STRIDES, a.strides);
  writeStridesAt(OPERAND_STRIDES, b.strides);
  const m = bias === null ? null : bias.memory;
  const bo = bias === null ? 0 : bias.offset;
  const bs = bias === null ? 0 : bias.stride;
  if (stage === undefined) {
    return native.matmul(dtypeIndex, a.memory, a.offset, b.memory, b.offset, m, bo, bs, out.memory, out.offset, k,
      place.deviceType, place.deviceId, place.stream);
  }
  return native.matmulAsync(dtypeIndex, a.memory, a.offset, b.memory, b.offset, m, bo, bs, out.memory, out.offset, k,
    place.deviceType, place.deviceId, place.stream, stage);
}

// The statistics' op numbers (src/core/compute/stats.h DLNODE_STATS_OPS).
const statisticsTable = native.statisticsTable();

// var/std/varMean/stdMean/vectorNorm over the last `reduced` dims of `input`
// (shape `shape`), into `out` (and `mean`, or null) of the kept dims.
/**
 * @param {number} op @param {number} dtypeIndex @param {readonly number[]} shape @param {FamilyOperand} input
 * @param {number} reduced @param {number} correction @param {number} ord @param {FamilyOperand} out
 * @param {FamilyOperand | null} mean @param {number} [stage]
 * @returns {void | Promise<void>}
 */
function statistics(op, dtypeIndex, shape, input, reduced, correction, ord, out, mean, stage = undefined) {
  writeShape(shape, input.strides);
  writeStridesAt(SOURCE_STRIDES, out.strides);
  if (mean !== null) writeStridesAt(OPERAND_STRIDES, mean.strides);
  const mm = mean === null ? null : mean.memory;
  const mo = mean === null ? 0 : mean.offset;
  if (stage === undefined) {
    return native.statistics(op, dtypeIndex, input.memory, input.offset, reduced, correction, ord, out.memory,
      out.offset, mm, mo);
  }
  return native.statisticsAsync(op, dtypeIndex, input.memory, input.offset, reduced, correction, ord, out.memory,
    out.offset, mm, mo, stage);
}

// layerNorm (kind 0), cosineSimilarity (1), lpNormalize (2): x of `shape`,
// y and z (or null) as src/addon/linalg.h Norms reads them.
/**
 * @param {number} kind @param {number} dtypeIndex @param {readonly number[]} shape @param {FamilyOperand} x
 * @param {FamilyOperand | null} y @param {FamilyOperand | null} z @param {FamilyOperand} out
 * @param {number} normalized @param {number} p @param {number} eps @param {number} [stage]
 * @returns {void | Promise<void>}
 */
function norms(kind, dtypeIndex, shape, x, y, z, out, normalized, p, eps, stage = undefined) {
  writeShape(shape, x.strides);
  writeStridesAt(SOURCE_STRIDES, out.strides);
  if (y !== null) writeStridesAt(OPERAND_STRIDES, y.strides);
  if (z !== null) writeStridesAt(OPERAND_STRIDES + MAX_DIMS, z.strides);
  const ym = y === null ? null : y.memory;
  const zm = z === null ? null : z.memory;
  const yo = y === null ? 0 : y.offset;
  const zo = z === null ? 0 : z.offset;
  if (stage === undefined) {
    return native.norms(kind, dtypeIndex, x.memory, x.offset, ym, yo, zm, zo, out.memory, out.offset, normalized, p,
      eps);
  }
  return native.normsAsync(kind, dtypeIndex, x.memory, x.offset, ym, yo, zm, zo, out.memory, out.offset, normalized,
    p, eps, stage);
}

// --- issue 40's host families (src/addon/compute_families.h) ---------------------------
// Each operand is four arguments (src/addon/compute_view.h): its memory (null:
// none), byte offset, dtype index and [...shape, ...strides].
/** @typedef {[HostMemory | null, number, number, number[]]} ViewArgs */

// The random ops' numbers (DLNODE_RANDOM_OPS).
const computeTable = native.computeTable();

/** @param {ViewArgs} input @param {boolean} descending @param {ViewArgs} values @param {ViewArgs} indices */
function sortLanes(input, descending, values, indices) {
  native.sortLanes(...input, descending, ...values, ...indices);
}

/** @param {boolean} product @param {ViewArgs} input @param {ViewArgs} out */
function scanLanes(product, input, out) {
  native.scanLanes(product, ...input, ...out);
}

/** @param {number} kind @param {ViewArgs} input @param {number} dim @param {ViewArgs} index @param {ViewArgs} out */
function indexGather(kind, input, dim, index, out) {
  native.indexGather(kind, ...input, dim, ...index, ...out);
}

/** @param {ViewArgs} input @param {ViewArgs} out @returns {number} */
function indexNonzero(input, out) {
  return native.indexNonzero(...input, ...out);
}

/**
 * @param {number} op @param {bigint} seed @param {bigint} offset @param {bigint} low @param {bigint} high
 * @param {ViewArgs} out @returns {bigint}
 */
function randomFill(op, seed, offset, low, high, out) {
  return native.randomFill(op, seed, offset, low, high, ...out);
}

/**
 * @param {ViewArgs} probs @param {number} samples @param {boolean} replacement @param {bigint} seed
 * @param {bigint} offset @param {ViewArgs} out @returns {bigint}
 */
function randomMultinomial(probs, samples, replacement, seed, offset, out) {
  return native.randomMultinomial(...probs, samples, replacement, seed, offset, ...out);
}

/** @param {ViewArgs} a @param {ViewArgs} b @param {ViewArgs} out */
function boxesIou(a, b, out) {
  native.boxesIou(...a, ...b, ...out);
}

/**
 * @param {ViewArgs} boxes @param {ViewArgs} scores @param {ViewArgs} idxs @param {number} iouThreshold
 * @param {ViewArgs} keep @returns {number}
 */
function boxesNms(boxes, scores, idxs, iouThreshold, keep) {
  return native.boxesNms(...boxes, ...scores, ...idxs, iouThreshold, ...keep);
}

/**
 * @param {ViewArgs} input @param {boolean} bilinear @param {boolean} alignCorners @param {number} scaleH
 * @param {number} scaleW @param {ViewArgs} out
 */
function interpolateNchw(input, bilinear, alignCorners, scaleH, scaleW, out) {
  native.interpolateNchw(...input, bilinear, alignCorners, scaleH, scaleW, ...out);
}

module.exports = {
  native, threadShared, opCodes, HOST_DEVICE, deviceCodes, maxThreads, MAX_DIMS, dlpackVersion, dlpackFlags, hugePageAdviceMin, hugePageAdvice, slabConvention, elementwise, elementwiseDense, normalize, externalBuffers, importResult, viewFailure, memoryKind,
  checkDtypes, dtypeMismatch, viewCount, exportStruct, adoptPointer, importStruct, copyStrided, cudaStridedCopy,
  cudaConvert, reduceTable, reduce,
  matmul, statisticsTable, statistics, norms,
  computeTable, sortLanes, scanLanes, indexGather, indexNonzero, randomFill, randomMultinomial, boxesIou, boxesNms,
  interpolateNchw,
};
