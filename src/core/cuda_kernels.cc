#include "cuda_kernels.h"

#include "cuda_api.h"
#include "stream_order.h"

#ifdef DLPACK_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace dlnode {
namespace cuda {

#ifdef DLPACK_WITH_CUDA

Status DeviceStridedCopy(int device, const CopyPlan& plan, uint64_t item_size, char* dst,
                         const char* src, uintptr_t stream) {
  if (plan.count == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    if (IsDenseCopy(plan)) {
      return StatusOf(cudaMemcpyAsync(dst, src, static_cast<size_t>(plan.count) * item_size,
                                      cudaMemcpyDeviceToDevice, StreamOf(on)));
    }
    return StatusOf(LaunchStridedCopy(plan, item_size, dst, src, on));
  });
}

Status DeviceConvert(int device, const CopyPlan& plan, ElementType dst_type, char* dst,
                     ElementType src_type, const char* src, uintptr_t stream) {
  if (SameType(dst_type, src_type)) {  // a copy (no bool normalised, no NaN touched)
    return DeviceStridedCopy(device, plan, dst_type.bits / 8, dst, src, stream);
  }
  if (plan.count == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrdered(RuntimeStreamOps(), stream, [&](uintptr_t on) {
    return StatusOf(LaunchConvert(plan, dst_type, dst, src_type, src, on));
  });
}

#else

Status DeviceStridedCopy(int, const CopyPlan&, uint64_t, char*, const char*, uintptr_t) {
  return NotCompiled();
}
Status DeviceConvert(int, const CopyPlan&, ElementType, char*, ElementType, const char*,
                     uintptr_t) {
  return NotCompiled();
}

#endif

}  // namespace cuda
}  // namespace dlnode
