// What the kernel files (cuda_kernels.cu, cuda_ops.cu) launch with: the
// threads per block of a grid-stride kernel, its block count, and the stream
// a binding's stream value names. Included by .cu files only (it needs
// CUDA's own cuda_runtime.h).
#ifndef DLPACK_NODE_CORE_CUDA_LAUNCH_H_
#define DLPACK_NODE_CORE_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace dlnode {
namespace cuda {

constexpr int kThreads = 256;

// Enough blocks to fill any current GPU several times over; the kernels'
// grid-stride loops cover the rest.
inline unsigned Blocks(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 1 << 16));
}

// One block per row (the row kernels' grid-stride loop over rows covers
// more than 2^16).
inline unsigned RowBlocks(int64_t rows) {
  return static_cast<unsigned>(std::min<int64_t>(rows, 1 << 16));
}

// 1 the legacy default stream, 2 the per-thread default stream, larger a
// cudaStream_t.
inline cudaStream_t StreamOf(uintptr_t value) {
  if (value == 1) return cudaStreamLegacy;
  if (value == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(value);
}

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_LAUNCH_H_
