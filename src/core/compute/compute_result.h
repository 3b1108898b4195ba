// How the compute engine's families (matmul, stats, sort, index, random,
// boxes, interpolate) report a failure: one table, one Result type
// (docs/development.md "Native failures"). Preconditions lib/ checks before
// the call (shapes that multiply, dims in range, dtypes a family takes) are
// not failures here; what only the data or the machine can reveal is: an
// index outside its dim, a probability row no draw can come from, scratch
// memory that could not be had, a CUDA library that is missing.
#ifndef DLPACK_NODE_CORE_COMPUTE_COMPUTE_RESULT_H_
#define DLPACK_NODE_CORE_COMPUTE_COMPUTE_RESULT_H_

#include "../result.h"

// X(Constant, code)
#define DLNODE_COMPUTE_FAILURES(X)                                                                 \
  X(kNone, nullptr)                                                                                \
  X(kOutOfMemory, code::kOutOfMemory)         /* scratch memory could not be allocated */          \
  X(kIndex, code::kOutOfRange)                /* an index outside its dim: the message names it */ \
  X(kProbability, code::kOutOfRange)          /* a probability negative, infinite or NaN */        \
  X(kDistribution, code::kInvalidArgValue)    /* a row summing to 0, or too few nonzero for */     \
                                              /* a draw without replacement */                     \
  X(kUnsupported, code::kUnsupported)         /* a device this family does not compute on yet */   \
  X(kCudaUnavailable, code::kCudaUnavailable) /* no CUDA, or a CUDA library that is missing */     \
  X(kCuda, code::kCuda)                       /* a CUDA or cuBLAS call failed: `detail` names it */

namespace dlnode {
namespace compute {

DLNODE_DEFINE_FAILURES(ComputeFailure, DLNODE_COMPUTE_FAILURES)
using ComputeResult = Result<ComputeFailure>;

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_COMPUTE_RESULT_H_
