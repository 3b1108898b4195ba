// One reduction call (docs/API.md "Reductions"), host or CUDA: the descriptor
// lib/route.js builds and the addon reads (src/addon/reduce.cc) for host and
// CUDA memory alike, and the one entry (RunReduce) that forks at the bottom:
// the host engine (reduce.h: Reduce, ArgExtreme, Softmax, TopK) for host
// memory, the row kernels (cuda_ops.h DeviceReduceRows, DeviceRowPicks,
// DeviceSoftmaxRows, which answer "not compiled" in a build without CUDA) for
// a device's. Every rule above this point (dims, result dtypes and shapes,
// `out`, the staging a device needs) is lib/reduce.js's, written once for
// both.
#ifndef DLPACK_NODE_CORE_COMPUTE_REDUCE_CALL_H_
#define DLPACK_NODE_CORE_COMPUTE_REDUCE_CALL_H_

#include <cstdint>

#include "../result.h"
#include "elementwise_call.h"
#include "reduce.h"

namespace dlnode {

struct ReduceCall {
  ReduceOp op = ReduceOp::kSum;
  int device = kHostDevice;  // or a CUDA device's index
  uintptr_t stream = 0;      // CUDA: 1 the legacy default stream, 2 per-thread, larger a handle
  StridedInput in{nullptr, Scalar::kFloat32, 0, nullptr, nullptr};
  // kSum, kMean, kAmax, kAmin (ReducesDims): the last `reduced` dims of `in`
  // are reduced, one result of ResultType(op, in.type) per kept index,
  // row-major and contiguous, at `values`.
  int reduced = 0;
  // The others, along `dim`: results at `out_strides` (per dim of `in`, in
  // elements), as ArgExtreme, Softmax and TopK take them.
  int dim = 0;
  const int64_t* out_strides = nullptr;
  int64_t k = 0;  // topk
  bool largest = true;
  bool sorted = true;
  char* values = nullptr;      // null where max/min give indices only
  int64_t* indices = nullptr;  // max/min, topk; null where not wanted
};

// Whether `op` reduces a set of dims (kSum, kMean, kAmax, kAmin) rather than
// running along one.
bool ReducesDims(ReduceOp op);

// The dtype a device call of `op` over `type` is staged in when the row
// kernels do not take it as it is (lib/reduce.js staged(): one conversion
// copy of the input, the call again, the results copied back): float16,
// bfloat16 and float32 in float32, float64 in float64; the sums (kSum,
// kMean) of bool and every integer, and the picks of signed integers, in
// int64; the picks of bool and unsigned integers in uint64. Each holds every
// value of `type` exactly, but uint64 summed in int64, whose sum has the same
// bits. False for complex types, which no row kernel takes. The addon hands
// the table to lib/reduce.js at load (reduceTable().staging).
bool StagedType(ReduceOp op, Scalar type, Scalar* staged);

// X(Constant, code) (result.h).
#define DLNODE_REDUCE_FAILURES(X)                                                            \
  X(kNone, nullptr)                                                                          \
  X(kNotOnDevice, code::kUnsupported)         /* the row kernels do not take the operands */ \
  X(kCudaUnavailable, code::kCudaUnavailable) /* no CUDA build or device */                  \
  X(kCuda, code::kCuda)                       /* the launch failed */

DLNODE_DEFINE_FAILURES(ReduceFailure, DLNODE_REDUCE_FAILURES)
using ReduceResult = Result<ReduceFailure>;

// Where a device call is rows the kernels take: `rows` rows of `n` elements,
// `k` picked from each (kMax/kMin 1, kTopk k, 1 for a 0-d input).
struct DeviceRowPlan {
  int64_t rows = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// The device planner: true, with the plan, where the row kernels take the
// call as it is: op other than kMean (the caller divides a sum: torch
// rounds the sum to the dtype first); in.type the computing type (int64,
// uint64, float32 or float64, cuda_ops.h RowReducible; float32 or float64 for
// softmax) and the result's (ResultType(op, in.type) == in.type); `in` dense
// row-major with the reduced dims, or `dim`, the last; the results dense rows
// in the same order; a softmax's output not overlapping its input. Else false:
// the caller stages the operands (lib/reduce.js: one permute and conversion
// copy of the input, dense results it copies back) and calls again.
bool PlanDeviceRows(const ReduceCall& call, DeviceRowPlan* plan);

// The reduction on the call's device, on this thread (the kernels: enqueued
// on its stream). On a device, kNotOnDevice, with nothing enqueued, where
// PlanDeviceRows refuses the call; kCudaUnavailable where CUDA is missing.
// The host engine refuses nothing: the addon checks the op, the dtype and
// every extent before (src/addon/reduce.cc).
ReduceResult RunReduce(const ReduceCall& call);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_REDUCE_CALL_H_
