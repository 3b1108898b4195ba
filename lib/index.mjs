// ESM entry: the same objects as the CommonJS entry.
import { createRequire } from 'node:module';

const dl = createRequire(import.meta.url)('./index.js');

export const {
  dtypes, dlpackVersion, Tensor, Device, DLPackCapsule, DLPackError, CudaError,
  fromBuffer, frombuffer, empty, zeros, tensor, cat, stack, sum, mean, amax, amin, max, min, argmax, argmin, softmax,
  logSoftmax, topk, fromDLPack, from_dlpack, toDLPack, to_dlpack, open, wasm,
  cuda, capabilities, python,
} = dl;
export const { pythonPath } = dl;
export default dl;
