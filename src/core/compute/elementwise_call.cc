#include "elementwise_call.h"

#include <string>

#include "../cuda_ops.h"
#include "elementwise_math.h"

namespace dlnode {
namespace {

constexpr const char* kRefusedMessage = "Expected a dtype the op computes in";

// The call as a kernel on its device: each scalar by value, the plan
// coalesced as the host engine's.
ElementwiseResult OnDevice(const ElementwiseCall& call) {
  if (!cuda::DeviceComputes(call.op, call.type)) {
    return Failed(ElementwiseFailure::kRefused, kRefusedMessage);
  }
  const int arity = ElementwiseArity(call.op);
  static constexpr int64_t kZeros[kMaxDims] = {};
  cuda::OpArgs args;
  const int64_t* strides[kMaxOperands] = {call.out.strides};
  args.ptr[0] = call.out.first;
  for (int k = 0; k < arity; ++k) {
    if (((call.scalars >> k) & 1U) != 0) {
      args.scalar[k + 1] =
          cuda::ScalarBits(ElementwiseOperandType(call.op, call.type, k + 1), call.in[k].first);
      strides[k + 1] = kZeros;
    } else {
      args.ptr[k + 1] = call.in[k].first;
      strides[k + 1] = call.in[k].strides;
    }
  }
  const OpPlan plan = MakeOpPlan(call.ndim, call.shape, arity + 1, strides);
  const cuda::Status status =
      cuda::DeviceElementwise(call.device, call.op, call.type, plan, args, call.stream);
  return cuda::FamilyResultOf<ElementwiseFailure>(
      status, "the elementwise kernel on device " + std::to_string(call.device));
}

}  // namespace

Scalar ElementwiseOperandType(ElementwiseOp op, Scalar type, int k) {
  if (k == 0 && math::IsComparison(op)) return Scalar::kBool;
  if (k == 1 && op == ElementwiseOp::kWhere) return Scalar::kBool;
  return type;
}

ElementwiseResult RunElementwise(const ElementwiseCall& call) {
  if (call.device != kHostDevice) return OnDevice(call);
  if (!Elementwise(call.op, call.type, call.ndim, call.shape, call.out, call.in)) {
    return Failed(ElementwiseFailure::kRefused, kRefusedMessage);
  }
  return {};
}

}  // namespace dlnode
