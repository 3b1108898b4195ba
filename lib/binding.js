'use strict';
// Loads the native addon once per realm and registers the error factory and
// dtype table. The scratch block is a Float64Array shared with native code;
// its slot numbers mirror src/addon/env_state.h.
const path = require('path');
const { makeError } = require('./errors');
const { byIndex } = require('./dtypes');

// A local build (a checkout, or a source build) wins over the prebuilt binary
// shipped in the package; DLPACK_ADDON_PATH names another build outright.
function load() {
  if (process.env.DLPACK_ADDON_PATH) return require(path.resolve(process.env.DLPACK_ADDON_PATH));
  const target = `${process.platform}-${process.arch}`;
  const candidates = [
    '../build/Release/dlpack.node',
    `../prebuilds/${target}/dlpack.node`,
    '../build/Debug/dlpack.node',
  ];
  const tried = [];
  for (const candidate of candidates) {
    try {
      return require(candidate);
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND') throw error; // present but broken: say so
      tried.push(path.resolve(__dirname, candidate));
    }
  }
  throw new Error(
    `dlpack: no native addon for ${target} (looked for ${tried.join(', ')}). ` +
    'Build it from source with `npm rebuild dlpack --foreground-scripts` ' +
    '(needs a C++ compiler, make and python3).');
}

const native = load();
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
