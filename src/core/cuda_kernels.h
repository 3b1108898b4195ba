// Strided copies and dtype conversions between views of CUDA device memory,
// run as kernels on the device (cuda_kernels.cu, compiled by nvcc into the
// addon: a fatbin for the architectures CUDA 13 supports plus PTX for newer
// ones). Both views must be on `device`; the work is enqueued on `stream`
// (the DLPack convention: 1 the legacy default stream, 2 per-thread default,
// larger a handle) and is ordered with later work on it, not with the host.
// Without CUDA compiled in, each answers "not compiled".
#ifndef DLPACK_NODE_CORE_CUDA_KERNELS_H_
#define DLPACK_NODE_CORE_CUDA_KERNELS_H_

#include <cstdint>

#include "cuda_runtime.h"
#include "device_copy.h"

namespace dlnode {
namespace cuda {

// Copies every element of the plan; `item_size` bytes each. A plan that is
// one dense run is a cudaMemcpyAsync.
Status DeviceStridedCopy(int device, const CopyPlan& plan, uint64_t item_size, char* dst,
                         const char* src, uintptr_t stream);

// Converts every element of the plan from `src_type` to `dst_type` with the
// rules of device_copy.h. Both types must pass IsConvertible.
Status DeviceConvert(int device, const CopyPlan& plan, ElementType dst_type, char* dst,
                     ElementType src_type, const char* src, uintptr_t stream);

// The kernel launchers (cuda_kernels.cu): a cudaError_t as int.
int LaunchStridedCopy(const CopyPlan& plan, uint64_t item_size, char* dst, const char* src,
                      uintptr_t stream);
int LaunchConvert(const CopyPlan& plan, ElementType dst_type, char* dst, ElementType src_type,
                  const char* src, uintptr_t stream);

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_KERNELS_H_
