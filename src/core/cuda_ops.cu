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

__global__ void SmallFloatKernel(ElementwiseOp op, int arity, const SmallPlan p,
                                 const OpArgs args) {
  const uint32_t step = gridDim.x * blockDim.x;
  float scalar[kMaxOperands - 1];
  for (int k = 0; k < kMaxOperands - 1; ++k) memcpy(&scalar[k], &args.scalar[k + 1], sizeof(float));
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < p.count; i += step) {
    const uint32_t rest = Divide(p.inner, i);
    const uint32_t c = i - rest * p.inner.divisor;
    const uint32_t a = Divide(p.middle, rest);
    const uint32_t b = rest - a * p.middle.divisor;
    float v[kMaxOperands - 1] = {0, 0, 0};
#pragma unroll
    for (int k = 0; k < kMaxOperands - 1; ++k) {
      if (k >= arity) break;
      const int64_t* st = p.strides[k + 1];
      v[k] =
          args.ptr[k + 1] == nullptr
              ? scalar[k]
              : reinterpret_cast<const float*>(args.ptr[k + 1])[a * st[0] + b * st[1] + c * st[2]];
    }
    const int64_t* so = p.strides[0];
    reinterpret_cast<float*>(args.ptr[0])[a * so[0] + b * so[1] + c * so[2]] =
        math::Apply<float, false>(op, v[0], v[1], v[2]);
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

// One block per row, math::ReduceRow's order: each thread's partial, then
// the tree in shared memory.
template <typename T>
__global__ void ReduceRowsKernel(RowOp op, const T* in, T* out, int64_t rows, int64_t n) {
  __shared__ T part[math::kRowThreads];
  const int tid = static_cast<int>(threadIdx.x);
  DLNODE_NO_UNROLL
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    part[tid] = math::RowPartial<T>(op, in + r * n, n, tid);
    __syncthreads();
    for (int half = math::kRowThreads / 2; half > 0; half >>= 1) {
      math::RowTreeStep<T>(op, part, half, tid);
      __syncthreads();
    }
    if (tid == 0) out[r] = part[0];
    __syncthreads();
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
  DLNODE_NO_UNROLL
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    math::RowPick<T> after{T(0), -1};
    DLNODE_NO_UNROLL
    for (int64_t j = 0; j < k; ++j) {
      part[tid] = math::RowPickPartial<T>(order, in + r * n, n, tid, after);
      __syncthreads();
      for (int half = math::kRowThreads / 2; half > 0; half >>= 1) {
        math::RowPickTreeStep<T>(order, part, half, tid);
        __syncthreads();
      }
      after = part[0];
      if (tid == 0) {
        if (values != nullptr) values[r * k + j] = after.value;
        if (indices != nullptr) indices[r * k + j] = after.index;
      }
      __syncthreads();
    }
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
    part[tid] = math::RowPartial<T>(math::RowOp::kMax, row, n, tid);
    __syncthreads();
    for (int half = math::kRowThreads / 2; half > 0; half >>= 1) {
      math::RowTreeStep<T>(math::RowOp::kMax, part, half, tid);
      __syncthreads();
    }
    const T top = part[0];
    __syncthreads();
    part[tid] = math::SoftmaxPartial<T>(row, n, tid, top);
    __syncthreads();
    for (int half = math::kRowThreads / 2; half > 0; half >>= 1) {
      math::RowTreeStep<T>(math::RowOp::kSum, part, half, tid);
      __syncthreads();
    }
    const T total = part[0];
    DLNODE_NO_UNROLL
    for (int64_t j = tid; j < n; j += math::kRowThreads) {
      out[r * n + j] = math::SoftmaxValue<T>(log, row[j], top, total);
    }
    __syncthreads();
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

}  // namespace

int LaunchElementwise(ElementwiseOp op, Scalar type, const OpPlan& plan, const OpArgs& args,
                      uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  SmallPlan small;
  if (plan.count > 0 && MakeSmallPlan(op, type, plan, &small)) {
    SmallFloatKernel<<<Blocks(plan.count), kThreads, 0, s>>>(op, plan.n - 1, small, args);
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

}  // namespace cuda
}  // namespace dlnode
