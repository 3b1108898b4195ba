// The kernels behind cuda_kernels.h. Each thread handles elements i,
// i + grid size, ...; PlanOffsets and the conversion rules are the host-tested
// code of device_copy.h.
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

// Index is int64_t with a CopyPlan, uint32_t with a CopyPlan32 (plans of
// fewer than 2^31 elements: no 64-bit division in the walk).
template <typename T, typename Plan, typename Index>
__global__ void StridedCopyKernel(const Plan plan, T* dst, const T* src) {
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < static_cast<Index>(plan.count); i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    dst[d] = src[s];
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
  WithPlan(plan, [&](const auto& p, auto index) {
    using Plan = std::decay_t<decltype(p)>;
    StridedCopyKernel<T, Plan, decltype(index)><<<Blocks(plan.count), kThreads, 0, stream>>>(
        p, reinterpret_cast<T*>(dst), reinterpret_cast<const T*>(src));
  });
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
  WithPlan(plan, [&](const auto& p, auto index) {
    using Plan = std::decay_t<decltype(p)>;
    ConvertKernel<Plan, decltype(index)><<<Blocks(plan.count), kThreads, 0, StreamOf(stream)>>>(
        p, dst_type, dst, src_type, src, aligned);
  });
  return static_cast<int>(cudaGetLastError());
}

}  // namespace cuda
}  // namespace dlnode
