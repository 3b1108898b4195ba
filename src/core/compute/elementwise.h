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
// polynomials for AVX-512F and AVX2 (ExpDense, SigmoidDense, TanhDense).
// The other forms,
// and float64's exp, sigmoid and tanh (libm), have one baseline copy. Check
// the object code with `objdump -d
// build/Release/obj.target/dlpack/src/core/compute/elementwise.o`.
//
// Types: lib/ops.js promotes (torch.result_type), then converts every input
// to the computation's type before calling, so inputs share one type, but
// for where()'s condition (bool). Comparisons write bool. float16 and
// bfloat16 compute through float32 (lib/ops.js converts both ways); complex
// types are refused. Integer arithmetic wraps modulo 2^bits (torch, NumPy).
#ifndef DLPACK_NODE_CORE_COMPUTE_ELEMENTWISE_H_
#define DLPACK_NODE_CORE_COMPUTE_ELEMENTWISE_H_

#include <cstdint>

#include "../convert.h"
#include "../strided_loop.h"

// The op table: one row per op, X(jsName, Constant, inputs, Fn, domain).
// jsName is the op's name in lib/ops.js (handed to JS at load with the
// enum's value, src/addon/convention.cc), Fn the element function, a struct
// in elementwise_math.h with `Of<T, IsBool>` (DLNODE_HD: the host engine and
// the CUDA kernel call the same code) and its kind (a map T -> T, a
// comparison T -> bool, or where's select), and `domain` the types it
// computes in (math::Domain: kAll, kNoBool, kFloat). From the rows come the
// host dispatch (elementwise.cc Dispatch) and the device's Computes, Apply,
// Compare and Select (elementwise_math.h); a new op is a functor and a row.
#define DLNODE_ELEMENTWISE_OPS(X)                     \
  X(add, kAdd, 2, AddFn, kAll)                        \
  X(sub, kSub, 2, SubFn, kNoBool)                     \
  X(mul, kMul, 2, MulFn, kAll)                        \
  X(div, kDiv, 2, DivFn, kFloat)                      \
  X(maximum, kMaximum, 2, MaximumFn, kAll)            \
  X(minimum, kMinimum, 2, MinimumFn, kAll)            \
  X(pow, kPow, 2, PowFn, kNoBool)                     \
  X(eq, kEq, 2, EqFn, kAll)                           \
  X(ne, kNe, 2, NeFn, kAll)                           \
  X(lt, kLt, 2, LtFn, kAll)                           \
  X(le, kLe, 2, LeFn, kAll)                           \
  X(gt, kGt, 2, GtFn, kAll)                           \
  X(ge, kGe, 2, GeFn, kAll)                           \
  X(where, kWhere, 3, WhereFn, kAll)                  \
  X(neg, kNeg, 1, NegFn, kNoBool)                     \
  X(abs, kAbs, 1, AbsFn, kNoBool)                     \
  X(exp, kExp, 1, ExpFn, kFloat)                      \
  X(log, kLog, 1, LogFn, kFloat)                      \
  X(sqrt, kSqrt, 1, SqrtFn, kFloat)                   \
  X(sigmoid, kSigmoid, 1, SigmoidFn, kFloat)          \
  X(tanh, kTanh, 1, TanhFn, kFloat)                   \
  X(round, kRound, 1, RoundFn, kNoBool)               \
  X(clamp, kClamp, 3, ClampFn, kNoBool)               \
  X(clampMin, kClampMin, 2, MaximumFn, kNoBool)       \
  X(clampMax, kClampMax, 2, MinimumFn, kNoBool)       \
  X(relu, kRelu, 1, ReluFn, kNoBool)                  \
  X(gelu, kGelu, 1, GeluFn, kFloat)                   \
  X(geluTanh, kGeluTanh, 1, GeluTanhFn, kFloat)       \
  X(silu, kSilu, 1, SiluFn, kFloat)                   \
  X(erf, kErf, 1, ErfFn, kFloat)                      \
  X(log1p, kLog1p, 1, Log1pFn, kFloat)                \
  X(expm1, kExpm1, 1, Expm1Fn, kFloat)                \
  X(floor, kFloor, 1, FloorFn, kNoBool)               \
  X(ceil, kCeil, 1, CeilFn, kNoBool)                  \
  X(trunc, kTrunc, 1, TruncFn, kNoBool)               \
  X(sin, kSin, 1, SinFn, kFloat)                      \
  X(cos, kCos, 1, CosFn, kFloat)                      \
  X(rsqrt, kRsqrt, 1, RsqrtFn, kFloat)                \
  X(reciprocal, kReciprocal, 1, ReciprocalFn, kFloat) \
  X(sign, kSign, 1, SignFn, kAll)

namespace dlnode {

enum class ElementwiseOp {
#define DLNODE_ELEMENTWISE_ENUM(js, constant, ...) constant,
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

// The engine's plan (strided_loop.h) of `n` operands over `shape`: operand k
// at ops[k] with its strides in elements of sizes[k] bytes, uncoalesced
// (normalize.cc walks it by dims; the engine coalesces it).
strided::Plan MakePlan(int ndim, const int64_t* shape, int n, const Operand* ops,
                       const uint64_t* sizes);

// `value` as an element of `type` (the conversion rules of convert.h), into
// `dst`, which holds at least 16 bytes.
void StoreScalar(Scalar type, double value, void* dst);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_ELEMENTWISE_H_
