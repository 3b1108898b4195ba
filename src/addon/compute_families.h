// The host entries of issue 40's sort, scan, index, random, boxes and
// interpolate families (src/core/compute/; docs/development.md "Compute
// families"). Each reads its operands with ReadView (compute_view.h: four
// arguments an operand, written below as `in...`), calls the core entry and
// throws its failure coded; lib/route.js is the one caller (through
// lib/binding.js), after lib/ has checked shapes, dims and dtypes.
#ifndef DLPACK_NODE_ADDON_COMPUTE_FAMILIES_H_
#define DLPACK_NODE_ADDON_COMPUTE_FAMILIES_H_

#include <napi.h>

namespace dlnode {

// (in..., descending, values... (memory null for argsort), indices...)
Napi::Value SortLanes(const Napi::CallbackInfo& info);
// (product, in..., out...)
Napi::Value ScanLanes(const Napi::CallbackInfo& info);
// (kind: 0 gather, 1 indexSelect, 2 take, in..., dim, index..., out...)
Napi::Value IndexGather(const Napi::CallbackInfo& info);
// (in..., out... or memory null) -> the number of nonzero elements; their
// indices written into out [count, ndim] when it is given.
Napi::Value IndexNonzero(const Napi::CallbackInfo& info);
// (op: DLNODE_RANDOM_OPS' order, seed, offset, low, high (BigInts), out...)
// -> the counters used (a BigInt).
Napi::Value RandomFill(const Napi::CallbackInfo& info);
// (probs..., samples, replacement, seed, offset, out...) -> the counters used.
Napi::Value RandomMultinomial(const Napi::CallbackInfo& info);
// (a..., b..., out...)
Napi::Value BoxesIou(const Napi::CallbackInfo& info);
// (boxes..., scores..., idxs... (memory null for nms), iouThreshold, keep...)
// -> how many indices were kept (written from keep's element 0).
Napi::Value BoxesNms(const Napi::CallbackInfo& info);
// (in..., bilinear, alignCorners, scaleH, scaleW, out...)
Napi::Value InterpolateNchw(const Napi::CallbackInfo& info);
// () -> { random: { rand: 0, ... } } (DLNODE_RANDOM_OPS).
Napi::Value ComputeTable(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_COMPUTE_FAMILIES_H_
