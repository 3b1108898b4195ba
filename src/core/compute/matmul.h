// The matmul family (torch.matmul, mm, bmm, linear; docs/development.md
// "Compute families"): out[..., m, n] = a[..., m, k] b[..., k, n] (+ bias[n]).
//
// lib/route.js applies torch.matmul's shape rules before the call: a 1-d
// operand becomes a matrix of one row (a) or one column (b) and the result's
// size-1 dim a view dropped again; batch dims are broadcast to the result's
// (stride 0 where an operand has size 1 or lacks the dim); mm and bmm are
// matmul with their shapes checked; linear(x, w, bias) is x times w viewed
// transposed (w's strides swapped: no copy), with bias. So every operand
// here has out's rank (>= 2) and the same batch dims.
//
// float32 and float64 compute in their type; float16 and bfloat16 are
// converted to float32 once, computed there and rounded once into out
// (torch on the CPU rounds the same way). An operand whose matrix dims have a
// unit stride in one of them goes to the BLAS as it is (its other stride is
// the leading dimension, a transposed one is read transposed); any other is
// copied once. out may be any strided view that does not overlap itself;
// when it overlaps an input, has no unit stride or is 16-bit, the product is
// computed into scratch memory and copied into it once.
#ifndef DLPACK_NODE_CORE_COMPUTE_MATMUL_H_
#define DLPACK_NODE_CORE_COMPUTE_MATMUL_H_

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

struct MatmulArgs {
  View a;            // [batch..., m, k]
  View b;            // [batch..., k, n]
  View out;          // [batch..., m, n]
  const View* bias;  // [n] (any stride, 0 included), or null
  Place place;
};

// Whether the family computes in `type` (lib/ refuses the others first).
bool MatmulTakes(Scalar type);

// The product on args.place: the host GEMM (gemm.h) for the CPU, cuBLAS
// (cuda/cublas.h) for a CUDA device. Failures: kOutOfMemory (scratch),
// kCudaUnavailable / kCuda (cuBLAS missing or failing), kUnsupported (another
// device).
ComputeResult Matmul(const MatmulArgs& args);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_MATMUL_H_
