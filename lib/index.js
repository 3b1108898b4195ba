'use strict';
// dlpack for Node.js: the public surface (API.md).
const { dtypes } = require('./dtypes');
const { DLPackError, CudaError } = require('./errors');
const { Device } = require('./device');
const { Tensor } = require('./tensor');
const { DLPackCapsule, dlpackVersion, toDLPack, fromDLPack } = require('./dlpack');
const { fromBuffer, empty, zeros, tensor } = require('./create');
const { open, wasm } = require('./sharing');

const { cuda, capabilities } = require('./cuda');

// The folder holding the Python half (dlpack_node), for sys.path / PYTHONPATH.
const pythonPath = require('path').join(__dirname, '..', 'python');

module.exports = {
  dtypes,
  dlpackVersion,
  pythonPath,
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
  capabilities,
};
