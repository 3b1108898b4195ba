// The strided elementwise engine (docs/API.md "Ops"): one output and up to
// three inputs over one broadcast shape, as PyTorch's TensorIterator and
// NumPy's ufunc loops do. The iteration is strided_loop.h's, shared with the
// copies and conversions: size-1 dimensions dropped, dimensions contiguous in
// every operand merged, the flat index space split across the host pool
// (parallel.h, fixed grain, so the split never changes a result), and an
// inner loop called per run of the innermost dimension. An op is a functor
// and a row of DLNODE_ELEMENTWISE_OPS.
//
// The inner loops (elementwise.cc) are plain indexed loops over typed
// pointers, which the compiler vectorises: a dense case (every operand
// contiguous), a case per input held at stride 0 (a broadcast scalar), an
// in-place case (the output is the first input: one pointer, so no runtime
// overlap check, which an exact alias fails), and a strided fallback. Some
// dense loops are also compiled for wider vectors on x64 (fast_math.h's
// target_clones, picked at load by the CPU; arm64 has one copy): float32
// add, sub, mul and div for AVX2 (`vaddps` over ymm registers in their .avx2
// clones), their stores aligned to 32 bytes and the body unrolled
// (DenseLoop); float32 exp, sigmoid and tanh through fast_math.h's
// polynomials for AVX-512F and AVX2 (ExpDense, SigmoidDense, TanhDense);
// normalize's pass over an interleaved RGB frame for AVX2. The other forms,
// and float64's exp, sigmoid and tanh (libm), have one baseline copy. Check
// the object code with `objdump -d
// build/Release/obj.target/dlpack/src/core/elementwise.o`.
//
// Types: lib/ops.js promotes (torch.result_type), then converts every input
// to the computation's type before calling, so inputs share one type, but
// for where()'s condition (bool). Comparisons write bool. float16 and
// bfloat16 compute through float32 (lib/ops.js converts both ways); complex
// types are refused. Integer arithmetic wraps modulo 2^bits (torch, NumPy).
#ifndef DLPACK_NODE_CORE_ELEMENTWISE_H_
#define DLPACK_NODE_CORE_ELEMENTWISE_H_

#include <cstdint>

#include "convert.h"
#include "strided_loop.h"

// X(jsName, Constant, inputs)
#define DLNODE_ELEMENTWISE_OPS(X) \
  X(add, kAdd, 2)                 \
  X(sub, kSub, 2)                 \
  X(mul, kMul, 2)                 \
  X(div, kDiv, 2)                 \
  X(maximum, kMaximum, 2)         \
  X(minimum, kMinimum, 2)         \
  X(pow, kPow, 2)                 \
  X(eq, kEq, 2)                   \
  X(ne, kNe, 2)                   \
  X(lt, kLt, 2)                   \
  X(le, kLe, 2)                   \
  X(gt, kGt, 2)                   \
  X(ge, kGe, 2)                   \
  X(where, kWhere, 3)             \
  X(neg, kNeg, 1)                 \
  X(abs, kAbs, 1)                 \
  X(exp, kExp, 1)                 \
  X(log, kLog, 1)                 \
  X(sqrt, kSqrt, 1)               \
  X(sigmoid, kSigmoid, 1)         \
  X(tanh, kTanh, 1)               \
  X(round, kRound, 1)             \
  X(clamp, kClamp, 3)             \
  X(clampMin, kClampMin, 2)       \
  X(clampMax, kClampMax, 2)

namespace dlnode {

enum class ElementwiseOp {
#define DLNODE_ELEMENTWISE_ENUM(js, constant, inputs) constant,
  DLNODE_ELEMENTWISE_OPS(DLNODE_ELEMENTWISE_ENUM)
#undef DLNODE_ELEMENTWISE_ENUM
      kCount
};

// The number of inputs `op` takes.
int ElementwiseArity(ElementwiseOp op);

// One operand: element 0 and its strides in elements of its own type (0 where
// it is broadcast).
struct Operand {
  char* first;
  const int64_t* strides;
};

// out = op(in[0], ...) for every index of `shape`. `type` is the inputs' type
// (where(): the second and third input's; its first is bool); the output is of
// `type` too, bool for comparisons. Returns false, having written nothing,
// when `op` does not take `type` (complex, float16, bfloat16 for every op;
// bool for sub, neg, abs, pow; an integer type for div and the
// floating-point functions). The output may be an input, element for element;
// any other overlap is the caller's to stage.
bool Elementwise(ElementwiseOp op, Scalar type, int ndim, const int64_t* shape, Operand out,
                 const Operand* in);

// torchvision's normalize: out[..., c, h, w] = (in[..., c, h, w] * scale -
// mean[c]) / std[c], the channel at dim ndim - 3 (ndim >= 3). `in` of any
// real type but bool, `out` float32 or float64 (computed in that type). One
// pass, split over rows of the last dimension. Returns false for other types:
// a bool input is converted to uint8 first by lib/ops.js (convert.h: any
// nonzero byte is 1), since reading its bytes as numbers gave 255 for a 0/255
// mask (issue 37, finding 6); a loop of its own would cost 15 KB of code.
bool Normalize(int ndim, const int64_t* shape, Scalar in_type, Operand in, Scalar out_type,
               Operand out, const double* mean, const double* std, double scale);

// `value` as an element of `type` (the conversion rules of convert.h), into
// `dst`, which holds at least 16 bytes.
void StoreScalar(Scalar type, double value, void* dst);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_ELEMENTWISE_H_
