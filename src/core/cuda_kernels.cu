// The kernels behind cuda_kernels.h. Each thread handles elements i,
// i + grid size, ... (the copies of plans under 2^31 elements, and uint8 to
// float32, four elements a thread in tiles: TiledCopyKernel); PlanOffsets and the
// conversion rules are the host-tested code of device_copy.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_copy.h"

namespace dlnode {
namespace cuda {
namespace {

// 16-byte elements (complex128) need only 8-byte alignment in DLPack.
struct alignas(8) Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// Plans of 2^31 elements and more: one element a thread, 64-bit indices.
template <typename T>
__global__ void StridedCopyKernel(const CopyPlan plan, T* dst, const T* src) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count;
       i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    dst[d] = src[s];
  }
}

// Plans of fewer than 2^31 elements (CopyPlan32: no 64-bit division in the
// walk), each element cast from S to D (a copy where they are the same).
// Tiled: a block takes kTile elements at a time, element
// tile + u * kThreads + threadIdx.x for u < kPer, so each of a thread's kPer
// loads is coalesced across the warp where the layout allows and the kPer are
// in flight together (one element a thread waited on each load in turn: a
// permuted gather ran at 143 GB/s against torch's 501 on an H200,
// bench/README.md "CUDA ops"). The larger plans keep the plain walk above:
// one more copy of each kernel per architecture for a rare size.

template <typename S, typename D>
__global__ void TiledCopyKernel(const CopyPlan32 plan, D* dst, const S* src) {
  const uint32_t count = plan.count;
  for (uint32_t tile = blockIdx.x * kTile; tile < count; tile += gridDim.x * kTile) {
    int64_t d[kPer];
    S v[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const uint32_t i = tile + u * kThreads + threadIdx.x;
      if (i >= count) break;
      int64_t s;
      PlanOffsets(plan, i, &d[u], &s);
      v[u] = src[s];
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      if (tile + u * kThreads + threadIdx.x >= count) break;
      dst[d[u]] = static_cast<D>(v[u]);
    }
  }
}

// Any element size, or pointers not aligned to it: byte by byte.
template <typename Plan, typename Index>
__global__ void StridedCopyBytesKernel(const Plan plan, uint64_t item, char* dst, const char* src) {
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < static_cast<Index>(plan.count); i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    for (uint64_t b = 0; b < item; ++b) {
      dst[d * static_cast<int64_t>(item) + b] = src[s * static_cast<int64_t>(item) + b];
    }
  }
}

// `aligned`: ElementsAligned on both sides, else each element goes byte by
// byte (the same value for every thread: no divergence).
template <typename Plan, typename Index>
__global__ void ConvertKernel(const Plan plan, ElementType dst_type, char* dst,
                              ElementType src_type, const char* src, bool aligned) {
  const int64_t dst_item = dst_type.bits / 8;
  const int64_t src_item = src_type.bits / 8;
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < static_cast<Index>(plan.count); i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    ConvertElement(dst + d * dst_item, dst_type, src + s * src_item, src_type, aligned);
  }
}

bool Aligned(const void* p, uint64_t item) { return reinterpret_cast<uintptr_t>(p) % item == 0; }

// Launches with 32-bit indices where the plan allows.
template <typename Launcher>
void WithPlan(const CopyPlan& plan, Launcher launch) {
  CopyPlan32 narrow;
  if (MakeCopyPlan32(plan, &narrow))
    launch(narrow, uint32_t{0});
  else
    launch(plan, int64_t{0});
}

template <typename T>
void Launch(const CopyPlan& plan, char* dst, const char* src, cudaStream_t stream) {
  CopyPlan32 narrow;
  if (MakeCopyPlan32(plan, &narrow)) {
    TiledCopyKernel<T, T><<<TiledBlocks(plan.count), kThreads, 0, stream>>>(
        narrow, reinterpret_cast<T*>(dst), reinterpret_cast<const T*>(src));
  } else {
    StridedCopyKernel<T><<<Blocks(plan.count), kThreads, 0, stream>>>(
        plan, reinterpret_cast<T*>(dst), reinterpret_cast<const T*>(src));
  }
}

}  // namespace

int LaunchStridedCopy(const CopyPlan& plan, uint64_t item_size, char* dst, const char* src,
                      uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  const uint64_t align = item_size == 16 ? 8 : item_size;
  const bool aligned = Aligned(dst, align) && Aligned(src, align);
  if (aligned && item_size == 1)
    Launch<uint8_t>(plan, dst, src, s);
  else if (aligned && item_size == 2)
    Launch<uint16_t>(plan, dst, src, s);
  else if (aligned && item_size == 4)
    Launch<uint32_t>(plan, dst, src, s);
  else if (aligned && item_size == 8)
    Launch<uint64_t>(plan, dst, src, s);
  else if (aligned && item_size == 16)
    Launch<Bytes16>(plan, dst, src, s);
  else {
    WithPlan(plan, [&](const auto& p, auto index) {
      using Plan = std::decay_t<decltype(p)>;
      StridedCopyBytesKernel<Plan, decltype(index)>
          <<<Blocks(plan.count), kThreads, 0, s>>>(p, item_size, dst, src);
    });
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchConvert(const CopyPlan& plan, ElementType dst_type, char* dst, ElementType src_type,
                  const char* src, uintptr_t stream) {
  const bool aligned = ElementsAligned(dst, dst_type) && ElementsAligned(src, src_type);
  // uint8 -> float32 (an image's bytes to a model's input, dl.normalize's
  // first pass on a device) through the tiled copy: ConvertKernel walks one
  // element a thread through ConvertElement's switches, and ran a permuted
  // frame batch at the untiled copy's pace. Every uint8 is a float32, so the
  // cast gives ConvertElement's value.
  CopyPlan32 narrow;
  if (aligned && SameType(src_type, ElementType{kDLUInt, 8}) &&
      SameType(dst_type, ElementType{kDLFloat, 32}) && MakeCopyPlan32(plan, &narrow)) {
    TiledCopyKernel<uint8_t, float><<<TiledBlocks(plan.count), kThreads, 0, StreamOf(stream)>>>(
        narrow, reinterpret_cast<float*>(dst), reinterpret_cast<const uint8_t*>(src));
    return static_cast<int>(cudaGetLastError());
  }
  WithPlan(plan, [&](const auto& p, auto index) {
    using Plan = std::decay_t<decltype(p)>;
    ConvertKernel<Plan, decltype(index)><<<Blocks(plan.count), kThreads, 0, StreamOf(stream)>>>(
        p, dst_type, dst, src_type, src, aligned);
  });
  return static_cast<int>(cudaGetLastError());
}

}  // namespace cuda
}  // namespace dlnode
