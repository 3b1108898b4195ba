// One elementwise op call (docs/API.md "Ops"), host or CUDA: the descriptor
// lib/route.js builds and the addon reads (src/addon/ops.cc), and the one
// entry that forks at the bottom: the host engine (elementwise.h) for host
// memory, the CUDA launcher (cuda_ops.h, which answers "not compiled" in a
// build without CUDA) for a device's. Every rule above this point (types,
// targets, overlap, scalars) is lib/ops.js run()'s, written once for both.
#ifndef DLPACK_NODE_CORE_COMPUTE_ELEMENTWISE_CALL_H_
#define DLPACK_NODE_CORE_COMPUTE_ELEMENTWISE_CALL_H_

#include <cstdint>

#include "../result.h"
#include "elementwise.h"

namespace dlnode {

// The device of a call on the host (a CUDA call names its device's index).
constexpr int kHostDevice = -1;

struct ElementwiseCall {
  ElementwiseOp op = ElementwiseOp::kAdd;
  Scalar type = Scalar::kFloat32;  // the inputs' type (Elementwise())
  int device = kHostDevice;
  uintptr_t stream = 0;  // CUDA: 1 the legacy default stream, 2 per-thread, larger a handle
  int ndim = 0;
  const int64_t* shape = nullptr;
  Operand out{nullptr, nullptr};
  const Operand* in = nullptr;  // ElementwiseArity(op) of them
  // Bit k: in[k] is a JS number, held as one element of its type in host
  // memory at `first` (StoreScalar), read at stride 0 (a kernel takes it by value).
  uint32_t scalars = 0;
};

// X(Constant, code) (result.h).
#define DLNODE_ELEMENTWISE_FAILURES(X)                                            \
  X(kNone, nullptr)                                                               \
  X(kRefused, code::kUnsupported)             /* the op does not take the type */ \
  X(kCudaUnavailable, code::kCudaUnavailable) /* no CUDA build or device */       \
  X(kCuda, code::kCuda)                       /* the launch failed */

DLNODE_DEFINE_FAILURES(ElementwiseFailure, DLNODE_ELEMENTWISE_FAILURES)
using ElementwiseResult = Result<ElementwiseFailure>;

// The type of operand k of `op` computed in `type`: k 0 the output (bool for
// a comparison), k >= 1 input k - 1 (bool for where()'s condition).
Scalar ElementwiseOperandType(ElementwiseOp op, Scalar type, int k);

// out = op(in) on the call's device, on this thread (a kernel: enqueued on
// its stream). Refused, having written nothing, where the op does not take
// the type (Elementwise()'s refusals, the kernel's the same).
ElementwiseResult RunElementwise(const ElementwiseCall& call);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_ELEMENTWISE_CALL_H_
