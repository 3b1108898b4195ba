// What the CUDA translation units share when built with CUDA (cuda_runtime.cc,
// cuda_memory.cc, cuda_kernels.cc, and the kernel files through
// cuda_launch.h): a cudaError_t as a Status, and a stream
// as JS names it (1 the legacy default stream, 2 the per-thread one, any
// other value a cudaStream_t) as the runtime takes it. Internal: nothing
// outside src/core includes it.
#ifndef DLPACK_NODE_CORE_CUDA_API_H_
#define DLPACK_NODE_CORE_CUDA_API_H_

#ifdef DLPACK_WITH_CUDA

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda_runtime.h"

namespace dlnode {
namespace cuda {

inline Status Check(cudaError_t error) { return StatusOf(static_cast<int>(error)); }

inline cudaStream_t StreamOf(uintptr_t value) {
  if (value == 1) return cudaStreamLegacy;
  if (value == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(value);
}

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_WITH_CUDA

#endif  // DLPACK_NODE_CORE_CUDA_API_H_
