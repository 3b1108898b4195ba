// The kernels behind cuda_kernels.h. Each thread handles elements i,
// i + grid size, ...; PlanOffsets and the conversion rules are the host-tested
// code of device_copy.h.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_kernels.h"
#include "device_copy.h"

namespace dlnode {
namespace cuda {
namespace {

// 16-byte elements (complex128) need only 8-byte alignment in DLPack.
struct alignas(8) Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

template <typename T>
__global__ void StridedCopyKernel(const CopyPlan plan, T* dst, const T* src) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count; i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    dst[d] = src[s];
  }
}

// Any element size, or pointers not aligned to it: byte by byte.
__global__ void StridedCopyBytesKernel(const CopyPlan plan, uint64_t item, char* dst, const char* src) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count; i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    for (uint64_t b = 0; b < item; ++b) dst[d * static_cast<int64_t>(item) + b] = src[s * static_cast<int64_t>(item) + b];
  }
}

__global__ void ConvertKernel(const CopyPlan plan, ElementType dst_type, char* dst, ElementType src_type,
                              const char* src) {
  const int64_t dst_item = dst_type.bits / 8;
  const int64_t src_item = src_type.bits / 8;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count; i += step) {
    int64_t d;
    int64_t s;
    PlanOffsets(plan, i, &d, &s);
    StoreElement(dst + d * dst_item, dst_type, LoadElement(src + s * src_item, src_type));
  }
}

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  // Enough blocks to fill any current GPU several times over; the loop covers the rest.
  return static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 1 << 16));
}

cudaStream_t StreamOf(uintptr_t value) {
  if (value == 1) return cudaStreamLegacy;
  if (value == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(value);
}

bool Aligned(const void* p, uint64_t item) { return reinterpret_cast<uintptr_t>(p) % item == 0; }

template <typename T>
void Launch(const CopyPlan& plan, char* dst, const char* src, cudaStream_t stream) {
  StridedCopyKernel<T><<<Blocks(plan.count), kThreads, 0, stream>>>(plan, reinterpret_cast<T*>(dst),
                                                                    reinterpret_cast<const T*>(src));
}

}  // namespace

int LaunchStridedCopy(const CopyPlan& plan, uint64_t item_size, char* dst, const char* src, uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  const uint64_t align = item_size == 16 ? 8 : item_size;
  const bool aligned = Aligned(dst, align) && Aligned(src, align);
  if (aligned && item_size == 1) Launch<uint8_t>(plan, dst, src, s);
  else if (aligned && item_size == 2) Launch<uint16_t>(plan, dst, src, s);
  else if (aligned && item_size == 4) Launch<uint32_t>(plan, dst, src, s);
  else if (aligned && item_size == 8) Launch<uint64_t>(plan, dst, src, s);
  else if (aligned && item_size == 16) Launch<Bytes16>(plan, dst, src, s);
  else StridedCopyBytesKernel<<<Blocks(plan.count), kThreads, 0, s>>>(plan, item_size, dst, src);
  return static_cast<int>(cudaGetLastError());
}

int LaunchConvert(const CopyPlan& plan, ElementType dst_type, char* dst, ElementType src_type, const char* src,
                  uintptr_t stream) {
  ConvertKernel<<<Blocks(plan.count), kThreads, 0, StreamOf(stream)>>>(plan, dst_type, dst, src_type, src);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace cuda
}  // namespace dlnode
