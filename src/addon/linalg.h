// The compute families of linear algebra and statistics wired to JS
// (src/core/compute/matmul.h, stats.h, norms.h): one reader a family, each
// with its asynchronous form (async_op.h). lib/linalg.js and lib/stats.js
// validate and shape; lib/route.js builds the descriptor; lib/binding.js
// writes shapes and strides into the scratch block and calls these.
#ifndef DLPACK_NODE_ADDON_LINALG_H_
#define DLPACK_NODE_ADDON_LINALG_H_

#include <napi.h>

namespace dlnode {

// (dtype, a, aOffset, b, bOffset, bias, biasOffset, biasStride, out,
// outOffset, k, deviceType, deviceId, stream): out = a b (+ bias), out's
// shape and strides in the scratch block's shape slots, a's strides in
// kSourceStrides and b's in kOperandStrides (each of out's rank: a is out's
// shape with k last, b out's with k second to last); bias null or a vector of
// n elements `biasStride` apart. Memory is host memory (lib/storage.js
// hostArg) or, on a CUDA device, storage handles.
Napi::Value MatmulFamily(const Napi::CallbackInfo& info);
Napi::Value MatmulFamilyAsync(const Napi::CallbackInfo& info);

// (op, dtype, in, inOffset, reduced, correction, ord, out, outOffset, mean,
// meanOffset): compute::Stats over the last `reduced` dims of in (shape and
// strides in the scratch block), out (and mean, or null) of in's kept dims at
// the strides in kSourceStrides (kOperandStrides for mean), of in's dtype.
Napi::Value StatisticsFamily(const Napi::CallbackInfo& info);
Napi::Value StatisticsFamilyAsync(const Napi::CallbackInfo& info);

// (kind, dtype, x, xOffset, y, yOffset, z, zOffset, out, outOffset,
// normalized, p, eps): kind 0 layerNorm (x the input, y weight, z bias, either
// null, of x's last `normalized` dims), 1 cosineSimilarity (x and y of one
// shape, out without the last dim), 2 lpNormalize (x, power p). x's shape
// and strides in the scratch block, out's strides in kSourceStrides, y's in
// kOperandStrides, z's after them.
Napi::Value NormsFamily(const Napi::CallbackInfo& info);
Napi::Value NormsFamilyAsync(const Napi::CallbackInfo& info);

// () -> { ops: { var: 0, ... } } (compute/stats.h DLNODE_STATS_OPS).
Napi::Value StatisticsTable(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_LINALG_H_
