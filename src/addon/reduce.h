// Reductions, softmax and topk over host tensors (src/core/compute/reduce.h);
// lib/reduce.js validates, allocates and calls these through lib/binding.js.
#ifndef DLPACK_NODE_ADDON_REDUCE_H_
#define DLPACK_NODE_ADDON_REDUCE_H_

#include <napi.h>

namespace dlnode {

// () -> { ops: { sum: 0, ... }, results: [op][dtype index] -> the result's
// dtype index, or -1 where the op refuses the dtype } (src/core/compute/reduce.h).
Napi::Value ReduceTable(const Napi::CallbackInfo& info);

// (op, srcBytes, srcOffset, srcDtype, reduced, dstBytes, dstOffset): sum,
// mean, amax or amin over the last `reduced` dims of the source (ndim, shape
// and strides in the scratch block), one result per kept index, contiguous,
// at dstOffset. Bytes are Uint8Arrays, offsets in bytes to element 0.
Napi::Value ReduceDims(const Napi::CallbackInfo& info);

// The same off the event loop (async_op.h): a Promise that settles once the
// loop has run; the bytes are held until then.
Napi::Value ReduceDimsAsync(const Napi::CallbackInfo& info);

// (op, srcBytes, srcOffset, srcDtype, dim, valuesBytes, valuesOffset,
// indicesBytes, indicesOffset, k, largest, sorted): max/min (values and/or
// indices; either bytes may be null), softmax/logSoftmax (values), topk along
// `dim`. The source's ndim, shape and strides in the scratch block, the
// results' strides (per source dim, in elements) in kSourceStrides.
Napi::Value ReduceLanes(const Napi::CallbackInfo& info);

// The same off the event loop, as ReduceDimsAsync.
Napi::Value ReduceLanesAsync(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_REDUCE_H_
