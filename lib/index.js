'use strict';
// dlpack for Node.js: the public surface (docs/API.md).
const { dtypes } = require('./dtypes');
const { DLPackError, CudaError } = require('./errors');
const { Device } = require('./device');
const { Tensor, connect, installMethods } = require('./tensor');
const { DLPackCapsule, dlpackVersion, toDLPack, fromDLPack } = require('./capsule');
const {
  fromBuffer, empty, zeros, ones, full, arange, emptyLike, zerosLike, onesLike, fullLike, tensor, valuesFrom, scalarTensor,
  fill,
} = require('./create');
const { open, wasm, share, shareMemory, toShared } = require('./sharing');
const { cat, stack } = require('./batch');
const ops = require('./ops');
const { normalize } = require('./normalize');
const reduce = require('./reduce');
const linalg = require('./linalg');
const stats = require('./stats');
const sorting = require('./sort');
const indexing = require('./indexing');
const random = require('./random');
const vision = require('./vision');

const { cuda, capabilities } = require('./cuda');
const python = require('./python');
const { fromArrow, fromArrowIPC, toArrow, toArrowTable, toArrowIPCChunks } = require('./arrow');
const ray = require('./ray');

// The tensor core calls up into the layers built on it through these.
connect({ toDLPack, share, shareMemory, toShared, valuesFrom, scalarTensor, fill, toArrow });
// The modules above that own Tensor methods install them (lib/tensor.js installMethods).
installMethods(ops.tensorMethods);
installMethods(linalg.tensorMethods);
installMethods(stats.tensorMethods);
installMethods(reduce.tensorMethods);

// issue 40's host families install their own Tensor methods.
for (const family of [sorting, indexing, random]) installMethods(family.tensorMethods);

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
  ones,
  full,
  arange,
  emptyLike,
  zerosLike,
  onesLike,
  fullLike,
  tensor,
  cat,
  stack,
  ...ops.functions,
  ...ops.rules,
  normalize,
  setNumThreads: ops.setNumThreads,
  getNumThreads: ops.getNumThreads,
  sum: reduce.sum,
  mean: reduce.mean,
  amax: reduce.amax,
  amin: reduce.amin,
  max: reduce.max,
  min: reduce.min,
  argmax: reduce.argmax,
  argmin: reduce.argmin,
  softmax: reduce.softmax,
  logSoftmax: reduce.logSoftmax,
  topk: reduce.topk,
  matmul: linalg.matmul,
  mm: linalg.mm,
  bmm: linalg.bmm,
  linear: linalg.linear,
  var: stats.var,
  std: stats.std,
  varMean: stats.varMean,
  stdMean: stats.stdMean,
  vectorNorm: stats.vectorNorm,
  layerNorm: stats.layerNorm,
  cosineSimilarity: stats.cosineSimilarity,
  lpNormalize: stats.lpNormalize,
  ...sorting.functions,
  ...indexing.functions,
  Generator: random.Generator,
  ...random.functions,
  ops: vision.ops,
  interpolate: vision.interpolate,
  fromDLPack,
  from_dlpack: fromDLPack,
  toDLPack,
  to_dlpack: toDLPack,
  open,
  wasm,
  cuda,
  capabilities,
  python: { spawn: python.spawn, PythonWorker: python.PythonWorker },
  fromArrow,
  fromArrowIPC,
  toArrowTable,
  toArrowIPCChunks,
  ray: { connect: ray.connect, RayClient: ray.RayClient, RayRef: ray.RayRef },
};
