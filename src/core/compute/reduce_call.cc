#include "reduce_call.h"

#include <string>

#include "../cuda_ops.h"
#include "../layout.h"
#include "view.h"

namespace dlnode {
namespace {

// Whether `shape` at `strides` (elements) is dense row-major: each dim of
// more than one element at the product of the sizes after it. A dim of one
// element may have any stride (it is never stepped).
bool DenseRows(int ndim, const int64_t* shape, const int64_t* strides) {
  int64_t step = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != step) return false;
    step *= shape[d];
  }
  return true;
}

// Whether the computing type of the row kernels for `op` is `type`.
bool ComputesIn(ReduceOp op, Scalar type) {
  if (op == ReduceOp::kSoftmax || op == ReduceOp::kLogSoftmax) {
    return type == Scalar::kFloat32 || type == Scalar::kFloat64;
  }
  Scalar out = type;
  return cuda::RowReducible(type) && ResultType(op, type, &out) && out == type;
}

ReduceResult OnDevice(const ReduceCall& c) {
  DeviceRowPlan plan;
  if (!PlanDeviceRows(c, &plan)) {
    return Failed(ReduceFailure::kNotOnDevice,
                  "Expected dense rows of int64, uint64, float32 or float64 (float32 or float64 "
                  "for softmax), the reduced dims last, for the row kernels");
  }
  cuda::Status status;
  switch (c.op) {
    case ReduceOp::kSum:
    case ReduceOp::kAmax:
    case ReduceOp::kAmin: {
      const cuda::RowOp op = c.op == ReduceOp::kSum    ? cuda::RowOp::kSum
                             : c.op == ReduceOp::kAmax ? cuda::RowOp::kMax
                                                       : cuda::RowOp::kMin;
      status = cuda::DeviceReduceRows(c.device, op, c.in.type, c.in.first, c.values, plan.rows,
                                      plan.n, c.stream);
      break;
    }
    case ReduceOp::kMax:
    case ReduceOp::kMin:
      // NaN first, ties to the lower index: ArgExtreme's rules.
      status =
          cuda::DeviceRowPicks(c.device, c.in.type, cuda::PickOrder{c.op == ReduceOp::kMax, true},
                               c.in.first, c.values, c.indices, plan.rows, plan.n, 1, c.stream);
      break;
    case ReduceOp::kTopk:
      // NaN counts as the largest (TopK's order): first when largest, else last.
      status = cuda::DeviceRowPicks(c.device, c.in.type, cuda::PickOrder{c.largest, c.largest},
                                    c.in.first, c.values, c.indices, plan.rows, plan.n, plan.k,
                                    c.stream);
      break;
    case ReduceOp::kSoftmax:
    case ReduceOp::kLogSoftmax:
      status = cuda::DeviceSoftmaxRows(c.device, c.in.type, c.op == ReduceOp::kLogSoftmax,
                                       c.in.first, c.values, plan.rows, plan.n, c.stream);
      break;
    default:  // kMean: PlanDeviceRows refused it
      break;
  }
  return cuda::FamilyResultOf<ReduceFailure>(
      status, "the reduction kernel on device " + std::to_string(c.device));
}

}  // namespace

bool ReducesDims(ReduceOp op) {
  return op == ReduceOp::kSum || op == ReduceOp::kMean || op == ReduceOp::kAmax ||
         op == ReduceOp::kAmin;
}

bool StagedType(ReduceOp op, Scalar type, Scalar* staged) {
  switch (type) {
    case Scalar::kComplex64:
    case Scalar::kComplex128:
      return false;
    case Scalar::kFloat16:
    case Scalar::kBfloat16:
    case Scalar::kFloat32:
      *staged = Scalar::kFloat32;
      return true;
    case Scalar::kFloat64:
      *staged = Scalar::kFloat64;
      return true;
    case Scalar::kInt8:
    case Scalar::kInt16:
    case Scalar::kInt32:
    case Scalar::kInt64:
      *staged = Scalar::kInt64;
      return true;
    default:  // bool and the unsigned integers
      *staged = op == ReduceOp::kSum || op == ReduceOp::kMean ? Scalar::kInt64 : Scalar::kUint64;
      return true;
  }
}

bool PlanDeviceRows(const ReduceCall& call, DeviceRowPlan* plan) {
  const StridedInput& in = call.in;
  if (call.op == ReduceOp::kMean || !ComputesIn(call.op, in.type)) return false;
  if (!DenseRows(in.ndim, in.shape, in.strides)) return false;
  if (ReducesDims(call.op)) {
    if (call.reduced < 0 || call.reduced > in.ndim || call.values == nullptr) return false;
    plan->rows = 1;
    plan->n = 1;
    for (int d = 0; d < in.ndim; ++d)
      (d < in.ndim - call.reduced ? plan->rows : plan->n) *= in.shape[d];
    plan->k = 1;
    return true;  // the results are contiguous (ReduceCall::values)
  }
  // Along the last dim (or a 0-d input's one lane).
  if (in.ndim > 0 && call.dim != in.ndim - 1) return false;
  plan->n = in.ndim == 0 ? 1 : in.shape[in.ndim - 1];
  plan->rows = 1;
  for (int d = 0; d + 1 < in.ndim; ++d) plan->rows *= in.shape[d];
  switch (call.op) {
    case ReduceOp::kMax:
    case ReduceOp::kMin:
      plan->k = 1;
      break;
    case ReduceOp::kTopk:
      plan->k = in.ndim == 0 ? 1 : call.k;
      if (call.values == nullptr || call.indices == nullptr) return false;
      break;
    case ReduceOp::kSoftmax:
    case ReduceOp::kLogSoftmax:
      plan->k = plan->n;
      if (call.values == nullptr) return false;
      break;
    default:
      return false;
  }
  if (plan->k > plan->n) return false;
  // The results: in's shape with the last dim of k elements, dense.
  int64_t out_shape[kMaxDims] = {};
  for (int d = 0; d < in.ndim; ++d) out_shape[d] = d == in.ndim - 1 ? plan->k : in.shape[d];
  if (in.ndim > 0 && !DenseRows(in.ndim, out_shape, call.out_strides)) return false;
  if (call.op == ReduceOp::kSoftmax || call.op == ReduceOp::kLogSoftmax) {
    // The kernel reads a row while it writes it: no shared byte (in place
    // included; the host engine takes that, the kernel does not).
    const uint64_t bytes = static_cast<uint64_t>(plan->rows * plan->n) * ScalarSize(in.type);
    if (bytes != 0 &&
        compute::Overlap({in.first, in.first + bytes}, {call.values, call.values + bytes})) {
      return false;
    }
  }
  return true;
}

ReduceResult RunReduce(const ReduceCall& c) {
  if (c.device != kHostDevice) return OnDevice(c);
  switch (c.op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean:
    case ReduceOp::kAmax:
    case ReduceOp::kAmin:
      Reduce(c.op, c.in, c.reduced, c.values);
      break;
    case ReduceOp::kMax:
    case ReduceOp::kMin:
      ArgExtreme(c.op, c.in, c.dim, c.values, c.indices, c.out_strides);
      break;
    case ReduceOp::kTopk:
      TopK(c.in, c.dim, c.k, c.largest, c.sorted, c.values, c.indices, c.out_strides);
      break;
    case ReduceOp::kSoftmax:
    case ReduceOp::kLogSoftmax:
      Softmax(c.op, c.in, c.dim, c.values, c.out_strides);
      break;
  }
  return {};
}

}  // namespace dlnode
