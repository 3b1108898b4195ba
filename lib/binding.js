'use strict';
// Loads the native addon once per realm and registers the error factory and
// dtype table. The scratch block is a Float64Array shared with native code;
// its slot numbers mirror src/addon/env_state.h.
const { makeError } = require('./errors');
const { byIndex } = require('./dtypes');

const native = require('./load').load(); // a local build, else the prebuilt binary (lib/load.js)
// `warn` reports other threads' ends (src/addon/env_state.h EnvLink).
const warn = (message) => process.emitWarning(message, { code: 'DLPACK_THREAD_MEMORY' });
const { scratch: scratchBuffer, externalBuffers } = native.init(
  makeError, byIndex.map((d) => [d.code, d.bits]), warn, require('worker_threads').isMainThread);
const scratch = new Float64Array(scratchBuffer);

const slot = {
  ndim: 0, dtype: 1, deviceType: 2, deviceId: 3, flags: 4, byteOffset: 5, extent: 6,
  major: 7, minor: 8, result: 9, view: 10, shape: 16, strides: 80, sourceStrides: 144,
};

function writeShape(shape, strides, stridesSlot = slot.strides) {
  scratch[slot.ndim] = shape.length;
  for (let i = 0; i < shape.length; i++) {
    scratch[slot.shape + i] = shape[i];
    scratch[stridesSlot + i] = strides[i];
  }
}

module.exports = { native, scratch, slot, writeShape, externalBuffers };
