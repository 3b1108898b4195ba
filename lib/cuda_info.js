'use strict';
// Whether CUDA is usable here, and the error that says why not. Whether CUDA
// is compiled in is fixed at build time; whether it is usable is asked of the
// driver once per process (the answer does not change). A leaf under
// lib/device.js and lib/cuda.js.
const { native } = require('./binding');
const { makeError } = require('./errors');

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

module.exports = { info, isAvailable, deviceCount, reason, unavailable };
