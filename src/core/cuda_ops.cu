// The kernels behind cuda_ops.h. Each thread handles elements i, i + grid
// size, ...; OpOffsets and the element functions are the host-tested code of
// elementwise_math.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "cuda_ops.h"
#include "device_copy.h"
#include "elementwise_math.h"

namespace dlnode {
namespace cuda {
namespace {

// Input k (1-based: 0 is the output) at its offset, or its scalar.
template <typename T>
__device__ __forceinline__ T Load(const OpArgs& args, int k, int64_t offset) {
  if (args.ptr[k] != nullptr) return reinterpret_cast<const T*>(args.ptr[k])[offset];
  T value;
  memcpy(&value, &args.scalar[k], sizeof(T));
  return value;
}

// One kernel per compute type; the op is the same for every thread.
template <typename T, bool IsBool>
__global__ void ElementwiseKernel(ElementwiseOp op, int arity, const OpPlan plan,
                                  const OpArgs args) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const bool compare = math::IsComparison(op);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count;
       i += step) {
    int64_t off[kMaxOperands];
    OpOffsets(plan, i, off);
    if (op == ElementwiseOp::kWhere) {
      reinterpret_cast<T*>(args.ptr[0])[off[0]] = math::Select<T, IsBool>(
          Load<math::Bool>(args, 1, off[1]), Load<T>(args, 2, off[2]), Load<T>(args, 3, off[3]));
    } else if (compare) {
      reinterpret_cast<math::Bool*>(args.ptr[0])[off[0]] =
          math::Compare<T, IsBool>(op, Load<T>(args, 1, off[1]), Load<T>(args, 2, off[2]));
    } else {
      const T a = Load<T>(args, 1, off[1]);
      const T b = arity > 1 ? Load<T>(args, 2, off[2]) : T(0);
      const T c = arity > 2 ? Load<T>(args, 3, off[3]) : T(0);
      reinterpret_cast<T*>(args.ptr[0])[off[0]] = math::Apply<T, IsBool>(op, a, b, c);
    }
  }
}

constexpr int kThreads = 256;

unsigned Blocks(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 1 << 16));
}

cudaStream_t StreamOf(uintptr_t value) {
  if (value == 1) return cudaStreamLegacy;
  if (value == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(value);
}

template <typename T, bool IsBool = false>
void Launch(ElementwiseOp op, const OpPlan& plan, const OpArgs& args, cudaStream_t stream) {
  ElementwiseKernel<T, IsBool>
      <<<Blocks(plan.count), kThreads, 0, stream>>>(op, plan.n - 1, plan, args);
}

}  // namespace

int LaunchElementwise(ElementwiseOp op, Scalar type, const OpPlan& plan, const OpArgs& args,
                      uintptr_t stream) {
  const cudaStream_t s = StreamOf(stream);
  switch (type) {
    case Scalar::kBool:
      Launch<math::Bool, true>(op, plan, args, s);
      break;
    case Scalar::kInt8:
      Launch<int8_t>(op, plan, args, s);
      break;
    case Scalar::kInt16:
      Launch<int16_t>(op, plan, args, s);
      break;
    case Scalar::kInt32:
      Launch<int32_t>(op, plan, args, s);
      break;
    case Scalar::kInt64:
      Launch<int64_t>(op, plan, args, s);
      break;
    case Scalar::kUint8:
      Launch<uint8_t>(op, plan, args, s);
      break;
    case Scalar::kUint16:
      Launch<uint16_t>(op, plan, args, s);
      break;
    case Scalar::kUint32:
      Launch<uint32_t>(op, plan, args, s);
      break;
    case Scalar::kUint64:
      Launch<uint64_t>(op, plan, args, s);
      break;
    case Scalar::kFloat32:
      Launch<float>(op, plan, args, s);
      break;
    case Scalar::kFloat64:
      Launch<double>(op, plan, args, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace cuda
}  // namespace dlnode
