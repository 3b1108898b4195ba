// What the kernel files (cuda_kernels.cu, cuda_ops.cu) launch with: the
// threads per block of a grid-stride kernel and its block count; the stream
// a binding's stream value names is cuda_api.h's StreamOf(). Included by .cu
// files only (it needs CUDA's own cuda_runtime.h).
#ifndef DLPACK_NODE_CORE_CUDA_LAUNCH_H_
#define DLPACK_NODE_CORE_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_api.h"

namespace dlnode {
namespace cuda {

constexpr int kThreads = 256;

// Enough blocks to fill any current GPU several times over; the kernels'
// grid-stride loops cover the rest.
inline unsigned Blocks(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 1 << 16));
}

// The tiled kernels (the copies, cuda_kernels.cu; the float32 ops,
// cuda_ops.cu) take kPer elements a thread per step, kTile a block.
constexpr int kPer = 4;
constexpr uint32_t kTile = kThreads * kPer;

// Blocks for a tiled walk over `count` elements.
inline unsigned TiledBlocks(int64_t count) { return Blocks((count + kPer - 1) / kPer); }

// One block per row, or per group of rows (the row kernels' grid-stride
// loop over rows covers more than 2^16 blocks' worth).
inline unsigned RowBlocks(int64_t rows) {
  return static_cast<unsigned>(std::min<int64_t>(rows, 1 << 16));
}

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_LAUNCH_H_
