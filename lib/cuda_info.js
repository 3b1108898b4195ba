'use strict';
// Whether CUDA is usable here, and the error that says why not. Whether CUDA
// is compiled in is fixed at build time; whether it is usable is asked of the
// driver once per process (the answer does not change). A leaf under
// lib/device.js and lib/cuda.js.
const fs = require('fs');
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
  if (i.deviceCount === 0 && i.errorName === 'cudaErrorInsufficientDriver' && !driverPresent()) {
    // The runtime says "driver version is insufficient" also when there is no
    // driver at all, which reads as "upgrade your driver".
    return 'no usable CUDA device (no NVIDIA driver was found: no kernel module in /proc/driver/nvidia, ' +
      'and libcuda.so.1 did not load)';
  }
  if (i.deviceCount === 0) return `no usable CUDA device (${i.errorName || 'no device'}: ${i.reason || 'none found'})`;
  return null;
}

// Whether an NVIDIA driver is here: its kernel module, or its user-space
// library (which the CUDA runtime has tried to load by now) in this process.
function driverPresent() {
  if (fs.existsSync('/proc/driver/nvidia/version')) return true;
  try {
    return /\/libcuda\.so/.test(fs.readFileSync('/proc/self/maps', 'utf8'));
  } catch {
    return true; // cannot tell: keep the runtime's own words
  }
}

function unavailable(what) {
  return makeError('ERR_DLPACK_CUDA_UNAVAILABLE', `Expected a usable CUDA device for ${what}, but ${reason()}`,
    info().errorName || 'cudaErrorNoDevice');
}

module.exports = { info, isAvailable, deviceCount, reason, unavailable };
