// The ESM entry (lib/index.mjs) has the same objects as the CommonJS one, and
// a default export of the whole module: both type-check under node16.
import dl, { tensor, fromDLPack, type Tensor, type ShareDescriptor } from 'dlpack';

const t: Tensor<'float32'> = tensor([1, 2, 3]);
const u: Tensor = dl.fromDLPack(t.__dlpack__());
const same: typeof dl.fromDLPack = fromDLPack;
const d: ShareDescriptor | null = null;
// @ts-expect-error the default export is the module, not a function
dl();
void [u, same, d];
// Every name of the CommonJS entry, ops included (test/architecture.test.js checks the list).
import { add, normalize, setNumThreads, arange, ones } from 'dlpack';
void [add, normalize, setNumThreads, arange, ones];
import { fromArrow, fromArrowIPC, toArrowTable, toArrowIPCChunks, ray } from 'dlpack';
void [fromArrow, fromArrowIPC, toArrowTable, toArrowIPCChunks, ray];
import { matmul, linear, var as variance, varMean, layerNorm, lpNormalize } from 'dlpack';
void [matmul, linear, variance, varMean, layerNorm, lpNormalize];
