'use strict';
// dlpack for Node.js: the public surface (API.md).
const { dtypes } = require('./dtypes');
const { DLPackError, CudaError } = require('./errors');
const { Device } = require('./device');
const { Tensor } = require('./tensor');
const { DLPackCapsule, dlpackVersion, toDLPack, fromDLPack } = require('./dlpack');
const { fromBuffer, empty, zeros, tensor } = require('./create');
const { open, wasm } = require('./sharing');

// CUDA is not compiled into this build: the honest answers, no device calls.
const cuda = Object.freeze({
  isAvailable: () => false,
  deviceCount: () => 0,
});

module.exports = {
  dtypes,
  dlpackVersion,
  Tensor,
  Device,
  DLPackCapsule,
  DLPackError,
  CudaError,
  fromBuffer,
  frombuffer: fromBuffer,
  empty,
  zeros,
  tensor,
  fromDLPack,
  from_dlpack: fromDLPack,
  toDLPack,
  to_dlpack: toDLPack,
  open,
  wasm,
  cuda,
};
