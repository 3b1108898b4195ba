// Reductions, softmax and topk, host and CUDA (src/core/compute/reduce_call.h):
// one reader of one descriptor, whose core entry forks at the bottom.
// lib/reduce.js validates, allocates and stages first.
#ifndef DLPACK_NODE_ADDON_REDUCE_H_
#define DLPACK_NODE_ADDON_REDUCE_H_

#include <napi.h>

namespace dlnode {

// () -> { ops: { sum: 0, ... }, results: [op][dtype index] -> the result's
// dtype index, or -1 where the op refuses the dtype } (src/core/compute/reduce.h).
Napi::Value ReduceTable(const Napi::CallbackInfo& info);

// (op, device, stream, src, srcOffset, srcDtype, reducedOrDim, values,
// valuesOffset, indices, indicesOffset, k, largest, sorted) -> whether it ran
// (src/core/compute/reduce_call.h RunReduce): device -1 (kHostDevice, always
// true) or a CUDA device's index, whose row kernels are enqueued on `stream`
// (a BigInt) where they take the operands as they are, false with nothing
// enqueued where they do not (lib/reduce.js then stages them and calls
// again). sum/mean/amax/amin reduce the last `reducedOrDim` dims into
// contiguous values; max/min (values and/or indices; either may be null),
// softmax/logSoftmax (values) and topk run along dim `reducedOrDim`, their
// results at the strides in kSourceStrides (per source dim, in elements).
// Memory is a Uint8Array or a storage handle with the byte offset of element
// 0; the source's ndim, shape and strides in the scratch block.
Napi::Value ReduceOnce(const Napi::CallbackInfo& info);

// The same arguments on the host, the `stage` mask last -> a Promise settled
// when the loop has run on a libuv thread (`{ async: true }`); what it uses
// is held or staged until then (job_memory.h).
Napi::Value ReduceAsync(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_REDUCE_H_
