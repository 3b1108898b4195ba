'use strict';
// The calling convention with the native addon, in one place. The addon
// hands its lists over at load (src/addon/convention.h: the scratch block's
// slots, the numbers that come back, the dtype table); this is the one lib
// file that reads or writes the scratch block, a Float64Array shared with
// native code that carries shapes, strides and numbers without building
// arguments. The rest of lib/ calls the wrappers below with plain values, or
// `native` directly for calls that take only arguments.
const { DLPackError, makeError } = require('./errors');
const { byIndex } = require('./dtypes');

const native = require('./load').load(); // a local build, else the prebuilt binary (lib/load.js)
// `warn` reports other threads' ends (src/addon/env_state.h EnvLink).
const warn = (message) => process.emitWarning(message, { code: 'DLPACK_THREAD_MEMORY' });
const convention = native.init(makeError, warn, require('worker_threads').isMainThread);
const { externalBuffers } = convention;
const scratch = new Float64Array(convention.scratch);
// The slot numbers, as constants: they sit on every hot path, and a load
// from an object costs fromBuffer about 10 ns more (bench/README.md).
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
const SHAPE = slotOf('shape');
const STRIDES = slotOf('strides');
const SOURCE_STRIDES = slotOf('sourceStrides');
const importResult = Object.freeze({ ...convention.importResult });
const viewFailure = Object.freeze({ ...convention.viewFailure });
const memoryKind = Object.freeze({ ...convention.memoryKind });

// Why the addon's dtype table (src/core/dtype.h, [[name, code, bits], ...])
// and lib/dtypes.js's rows differ, or null when they agree row for row.
function dtypeMismatch(nativeRows, jsRows = byIndex) {
  const rows = Math.max(nativeRows.length, jsRows.length);
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
function checkDtypes(nativeRows, jsRows = byIndex) {
  const why = dtypeMismatch(nativeRows, jsRows);
  if (why !== null) {
    throw new DLPackError(`dlpack: the native addon does not match this package's JavaScript (${why}); ` +
      'rebuild it with `npm rebuild dlpack --foreground-scripts`', 'ERR_DLPACK_NO_BINARY');
  }
}
checkDtypes(convention.dtypes);

function writeShape(shape, strides) {
  scratch[NDIM] = shape.length;
  for (let i = 0; i < shape.length; i++) {
    scratch[SHAPE + i] = shape[i];
    scratch[STRIDES + i] = strides[i];
  }
}

function writeSourceStrides(strides) {
  for (let i = 0; i < strides.length; i++) scratch[SOURCE_STRIDES + i] = strides[i];
}

// fromBuffer's element count (src/core/buffer_view.h), or minus the
// viewFailure that refused it.
function viewCount(length, base, itemSize, offset, count) {
  scratch[VIEW] = length;
  scratch[VIEW + 1] = base;
  scratch[VIEW + 2] = itemSize;
  scratch[VIEW + 3] = offset;
  scratch[VIEW + 4] = count;
  return native.bufferViewCount();
}

// A new DLManagedTensor(Versioned) over `memory` (a Uint8Array over JS
// memory, or a native storage handle when `foreign`); its address as a BigInt.
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

// dst <- src element by element with conversion (src/addon/copy.h); bytes
// are Uint8Arrays, offsets in bytes, dtypes indices.
function copyStrided(dstBytes, dstOffset, dstDtype, srcBytes, srcOffset, srcDtype, shape, dstStrides, srcStrides) {
  writeShape(shape, dstStrides);
  writeSourceStrides(srcStrides);
  native.copyStrided(dstBytes, dstOffset, dstDtype, srcBytes, srcOffset, srcDtype);
}

// The CUDA kernels between two views on one device (src/addon/cuda.h).
function cudaStridedCopy(device, dstHandle, dstOffset, srcHandle, srcOffset, itemSize, stream, shape, dstStrides,
  srcStrides) {
  writeShape(shape, dstStrides);
  writeSourceStrides(srcStrides);
  native.cudaStridedCopy(device, dstHandle, dstOffset, srcHandle, srcOffset, itemSize, stream);
}

function cudaConvert(device, dstHandle, dstOffset, to, srcHandle, srcOffset, from, stream, shape, dstStrides,
  srcStrides) {
  writeShape(shape, dstStrides);
  writeSourceStrides(srcStrides);
  native.cudaConvert(device, dstHandle, dstOffset, to.code, to.bits, srcHandle, srcOffset, from.code, from.bits,
    stream);
}

// The reductions' op numbers and result dtypes (src/addon/reduce.h).
const reduceTable = native.reduceTable();

// sum/mean/amax/amin of a source whose last `reduced` dims are reduced, into
// contiguous results at dstOffset (src/addon/reduce.h); offsets in bytes.
function reduceDims(op, srcBytes, srcOffset, srcDtype, shape, strides, reduced, dstBytes, dstOffset) {
  writeShape(shape, strides);
  native.reduceDims(op, srcBytes, srcOffset, srcDtype, reduced, dstBytes, dstOffset);
}

// max/min, softmax/logSoftmax, topk along `dim`; results at `outStrides`
// (per source dim); either result's bytes may be null where the op has none.
function reduceLanes(op, srcBytes, srcOffset, srcDtype, shape, strides, dim, outStrides, valuesBytes, valuesOffset,
  indicesBytes, indicesOffset, k, largest, sorted) {
  writeShape(shape, strides);
  writeSourceStrides(outStrides);
  native.reduceLanes(op, srcBytes, srcOffset, srcDtype, dim, valuesBytes, valuesOffset, indicesBytes, indicesOffset,
    k, largest, sorted);
}

module.exports = {
  native, externalBuffers, importResult, viewFailure, memoryKind, checkDtypes, dtypeMismatch, viewCount, exportStruct,
  adoptPointer, importStruct, copyStrided, cudaStridedCopy, cudaConvert, reduceTable, reduceDims, reduceLanes,
};
