// Normalisations over trailing dims (torch.nn.functional.layer_norm,
// cosine_similarity, normalize; docs/development.md "Compute families"):
// each lane's statistics in lanes.h's pairwise order in double, each result
// rounded once into out's type, so results are the same at any thread count.
// lib/ moves the dims last, broadcasts cosineSimilarity's operands to one
// shape (stride 0) and checks dtypes (float16, bfloat16, float32, float64)
// and shapes. out may be the input itself (the same elements), not a partial
// overlap (lib/ stages that, as for every op).
//
// The L2 row normalisation is torch's F.normalize(x, p, dim, eps), named
// lpNormalize in lib/: dl.normalize is already the image normalisation
// (torchvision's transforms.Normalize), and the name says which norm.
#ifndef DLPACK_NODE_CORE_COMPUTE_NORMS_H_
#define DLPACK_NODE_CORE_COMPUTE_NORMS_H_

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

// out = (x - mean) / sqrt(var + eps) * weight + bias over the trailing
// `normalized` dims (var biased: divided by N), weight and bias optional
// views of those dims' shape.
struct LayerNormArgs {
  View in;
  int normalized = 1;
  const View* weight = nullptr;
  const View* bias = nullptr;
  double eps = 1e-5;
  View out;  // in's shape
  Place place;
};
ComputeResult LayerNorm(const LayerNormArgs& args);

// out = sum(a / max(|a|, eps) * b / max(|b|, eps)) over the last dim (torch
// 2's formula: each operand divided by its clamped L2 norm, then the dot).
struct CosineArgs {
  View a;  // [..., n]
  View b;  // a's shape
  double eps = 1e-8;
  View out;  // a's shape without the last dim
  Place place;
};
ComputeResult CosineSimilarity(const CosineArgs& args);

// out = x / max(|x|_p, eps) over the last dim (the norm rounded to x's type
// first, as torch divides by a tensor of norms).
struct LpNormalizeArgs {
  View in;  // [..., n]
  double p = 2;
  double eps = 1e-12;
  View out;  // in's shape
  Place place;
};
ComputeResult LpNormalize(const LpNormalizeArgs& args);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_NORMS_H_
