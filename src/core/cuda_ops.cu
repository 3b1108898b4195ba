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

// Lane 0's value, in every lane.
template <typename T>
__device__ __forceinline__ T FromLane0(T v) {
  return __shfl_sync(0xffffffffu, v, 0);
}
template <typename T>
__device__ __forceinline__ math::RowPick<T> FromLane0(math::RowPick<T> v) {
  return {__shfl_sync(0xffffffffu, v.value, 0), __shfl_sync(0xffffffffu, v.index, 0)};
}

// Rows by groups of threads (elementwise_math.h "Rows by a group"): a block
// a row, or for rows a warp's slice of shared memory holds, a warp a row,
// kRowsPerBlock rows a block. A block a row spent most of a short row's time
// waiting on its tree's barriers (softmax of [4096, 1000] took 1.7-2x
// torch's time on an H200, bench/README.md "CUDA ops"); a warp copies its
// row into its slice first (eight loads in flight a lane) and reads it
// there, and its tree's last levels are shuffles with no barrier. Both modes
// are one kernel, the mode the same for every thread: a warp kernel of its
// own cost 11 KB of machine code per architecture, the same functions
// inlined a second time.
constexpr int kRowsPerBlock = math::kRowThreads / math::kWarpLanes;
constexpr int kWarpRowBytes = 4096;  // a warp's slice: 32 KB a block

// The longest row a warp takes: 1,024 float32 (an ImageNet classifier's
// 1,000 logits fit), 512 float64 or 64-bit integers.
template <typename T>
constexpr int64_t kWarpRowMax = kWarpRowBytes / static_cast<int64_t>(sizeof(T));

template <typename T>
bool WarpRows(int64_t n) {
  return n <= kWarpRowMax<T>;
}

inline unsigned GroupBlocks(bool warp, int64_t rows) {
  return RowBlocks(warp ? (rows + kRowsPerBlock - 1) / kRowsPerBlock : rows);
}

// The warps' slices are dynamic shared memory, asked for by a launch of warps
// only (32 KB in every block would leave room for 6 blocks of a block-a-row
// launch on an SM where 8 fit).
inline unsigned GroupSharedBytes(bool warp) { return warp ? kRowsPerBlock * kWarpRowBytes : 0; }

// A thread's group: its warp, or its block. Warp w of block b takes row
// b * kRowsPerBlock + w, then a grid's worth of rows further on; a block b,
// then b + gridDim.x, ... Every thread of a group walks the same rows.
struct RowGroup {
  bool warp;
  int lane;       // the thread's index in its group
  int lanes;      // the group's threads
  int64_t first;  // its first row
  int64_t step;   // to its next row
};

__device__ __forceinline__ RowGroup GroupOf(bool warp) {
  if (!warp) {
    return {false, static_cast<int>(threadIdx.x), math::kRowThreads, int64_t{blockIdx.x},
            int64_t{gridDim.x}};
  }
  return {true, static_cast<int>(threadIdx.x % math::kWarpLanes), math::kWarpLanes,
          int64_t{blockIdx.x} * kRowsPerBlock + threadIdx.x / math::kWarpLanes,
          int64_t{gridDim.x} * kRowsPerBlock};
}

// The group's row: in the warp's slice of shared memory (src's n elements
// copied there once every lane is done with the last row), or src itself.
template <typename T>
__device__ const T* RowOf(const RowGroup& g, const T* src, int64_t n) {
  if (!g.warp) return src;
  extern __shared__ __align__(16) unsigned char slices[];
  T* row = reinterpret_cast<T*>(slices + threadIdx.x / math::kWarpLanes * kWarpRowBytes);
  __syncwarp();
#pragma unroll 8
  for (int j = g.lane; j < static_cast<int>(n); j += math::kWarpLanes) row[j] = src[j];
  __syncwarp();
  return row;
}

// The group's tree over each lane's `mine` (math::RowTreeStep's levels:
// part[l] combines part[l + half], half = 128 down to 1, a warp's lanes
// being the tree's threads below 32 after LaneTree), the result in every
// thread. A block's levels down to 32 partials in shared memory, then warp
// 0's by shuffles (lane l takes lane l + half, the pair the host tree
// combines, so the bits are the host's); the other warps shuffle their own
// values, unread.
template <typename T, typename Combine>
__device__ T GroupTree(const RowGroup& g, T* part, T mine, const Combine& combine) {
  const int tid = g.lane;
  if (!g.warp) {
    part[tid] = mine;
    __syncthreads();
    for (int half = math::kRowThreads / 2; half >= math::kWarpLanes; half >>= 1) {
      if (tid < half) part[tid] = combine(part[tid], part[tid + half]);
      __syncthreads();
    }
    if (tid < math::kWarpLanes) mine = part[tid];
  }
  for (int half = math::kWarpLanes / 2; half > 0; half >>= 1) {
    mine = combine(mine, ShuffleDown(mine, half));
  }
  if (g.warp) return FromLane0(mine);
  if (tid == 0) part[0] = mine;
  __syncthreads();
  const T result = part[0];
  __syncthreads();  // part is free again
  return result;
}

// A group a row, math::ReduceRow's order: each lane's threads' partials,
// then the tree. Warps take float32 rows only (sum(1) of [4096, 1024] took
// 1.55x torch's time on an H200): the warp path cost 33 KB of the gzipped
// binary in all four kernels, 11 in this one.
template <typename T>
constexpr bool kWarpReduces = std::is_same<T, float>::value;

template <typename T>
__global__ void ReduceRowsKernel(RowOp op, bool warp, const T* in, T* out, int64_t rows,
                                 int64_t n) {
  __shared__ T part[math::kRowThreads];
  const RowGroup g = GroupOf(kWarpReduces<T> && warp);
  const auto combine = [op](T a, T b) { return math::RowCombine<T>(op, a, b); };
  DLNODE_NO_UNROLL
  for (int64_t r = g.first; r < rows; r += g.step) {
    const T* row = RowOf(g, in + r * n, n);
    const T total = GroupTree(g, part, math::LaneReduce<T>(op, row, n, g.lane, g.lanes), combine);
    if (g.lane == 0) out[r] = total;
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
  const RowGroup g = GroupOf(false);
  const auto combine = [order](math::RowPick<T> a, math::RowPick<T> b) {
    return math::RowPickCombine<T>(order, a, b);
  };
  DLNODE_NO_UNROLL
  for (int64_t r = g.first; r < rows; r += g.step) {
    math::RowPick<T> after{T(0), -1};
    DLNODE_NO_UNROLL
    for (int64_t j = 0; j < k; ++j) {
      after =
          GroupTree(g, part, math::RowPickPartial<T>(order, in + r * n, n, g.lane, after), combine);
      if (g.lane == 0) {
        if (values != nullptr) values[r * k + j] = after.value;
        if (indices != nullptr) indices[r * k + j] = after.index;
      }
    }
  }
}

// A group a row, math::SoftmaxRow's order: the maximum's tree, the tree of
// the lanes' sums of exps, then every element written.
template <typename T>
__global__ void SoftmaxRowsKernel(bool log, bool warp, const T* in, T* out, int64_t rows,
                                  int64_t n) {
  __shared__ T part[math::kRowThreads];
  const RowGroup g = GroupOf(warp);
  const auto max = [](T a, T b) { return math::RowCombine<T>(RowOp::kMax, a, b); };
  const auto sum = [](T a, T b) { return math::RowCombine<T>(RowOp::kSum, a, b); };
  DLNODE_NO_UNROLL
  for (int64_t r = g.first; r < rows; r += g.step) {
    const T* row = RowOf(g, in + r * n, n);
    const T top =
        GroupTree(g, part, math::LaneReduce<T>(RowOp::kMax, row, n, g.lane, g.lanes), max);
    const T total = GroupTree(g, part, math::LaneSoftmaxSum<T>(row, n, g.lane, g.lanes, top), sum);
    T* dst = out + r * n;
    DLNODE_NO_UNROLL
    for (int64_t j = g.lane; j < n; j += g.lanes) {
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
  const bool warp = WarpRows<T>(n);
  SoftmaxRowsKernel<T><<<GroupBlocks(warp, rows), math::kRowThreads, GroupSharedBytes(warp), s>>>(
      log, warp, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(out), rows, n);
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
    const bool warp = kWarpReduces<T> && WarpRows<T>(n);
    ReduceRowsKernel<T><<<GroupBlocks(warp, rows), math::kRowThreads, GroupSharedBytes(warp), s>>>(
        op, warp, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(out), rows, n);
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
