// The kernels behind cuda_ops.h. Each thread handles elements i, i + grid
// size, ...; OpOffsets and the element functions are the host-tested code of
// elementwise_math.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_launch.h"
#include "cuda_ops.h"
#include "device_copy.h"
#include "device_normalize.h"
#include "elementwise_math.h"

namespace dlnode {
namespace cuda {
namespace {

// Input k (1-based: 0 is the output) at its offset, widened (math::LoadWidened),
// or its scalar, widened already (ScalarBits).
template <typename W>
__device__ __forceinline__ W Load(const OpArgs& args, int k, int64_t offset, int width) {
  if (args.ptr[k] != nullptr) return math::LoadWidened<W>(args.ptr[k], offset, width);
  W value;
  memcpy(&value, &args.scalar[k], sizeof(W));
  return value;
}

// One kernel per compute type (math::Widened: the integers of one signedness
// share one, `width` the bytes of their elements); the op is the same for
// every thread.
template <typename W, bool IsBool>
__global__ void ElementwiseKernel(ElementwiseOp op, int arity, int width, const OpPlan plan,
                                  const OpArgs args) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const bool compare = math::IsComparison(op);
  const bool where = op == ElementwiseOp::kWhere;
  DLNODE_NO_UNROLL
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count;
       i += step) {
    int64_t off[kMaxOperands];
    OpOffsets(plan, i, off);
    // One load site for every input (where()'s condition is a bool byte).
    W in[kMaxOperands - 1] = {W(0), W(0), W(0)};
    math::Bool condition = 0;
    DLNODE_NO_UNROLL
    for (int k = 0; k < arity; ++k) {
      if (where && k == 0) {
        condition = Load<math::Bool>(args, 1, off[1], 1);
      } else {
        in[k] = Load<W>(args, k + 1, off[k + 1], width);
      }
    }
    if (compare) {
      reinterpret_cast<math::Bool*>(args.ptr[0])[off[0]] =
          math::Compare<W, IsBool>(op, in[0], in[1]);
    } else {
      const W value = where ? math::Select<W, IsBool>(condition, in[1], in[2])
                            : math::Apply<W, IsBool>(op, in[0], in[1], in[2]);
      math::StoreNarrowed<W>(args.ptr[0], off[0], width, value);
    }
  }
}

// math::Apply<float> out of line: the tiled kernels below apply the op to
// several elements a thread, and Apply inlined at each (pow, tanh, ...) made
// each kernel several times its size for every architecture in the binary.
__device__ __noinline__ float ApplyCall(ElementwiseOp op, float a, float b, float c) {
  return math::Apply<float, false>(op, a, b, c);
}

// The ops pipelines run most, inline (math::Apply's expressions: exp took
// 1.33x torch's time through the call on an H200); the rest through ApplyCall.
__device__ __forceinline__ float ApplyFloat(ElementwiseOp op, float a, float b, float c) {
  switch (op) {
    case ElementwiseOp::kAdd:
      return a + b;
    case ElementwiseOp::kSub:
      return a - b;
    case ElementwiseOp::kMul:
      return a * b;
    case ElementwiseOp::kDiv:
      return a / b;
    case ElementwiseOp::kExp:
      return math::Exp(a);
    default:
      return ApplyCall(op, a, b, c);
  }
}

// float32, at most three dims after coalescing and fewer than 2^31 elements
// (dense operands, a scalar, a row or channel broadcast: what pipelines run):
// 32-bit indices through FastDividers, no per-element width or arity switch.
// The generic kernel above pays a 64-bit division per dim and a load switch
// per operand, several times the memory traffic's time on an H200.
struct SmallPlan {
  uint32_t count = 0;
  FastDivider inner{};                    // the last dim's size
  FastDivider middle{};                   // the middle dim's size
  int64_t strides[kMaxOperands][3] = {};  // per operand: outer, middle, inner (elements)
};

// Tiled as the copy kernels (cuda_launch.h kPer): element tile + u * kThreads +
// threadIdx.x for u < kPer, each thread's loads in flight together.

__device__ __forceinline__ void SmallOffsets(const SmallPlan& p, uint32_t i, uint32_t* a,
                                             uint32_t* b, uint32_t* c) {
  const uint32_t rest = Divide(p.inner, i);
  *c = i - rest * p.inner.divisor;
  *a = Divide(p.middle, rest);
  *b = rest - *a * p.middle.divisor;
}

__global__ void SmallFloatKernel(ElementwiseOp op, int arity, const SmallPlan p,
                                 const OpArgs args) {
  float scalar[kMaxOperands - 1];
#pragma unroll
  for (int k = 0; k < kMaxOperands - 1; ++k) memcpy(&scalar[k], &args.scalar[k + 1], sizeof(float));
  const uint32_t step = gridDim.x * kTile;
  for (uint32_t tile = blockIdx.x * kTile; tile < p.count; tile += step) {
    float v[kPer][kMaxOperands - 1];
    uint32_t at[kPer][3];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const uint32_t i = tile + u * kThreads + threadIdx.x;
      if (i >= p.count) break;
      SmallOffsets(p, i, &at[u][0], &at[u][1], &at[u][2]);
#pragma unroll
      for (int k = 0; k < kMaxOperands - 1; ++k) {
        v[u][k] = 0;
        if (k >= arity) continue;
        const int64_t* st = p.strides[k + 1];
        v[u][k] =
            args.ptr[k + 1] == nullptr
                ? scalar[k]
                : reinterpret_cast<const float*>(
                      args.ptr[k + 1])[at[u][0] * st[0] + at[u][1] * st[1] + at[u][2] * st[2]];
      }
    }
    const int64_t* so = p.strides[0];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      if (tile + u * kThreads + threadIdx.x >= p.count) break;
      reinterpret_cast<float*>(
          args.ptr[0])[at[u][0] * so[0] + at[u][1] * so[1] + at[u][2] * so[2]] =
          ApplyFloat(op, v[u][0], v[u][1], v[u][2]);
    }
  }
}

// The SmallPlan of `plan` where SmallFloatKernel takes it.
bool MakeSmallPlan(ElementwiseOp op, Scalar type, const OpPlan& plan, SmallPlan* out) {
  if (type != Scalar::kFloat32 || math::IsComparison(op) || op == ElementwiseOp::kWhere ||
      plan.ndim > 3 || plan.count >= (int64_t{1} << 31)) {
    return false;
  }
  int64_t size[3] = {1, 1, 1};
  const int skip = 3 - plan.ndim;  // the plan's dims are the last ones
  for (int d = 0; d < plan.ndim; ++d) size[skip + d] = plan.shape[d];
  out->count = static_cast<uint32_t>(plan.count);
  out->inner = MakeDivider(static_cast<uint32_t>(size[2]));
  out->middle = MakeDivider(static_cast<uint32_t>(size[1]));
  for (int k = 0; k < plan.n; ++k) {
    for (int d = 0; d < plan.ndim; ++d) out->strides[k][skip + d] = plan.strides[k][d];
  }
  return true;
}

// float32 plans of one dense dim (every operand contiguous or a scalar, each
// tensor's pointer 16-byte aligned) under 2^31 elements: four elements a
// thread per step through float4 loads and stores, the widest access a
// thread makes. With one float a thread, add of 64M float32 moved 2.5 TB/s on
// an H200; with this kernel 3.6 (torch 3.9; bench/README.md "CUDA ops").
__global__ void DenseFloatKernel(ElementwiseOp op, int arity, uint32_t count, const OpArgs args) {
  float scalar[kMaxOperands - 1];
  const float* in[kMaxOperands - 1];
#pragma unroll
  for (int k = 0; k < kMaxOperands - 1; ++k) {
    memcpy(&scalar[k], &args.scalar[k + 1], sizeof(float));
    in[k] = reinterpret_cast<const float*>(args.ptr[k + 1]);
  }
  float* out = reinterpret_cast<float*>(args.ptr[0]);
  const uint32_t quads = count / 4;
  const uint32_t first = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t q = first; q < quads; q += step) {
    float4 v[kMaxOperands - 1] = {};  // the inputs the op does not take stay 0
#pragma unroll
    for (int k = 0; k < kMaxOperands - 1; ++k) {
      if (k >= arity) break;
      v[k] = in[k] == nullptr ? make_float4(scalar[k], scalar[k], scalar[k], scalar[k])
                              : reinterpret_cast<const float4*>(in[k])[q];
    }
    float4 r;
    r.x = ApplyFloat(op, v[0].x, v[1].x, v[2].x);
    r.y = ApplyFloat(op, v[0].y, v[1].y, v[2].y);
    r.z = ApplyFloat(op, v[0].z, v[1].z, v[2].z);
    r.w = ApplyFloat(op, v[0].w, v[1].w, v[2].w);
    reinterpret_cast<float4*>(out)[q] = r;
  }
  // The last count % 4 elements, one a thread.
  const uint32_t i = quads * 4 + first;
  if (i < count) {
    float v[kMaxOperands - 1] = {0, 0, 0};
#pragma unroll
    for (int k = 0; k < kMaxOperands - 1; ++k) {
      if (k >= arity) break;
      v[k] = in[k] == nullptr ? scalar[k] : in[k][i];
    }
    out[i] = ApplyFloat(op, v[0], v[1], v[2]);
  }
}

// Whether DenseFloatKernel takes the plan (MakeSmallPlan's rules hold).
bool DenseFloat(const OpPlan& plan, const OpArgs& args) {
  if (plan.ndim != 1) return false;
  for (int k = 0; k < plan.n; ++k) {
    if (args.ptr[k] == nullptr) continue;  // a scalar (only inputs are)
    if (plan.strides[k][0] != 1 || reinterpret_cast<uintptr_t>(args.ptr[k]) % 16 != 0) return false;
  }
  return true;
}

// A value moved down the warp: lane l gets lane l + by's.
template <typename T>
__device__ __forceinline__ T ShuffleDown(T v, int by) {
  return __shfl_down_sync(0xffffffffu, v, by);
}
template <typename T>
__device__ __forceinline__ math::RowPick<T> ShuffleDown(math::RowPick<T> v, int by) {
  return {__shfl_down_sync(0xffffffffu, v.value, by), __shfl_down_sync(0xffffffffu, v.index, by)};
}

// The block's tree over each thread's `mine` (math::RowTreeStep's levels:
// part[tid] combines part[tid + half], half = 128 down to 1), the result in
// part[0] for every thread once it returns. Shared memory down to 32
// partials, then warp 0 by shuffles: lane l takes lane l + half, the pair
// the host tree combines, so the bits are the host's.
template <typename T, typename Combine>
__device__ T BlockTree(T* part, int tid, T mine, const Combine& combine) {
  part[tid] = mine;
  __syncthreads();
  for (int half = math::kRowThreads / 2; half >= 32; half >>= 1) {
    if (tid < half) part[tid] = combine(part[tid], part[tid + half]);
    __syncthreads();
  }
  if (tid < 32) {
    T v = part[tid];
    for (int half = 16; half > 0; half >>= 1) v = combine(v, ShuffleDown(v, half));
    if (tid == 0) part[0] = v;
  }
  __syncthreads();
  const T result = part[0];
  __syncthreads();  // part is free again
  return result;
}

// One block per row, math::ReduceRow's order: each thread's partial, then
// the tree.
template <typename T>
__global__ void ReduceRowsKernel(RowOp op, const T* in, T* out, int64_t rows, int64_t n) {
  __shared__ T part[math::kRowThreads];
  const int tid = static_cast<int>(threadIdx.x);
  const auto combine = [op](T a, T b) { return math::RowCombine<T>(op, a, b); };
  DLNODE_NO_UNROLL
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T total = BlockTree(part, tid, math::RowPartial<T>(op, in + r * n, n, tid), combine);
    if (tid == 0) out[r] = total;
  }
}

// One block per row, k rounds of the pick tree (math::PickRow's order):
// round j writes the best element after round j - 1's pick, so the k picks
// come out in the order (argmax/argmin/max(dim)/min(dim) are k = 1). The rows
// are read k times: O(k n) per row.
template <typename T>
__global__ void RowPicksKernel(PickOrder order, const T* in, T* values, int64_t* indices,
                               int64_t rows, int64_t n, int64_t k) {
  __shared__ math::RowPick<T> part[math::kRowThreads];
  const int tid = static_cast<int>(threadIdx.x);
  const auto combine = [order](math::RowPick<T> a, math::RowPick<T> b) {
    return math::RowPickCombine<T>(order, a, b);
  };
  DLNODE_NO_UNROLL
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    math::RowPick<T> after{T(0), -1};
    DLNODE_NO_UNROLL
    for (int64_t j = 0; j < k; ++j) {
      after =
          BlockTree(part, tid, math::RowPickPartial<T>(order, in + r * n, n, tid, after), combine);
      if (tid == 0) {
        if (values != nullptr) values[r * k + j] = after.value;
        if (indices != nullptr) indices[r * k + j] = after.index;
      }
    }
  }
}

// float32 rows of at most kSoftmaxHeld * kRowThreads elements (1024: an
// ImageNet classifier's 1000 logits fit): each thread holds its
// elements (and then their exps) in registers, so the row is read once and
// each exp computed once; the values and their order are math::SoftmaxRow's
// (RowPartial's max, SoftmaxPartial's Kahan sum, SoftmaxValue).
constexpr int kSoftmaxHeld = 4;

template <typename T>
__device__ T MaxOf(T a, T b) {
  return math::RowCombine<T>(math::RowOp::kMax, a, b);
}
template <typename T>
__device__ T SumOf(T a, T b) {
  return math::RowCombine<T>(math::RowOp::kSum, a, b);
}

// One row of at most kSoftmaxHeld * kRowThreads elements, held.
__device__ void SoftmaxHeldRow(bool log, const float* row, float* dst, int64_t n, int tid,
                               float* part) {
  float x[kSoftmaxHeld];
  float e[kSoftmaxHeld];
  float partial = math::RowIdentity<float>(math::RowOp::kMax);
#pragma unroll
  for (int c = 0; c < kSoftmaxHeld; ++c) {
    const int64_t j = tid + int64_t{c} * math::kRowThreads;
    x[c] = j < n ? row[j] : 0.0f;
    if (j < n) partial = MaxOf(partial, x[c]);
  }
  const float top = BlockTree(part, tid, partial, MaxOf<float>);
  float acc = 0.0f;
  float lost = 0.0f;  // SoftmaxPartial's sum, over the held exps
#pragma unroll
  for (int c = 0; c < kSoftmaxHeld; ++c) {
    if (tid + int64_t{c} * math::kRowThreads >= n) break;
    e[c] = math::Exp(x[c] - top);
    math::KahanAdd(&acc, &lost, e[c]);
  }
  const float total = BlockTree(part, tid, acc, SumOf<float>);
  const float shift = log ? math::Log(total) : 0.0f;
#pragma unroll
  for (int c = 0; c < kSoftmaxHeld; ++c) {
    const int64_t j = tid + int64_t{c} * math::kRowThreads;
    if (j >= n) break;
    dst[j] = log ? (x[c] - top) - shift : e[c] / total;  // SoftmaxValue
  }
}

// One block per row, math::SoftmaxRow's order: the maximum's tree, the
// tree of the threads' sums of exps, then every element written.
template <typename T>
__global__ void SoftmaxRowsKernel(bool log, const T* in, T* out, int64_t rows, int64_t n) {
  __shared__ T part[math::kRowThreads];
  const int tid = static_cast<int>(threadIdx.x);
  DLNODE_NO_UNROLL
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = in + r * n;
    T* dst = out + r * n;
    if constexpr (std::is_same<T, float>::value) {
      if (n <= int64_t{kSoftmaxHeld} * math::kRowThreads) {
        SoftmaxHeldRow(log, row, dst, n, tid, part);
        continue;
      }
    }
    const T top =
        BlockTree(part, tid, math::RowPartial<T>(math::RowOp::kMax, row, n, tid), MaxOf<T>);
    const T total = BlockTree(part, tid, math::SoftmaxPartial<T>(row, n, tid, top), SumOf<T>);
    DLNODE_NO_UNROLL
    for (int64_t j = tid; j < n; j += math::kRowThreads) {
      dst[j] = math::SoftmaxValue<T>(log, row[j], top, total);
    }
  }
}

// f(T{}) for T the accumulator type of a row kernel over `type` (int64,
// uint64, float32, float64), then the launch's status; any other type is
// cudaErrorInvalidValue.
template <typename F>
int WithRowType(Scalar type, const F& f) {
  switch (type) {
    case Scalar::kInt64:
      f(int64_t{});
      break;
    case Scalar::kUint64:
      f(uint64_t{});
      break;
    case Scalar::kFloat32:
      f(float{});
      break;
    case Scalar::kFloat64:
      f(double{});
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
void LaunchSoftmax(bool log, const char* in, char* out, int64_t rows, int64_t n, cudaStream_t s) {
  const unsigned blocks = RowBlocks(rows);
  SoftmaxRowsKernel<T><<<blocks, math::kRowThreads, 0, s>>>(log, reinterpret_cast<const T*>(in),
                                                            reinterpret_cast<T*>(out), rows, n);
}

template <typename W, bool IsBool = false>
void Launch(ElementwiseOp op, int width, const OpPlan& plan, const OpArgs& args,
            cudaStream_t stream) {
  ElementwiseKernel<W, IsBool>
      <<<Blocks(plan.count), kThreads, 0, stream>>>(op, plan.n - 1, width, plan, args);
}

// dl.normalize in one pass (device_normalize.h): TiledCopyKernel's walk, each
// element's channel from its index, mean and std from shared memory (a
// dynamic index into the launch's arguments would go through local memory).
// One kernel for both input dtypes (`floats`: float32, else uint8 or bool,
// the same for every thread): two would double its code on every
// architecture for one load instruction.
__global__ void NormalizeKernel(const NormalizePlan32 plan, const NormalizeValues values,
                                float* dst, const char* src, bool floats) {
  __shared__ float means[kDeviceNormalizeChannels];
  __shared__ float stds[kDeviceNormalizeChannels];
  const uint32_t channels = plan.channels.divisor;
  for (uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
    means[c] = values.mean[c];
    stds[c] = values.std[c];
  }
  __syncthreads();
  const uint32_t count = plan.walk.count;
  for (uint32_t tile = blockIdx.x * kTile; tile < count; tile += gridDim.x * kTile) {
    int64_t d[kPer];
    float v[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const uint32_t i = tile + u * kThreads + threadIdx.x;
      if (i >= count) break;
      int64_t s;
      PlanOffsets(plan.walk, i, &d[u], &s);
      v[u] = floats ? reinterpret_cast<const float*>(src)[s]
                    : static_cast<float>(reinterpret_cast<const uint8_t*>(src)[s]);
    }
    // Rolled: the loads above are what must be in flight together, and an
    // IEEE division unrolled four times is most of the kernel's code.
    DLNODE_NO_UNROLL
    for (int u = 0; u < kPer; ++u) {
      const uint32_t i = tile + u * kThreads + threadIdx.x;
      if (i >= count) break;
      const uint32_t c = ChannelOf(plan, i);
      dst[d[u]] = NormalizeValue(v[u], values.scale, means[c], stds[c]);
    }
  }
}

}  // namespace

int LaunchElementwise(ElementwiseOp op, Scalar type, const OpPlan& plan, const OpArgs& args,
                      uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  SmallPlan small;
  if (plan.count > 0 && MakeSmallPlan(op, type, plan, &small)) {
    if (DenseFloat(plan, args)) {
      const uint32_t count = static_cast<uint32_t>(plan.count);
      DenseFloatKernel<<<TiledBlocks(count), kThreads, 0, s>>>(op, plan.n - 1, count, args);
      return static_cast<int>(cudaGetLastError());
    }
    SmallFloatKernel<<<TiledBlocks(plan.count), kThreads, 0, s>>>(op, plan.n - 1, small, args);
    return static_cast<int>(cudaGetLastError());
  }
  int width = 8;
  if (type == Scalar::kBool || type == Scalar::kInt8 || type == Scalar::kUint8) width = 1;
  if (type == Scalar::kInt16 || type == Scalar::kUint16) width = 2;
  if (type == Scalar::kInt32 || type == Scalar::kUint32 || type == Scalar::kFloat32) width = 4;
  switch (type) {
    case Scalar::kBool:
      Launch<math::Bool, true>(op, width, plan, args, s);
      break;
    case Scalar::kInt8:
    case Scalar::kInt16:
    case Scalar::kInt32:
    case Scalar::kInt64:
      Launch<int64_t>(op, width, plan, args, s);
      break;
    case Scalar::kUint8:
    case Scalar::kUint16:
    case Scalar::kUint32:
    case Scalar::kUint64:
      Launch<uint64_t>(op, width, plan, args, s);
      break;
    case Scalar::kFloat32:
      Launch<float>(op, width, plan, args, s);
      break;
    case Scalar::kFloat64:
      Launch<double>(op, width, plan, args, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchReduceRows(RowOp op, Scalar type, const char* in, char* out, int64_t rows, int64_t n,
                     uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  return WithRowType(type, [&](auto tag) {
    using T = decltype(tag);
    ReduceRowsKernel<T><<<RowBlocks(rows), math::kRowThreads, 0, s>>>(
        op, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(out), rows, n);
  });
}

int LaunchRowPicks(Scalar type, PickOrder order, const char* in, char* values, int64_t* indices,
                   int64_t rows, int64_t n, int64_t k, uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  return WithRowType(type, [&](auto tag) {
    using T = decltype(tag);
    RowPicksKernel<T><<<RowBlocks(rows), math::kRowThreads, 0, s>>>(
        order, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(values), indices, rows, n, k);
  });
}

int LaunchSoftmaxRows(Scalar type, bool log, const char* in, char* out, int64_t rows, int64_t n,
                      uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  if (type == Scalar::kFloat32) {
    LaunchSoftmax<float>(log, in, out, rows, n, s);
  } else if (type == Scalar::kFloat64) {
    LaunchSoftmax<double>(log, in, out, rows, n, s);
  } else {
    return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchNormalize(Scalar in_type, const NormalizePlan32& plan, const NormalizeValues& values,
                    const char* in, char* out, uintptr_t stream) {
  if (in_type != Scalar::kUint8 && in_type != Scalar::kFloat32) {
    return static_cast<int>(cudaErrorInvalidValue);
  }
  NormalizeKernel<<<TiledBlocks(plan.walk.count), kThreads, 0, StreamOf(stream)>>>(
      plan, values, reinterpret_cast<float*>(out), in, in_type == Scalar::kFloat32);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace cuda
}  // namespace dlnode
