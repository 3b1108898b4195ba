// Statistics and vector norms over trailing dims (torch.var, std, var_mean,
// std_mean, linalg.vector_norm; docs/development.md "Compute families").
// lib/ moves the reduced dims last (a permuted view, no copy), checks the
// dtype (float16, bfloat16, float32, float64) and refuses what torch refuses
// before the call (an inf or -inf norm of no elements); keepdim is a view of
// out.
//
// Numerics: every sum is lanes.h's pairwise order in double, so results are
// the same at any thread count, and rounded once into the output's type
// (torch's CPU accumulates float32 in double too). var is two-pass: the mean,
// then the sum of squared deviations from it, which loses nothing to
// cancellation when the values sit far from 0 (a one-pass sum of squares
// minus the squared sum would), and is as exact as Welford's update at a
// fraction of its divisions; the second pass rereads the lane, from cache
// for the lanes pipelines reduce.
#ifndef DLPACK_NODE_CORE_COMPUTE_STATS_H_
#define DLPACK_NODE_CORE_COMPUTE_STATS_H_

#include "compute_result.h"
#include "view.h"

// X(jsName, Constant)
#define DLNODE_STATS_OPS(X) \
  X(var, kVar)              \
  X(std, kStd)              \
  X(varMean, kVarMean)      \
  X(stdMean, kStdMean)      \
  X(vectorNorm, kVectorNorm)

namespace dlnode {
namespace compute {

enum class StatsOp {
#define DLNODE_STATS_ENUM(js, constant) constant,
  DLNODE_STATS_OPS(DLNODE_STATS_ENUM)
#undef DLNODE_STATS_ENUM
};

struct StatsArgs {
  StatsOp op = StatsOp::kVar;
  View in;                // reduced dims last
  int reduced = 0;        // how many trailing dims of `in` are reduced
  double correction = 1;  // var family: the divisor is max(0, N - correction)
  double ord = 2;         // vectorNorm: p, or +-infinity
  View out;               // in's kept dims: var, std or the norm (a float type)
  View mean;              // varMean, stdMean: the mean (in's kept dims)
  Place place;
};

// var = sum((x - mean)^2) / max(0, N - correction) (N = 0: NaN, as torch);
// std its square root; vectorNorm (sum |x|^p)^(1/p), p = 0 the count of
// nonzeros (NaN counts), inf / -inf the largest / smallest |x| (NaN
// propagates). Failures: kOutOfMemory, kUnsupported (not the CPU).
ComputeResult Stats(const StatsArgs& args);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_STATS_H_
