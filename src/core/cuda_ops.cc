#include "cuda_ops.h"

#include <cstring>

#include "cuda_api.h"
#include "stream_order.h"

namespace dlnode {
namespace cuda {

bool DeviceComputes(ElementwiseOp op, Scalar type) {
  switch (type) {
    case Scalar::kBool:
      return math::Computes<math::Bool, true>(op);
    case Scalar::kInt8:
      return math::Computes<int8_t, false>(op);
    case Scalar::kInt16:
      return math::Computes<int16_t, false>(op);
    case Scalar::kInt32:
      return math::Computes<int32_t, false>(op);
    case Scalar::kInt64:
      return math::Computes<int64_t, false>(op);
    case Scalar::kUint8:
      return math::Computes<uint8_t, false>(op);
    case Scalar::kUint16:
      return math::Computes<uint16_t, false>(op);
    case Scalar::kUint32:
      return math::Computes<uint32_t, false>(op);
    case Scalar::kUint64:
      return math::Computes<uint64_t, false>(op);
    case Scalar::kFloat32:
      return math::Computes<float, false>(op);
    case Scalar::kFloat64:
      return math::Computes<double, false>(op);
    default:
      return false;
  }
}

uint64_t ScalarBits(Scalar type, const void* element) {
  const auto* p = static_cast<const char*>(element);
  const int width = static_cast<int>(ScalarSize(type));
  uint64_t bits = 0;
  switch (type) {
    case Scalar::kInt8:
    case Scalar::kInt16:
    case Scalar::kInt32:
    case Scalar::kInt64: {
      const int64_t v = math::LoadWidened<int64_t>(p, 0, width);
      std::memcpy(&bits, &v, sizeof bits);
      break;
    }
    case Scalar::kUint8:
    case Scalar::kUint16:
    case Scalar::kUint32:
    case Scalar::kUint64:
      bits = math::LoadWidened<uint64_t>(p, 0, width);
      break;
    default:
      std::memcpy(&bits, p, static_cast<size_t>(width));
      break;
  }
  return bits;
}

bool RowReducible(Scalar type) {
  return type == Scalar::kInt64 || type == Scalar::kUint64 || type == Scalar::kFloat32 ||
         type == Scalar::kFloat64;
}

#ifdef DLPACK_WITH_CUDA

Status DeviceReduceRows(int device, RowOp op, Scalar type, const char* in, char* out, int64_t rows,
                        int64_t n, uintptr_t stream) {
  if (rows == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    return StatusOf(LaunchReduceRows(op, type, in, out, rows, n, on));
  });
}

Status DeviceRowPicks(int device, Scalar type, PickOrder order, const char* in, char* values,
                      int64_t* indices, int64_t rows, int64_t n, int64_t k, uintptr_t stream) {
  if (rows == 0 || k == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    return StatusOf(LaunchRowPicks(type, order, in, values, indices, rows, n, k, on));
  });
}

Status DeviceSoftmaxRows(int device, Scalar type, bool log, const char* in, char* out, int64_t rows,
                         int64_t n, uintptr_t stream) {
  if (rows == 0 || n == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    return StatusOf(LaunchSoftmaxRows(type, log, in, out, rows, n, on));
  });
}

Status DeviceElementwise(int device, ElementwiseOp op, Scalar type, const OpPlan& plan,
                         const OpArgs& args, uintptr_t stream) {
  if (plan.count == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    return StatusOf(LaunchElementwise(op, type, plan, args, on));
  });
}

Status DeviceNormalize(int device, Scalar in_type, const NormalizePlan32& plan,
                       const NormalizeValues& values, const char* in, char* out, uintptr_t stream) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    return StatusOf(LaunchNormalize(in_type, plan, values, in, out, on));
  });
}

#else

Status DeviceElementwise(int, ElementwiseOp, Scalar, const OpPlan&, const OpArgs&, uintptr_t) {
  return NotCompiled();
}
Status DeviceReduceRows(int, RowOp, Scalar, const char*, char*, int64_t, int64_t, uintptr_t) {
  return NotCompiled();
}
Status DeviceRowPicks(int, Scalar, PickOrder, const char*, char*, int64_t*, int64_t, int64_t,
                      int64_t, uintptr_t) {
  return NotCompiled();
}
Status DeviceSoftmaxRows(int, Scalar, bool, const char*, char*, int64_t, int64_t, uintptr_t) {
  return NotCompiled();
}
Status DeviceNormalize(int, Scalar, const NormalizePlan32&, const NormalizeValues&, const char*,
                       char*, uintptr_t) {
  return NotCompiled();
}
#endif

}  // namespace cuda
}  // namespace dlnode
