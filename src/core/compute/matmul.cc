#include "matmul.h"

#include <algorithm>
#include <cstdlib>

#include "../layout.h"
#include "cuda/cublas.h"
#include "gemm.h"
#include "scratch.h"

namespace dlnode {
namespace compute {
namespace {

bool Is16Bit(Scalar t) { return t == Scalar::kFloat16 || t == Scalar::kBfloat16; }

// Whether the last two dims of v (rows x cols) have a unit stride in one of
// them (a size-1 dim's stride is free), as the GEMM takes a matrix.
bool BlasReadable(const View& v) {
  const int r = v.ndim - 2;
  return v.strides[r] == 1 || v.strides[r + 1] == 1 || v.shape[r] == 1 || v.shape[r + 1] == 1;
}

// Whether the GEMM may write out's matrices where they are: a unit stride in
// one matrix dim, the other stepping past it, and batch dims apart.
bool BlasWritable(const View& v) {
  const int r = v.ndim - 2;
  const int64_t rows = v.shape[r];
  const int64_t cols = v.shape[r + 1];
  const int64_t rs = v.strides[r];
  const int64_t cs = v.strides[r + 1];
  const bool row_major = cs == 1 && (rows == 1 || std::llabs(rs) >= cols);
  const bool col_major = rs == 1 && (cols == 1 || std::llabs(cs) >= rows);
  if (!row_major && !col_major && !(rows == 1 && cols == 1)) return false;
  for (int d = 0; d < r; ++d) {
    if (v.shape[d] > 1 && v.strides[d] == 0) return false;
  }
  return true;
}

// Owns a dense copy of an operand: the operand's shape with broadcast dims
// (stride 0) kept at stride 0, so a broadcast batch is copied once.
template <class T>
struct Copy {
  Scratch<T> memory;
  uint64_t count = 0;  // elements
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};

  // Sizes the copy of v; false when the memory cannot be had.
  bool Allocate(const View& v) {
    count = 1;
    for (int d = v.ndim - 1; d >= 0; --d) {
      shape[d] = v.strides[d] == 0 ? 1 : v.shape[d];
      strides[d] = shape[d] == 1 ? 0 : static_cast<int64_t>(count);
      count *= static_cast<uint64_t>(shape[d]);
    }
    return memory.Allocate(count);
  }

  // Writes v (converted to T's scalar type `type`) and returns the view of it.
  View Fill(const View& v, Scalar type) {
    int64_t src_strides[kMaxDims];
    for (int d = 0; d < v.ndim; ++d) src_strides[d] = v.strides[d];
    View copy{reinterpret_cast<char*>(memory.data()), type, v.ndim, v.shape, strides};
    const char* lo = copy.first;
    const char* hi = lo + memory.size() * sizeof(T);
    ConvertStrided(v.ndim, shape, type, StridedView{copy.first, strides}, ByteRange{lo, hi}, v.type,
                   StridedView{v.first, src_strides}, v.bytes());
    return copy;
  }
};

template <class T>
ComputeResult HostTyped(const MatmulArgs& args, Scalar type) {
  const int r = args.out.ndim - 2;
  const bool convert = args.a.type != type;
  View a = args.a;
  View b = args.b;
  View bias = args.bias != nullptr ? *args.bias : View{};
  Copy<T> a_copy;
  Copy<T> b_copy;
  Copy<T> bias_copy;
  if (convert || !BlasReadable(a)) {
    if (!a_copy.Allocate(a))
      return OutOfMemory("matmul's copy of its first operand", a_copy.count * sizeof(T));
    a = a_copy.Fill(a, type);
  }
  if (convert || !BlasReadable(b)) {
    if (!b_copy.Allocate(b))
      return OutOfMemory("matmul's copy of its second operand", b_copy.count * sizeof(T));
    b = b_copy.Fill(b, type);
  }
  if (args.bias != nullptr && convert) {
    if (!bias_copy.Allocate(bias))
      return OutOfMemory("matmul's copy of its bias", bias_copy.count * sizeof(T));
    bias = bias_copy.Fill(bias, type);
  }
  const ByteRange out_bytes = args.out.bytes();
  const bool direct = !convert && BlasWritable(args.out) && !Overlap(out_bytes, a.bytes()) &&
                      !Overlap(out_bytes, b.bytes()) &&
                      (args.bias == nullptr || !Overlap(out_bytes, bias.bytes()));
  Scratch<T> staged;
  int64_t staged_strides[kMaxDims];
  View out = args.out;
  if (!direct) {
    const int64_t count = args.out.size();
    if (!staged.Allocate(static_cast<uint64_t>(count))) {
      return OutOfMemory("matmul's result before its copy into out",
                         static_cast<uint64_t>(count) * sizeof(T));
    }
    int64_t step = 1;
    for (int d = out.ndim - 1; d >= 0; --d) {
      staged_strides[d] = step;
      step *= out.shape[d];
    }
    out = View{reinterpret_cast<char*>(staged.data()), type, out.ndim, out.shape, staged_strides};
  }
  gemm::Operands<T> op;
  op.m = out.shape[r];
  op.n = out.shape[r + 1];
  op.k = a.shape[r + 1];
  op.a = reinterpret_cast<const T*>(a.first);
  op.a_rs = a.strides[r];
  op.a_cs = a.strides[r + 1];
  op.b = reinterpret_cast<const T*>(b.first);
  op.b_rs = b.strides[r];
  op.b_cs = b.strides[r + 1];
  op.c = reinterpret_cast<T*>(out.first);
  op.c_rs = out.strides[r];
  op.c_cs = out.strides[r + 1];
  if (args.bias != nullptr) {
    op.bias = reinterpret_cast<const T*>(bias.first);
    op.bias_stride = bias.strides[0];
  }
  op.batch_ndim = r;
  op.batch = out.shape;
  op.a_bs = a.strides;
  op.b_bs = b.strides;
  op.c_bs = out.strides;
  ComputeResult result;
  if constexpr (sizeof(T) == sizeof(float)) {
    result = gemm::Kernels().f32(op);
  } else {
    result = gemm::Kernels().f64(op);
  }
  if (!result.ok() || direct) return result;
  int64_t dst_strides[kMaxDims];
  for (int d = 0; d < out.ndim; ++d) dst_strides[d] = args.out.strides[d];
  ConvertStrided(out.ndim, out.shape, args.out.type, StridedView{args.out.first, dst_strides},
                 out_bytes, type, StridedView{out.first, staged_strides}, out.bytes());
  return {};
}

}  // namespace

bool MatmulTakes(Scalar type) {
  return type == Scalar::kFloat32 || type == Scalar::kFloat64 || Is16Bit(type);
}

ComputeResult Matmul(const MatmulArgs& args) {
  if (args.out.size() == 0) return {};
  if (args.place.device_type == kDLCUDA) return cuda::CublasMatmul(args);
  if (!IsHostAccessible(args.place.device_type)) {
    return Failed(ComputeFailure::kUnsupported,
                  "Expected a CPU or CUDA device for matmul, received device type " +
                      std::to_string(args.place.device_type));
  }
  if (args.out.type == Scalar::kFloat64) return HostTyped<double>(args, Scalar::kFloat64);
  return HostTyped<float>(args, Scalar::kFloat32);
}

}  // namespace compute
}  // namespace dlnode
