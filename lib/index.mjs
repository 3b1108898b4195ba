// ESM entry: the same objects as the CommonJS entry, every name of it
// (test/architecture.test.js checks that the two lists agree).
import { createRequire } from 'node:module';

const dl = createRequire(import.meta.url)('./index.js');

export const {
  dtypes, dlpackVersion, pythonPath, Tensor, Device, DLPackCapsule, DLPackError, CudaError,
  fromBuffer, frombuffer, empty, zeros, ones, full, arange, emptyLike, zerosLike, onesLike, fullLike, tensor, cat,
  stack,
  add, sub, mul, div, maximum, minimum, pow, eq, ne, lt, le, gt, ge, where,
  neg, abs, exp, log, sqrt, sigmoid, tanh, round, clamp, normalize,
  relu, gelu, silu, erf, log1p, expm1, floor, ceil, trunc, sin, cos, rsqrt, reciprocal, sign,
  resultType, promoteTypes, canCast, broadcastShapes, setNumThreads, getNumThreads,
  sum, mean, amax, amin, max, min, argmax, argmin, softmax, logSoftmax, topk,
  matmul, mm, bmm, linear, std, varMean, stdMean, vectorNorm, layerNorm, cosineSimilarity, lpNormalize,
  sort, argsort, cumsum, cumprod, gather, indexSelect, take, nonzero, maskedFill, maskedFill_,
  Generator, manualSeed, rand, randn, randint, multinomial, ops, interpolate,
  fromDLPack, from_dlpack, toDLPack, to_dlpack, open, wasm, cuda, capabilities, python,
  fromArrow, fromArrowIPC, toArrowTable, toArrowIPCChunks, ray,
} = dl;
// `var` is a reserved word: exported by name from the CommonJS entry's property.
const variance = dl.var;
export { variance as var };
export default dl;
