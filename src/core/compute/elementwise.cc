#include "elementwise.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "../element.h"
#include "../layout.h"
#include "../parallel.h"
#include "../scratch.h"
#include "../strided_loop.h"
#include "elementwise_math.h"
#include "fast_math.h"

namespace dlnode {
namespace {

// The iteration (strided_loop.h), shared with copies and conversions.
using strided::Coalesce;
using strided::Plan;
using strided::Run;
using strided::Walk;

// --- inner loops -------------------------------------------------------------
// Each has a dense case and a case per broadcast input: plain indexed loops
// over typed pointers, which GCC and Clang vectorise at -O3 (with a runtime
// check for an output that aliases an input).

template <typename Out, typename In, typename F>
void Loop1(char** p, const int64_t* s, int64_t n, const F& f) {
  if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    if constexpr (std::is_same<Out, In>::value) {
      if (p[0] == p[1]) {  // in place: see Loop2
        for (int64_t i = 0; i < n; ++i) o[i] = f(o[i]);
        return;
      }
    }
    const auto* a = reinterpret_cast<const In*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    return;
  }
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) {
    *reinterpret_cast<Out*>(o) = f(*reinterpret_cast<const In*>(a));
  }
}

// How a dense run writes o[i] = element(i) for i in [0, n): one plain
// indexed loop, which GCC and Clang vectorise at -O3. AlignedRun (below) is
// the float32 arithmetic's.
struct PlainRun {
  template <typename T, typename Element>
  static void Write(T* o, int64_t n, const Element& element) {
    for (int64_t i = 0; i < n; ++i) o[i] = element(i);
  }
};

// Two inputs: the one case analysis of a binary loop (in place, dense, a
// broadcast input on either side, else strided), each dense case a Run.
// In place (the output is the first input, element for element) reads and
// writes through one pointer, so the loop vectorises without the runtime
// overlap check, which an exact alias fails (GCC then runs the scalar loop).
// DLNODE_INLINE: AddF32 and the others below are its clone-compiled callers.
template <typename Out, typename In, typename Run = PlainRun, typename F>
DLNODE_INLINE void Loop2(char** p, const int64_t* s, int64_t n, const F& f) {
  auto* o = reinterpret_cast<Out*>(p[0]);
  const auto* a = reinterpret_cast<const In*>(p[1]);
  const auto* b = reinterpret_cast<const In*>(p[2]);
  if (s[0] == sizeof(Out)) {
    if constexpr (std::is_same<Out, In>::value) {
      if (p[0] == p[1] && s[1] == sizeof(In) && (s[2] == 0 || s[2] == sizeof(In))) {
        if (s[2] == 0) {
          const In bv = *b;
          Run::Write(o, n, [o, bv, &f](int64_t i) { return f(o[i], bv); });
        } else {
          Run::Write(o, n, [o, b, &f](int64_t i) { return f(o[i], b[i]); });
        }
        return;
      }
    }
    if (s[1] == sizeof(In) && s[2] == sizeof(In)) {
      Run::Write(o, n, [a, b, &f](int64_t i) { return f(a[i], b[i]); });
      return;
    }
    if (s[1] == sizeof(In) && s[2] == 0) {
      const In bv = *b;
      Run::Write(o, n, [a, bv, &f](int64_t i) { return f(a[i], bv); });
      return;
    }
    if (s[1] == 0 && s[2] == sizeof(In)) {
      const In av = *a;
      Run::Write(o, n, [av, b, &f](int64_t i) { return f(av, b[i]); });
      return;
    }
  }
  char* oc = p[0];
  const char* ac = p[1];
  const char* bc = p[2];
  for (int64_t i = 0; i < n; ++i, oc += s[0], ac += s[1], bc += s[2]) {
    *reinterpret_cast<Out*>(oc) =
        f(*reinterpret_cast<const In*>(ac), *reinterpret_cast<const In*>(bc));
  }
}

// float32 add, sub, mul and div through Loop2 with AlignedRun's dense runs, in
// functions compiled for AVX2 too: eight lanes a register where the baseline
// has four, which halves the time of a division (x.div_(std)). The same IEEE
// operations as the plain loop's, so the same bits.
enum class Arith { kAdd, kSub, kMul, kDiv };

template <Arith kOp, typename T>
inline T ApplyArith(T a, T b) {
  if constexpr (kOp == Arith::kAdd) return a + b;
  if constexpr (kOp == Arith::kSub) return a - b;
  if constexpr (kOp == Arith::kMul) return a * b;
  return a / b;
}

// How many of n floats from `o` come before its next 32-byte boundary.
// Memory that is not even float-aligned gets no head.
inline int64_t Head(const void* o, int64_t n) {
  const auto misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(o) & 31U);
  if (misaligned % static_cast<int64_t>(sizeof(float)) != 0) return 0;
  return std::min<int64_t>(n, (32 - misaligned) % 32 / static_cast<int64_t>(sizeof(float)));
}

#if defined(__GNUC__) && !defined(__clang__)
#define DLNODE_UNROLL4 _Pragma("GCC unroll 4")
#else
#define DLNODE_UNROLL4
#endif

// A dense float32 run: the same operations on each element as one plain
// loop (so the same bits), in two runs:
// - the elements before o's first 32-byte boundary on their own, so that the
//   vector body's stores (and, in place, its loads) never straddle two cache
//   lines. Memory malloc maps for a large buffer starts 16 bytes past a page
//   (its chunk header), and an in-place mul_ over a view at that offset was
//   slower than over the same buffer 16 bytes on (the figures: bench/README.md
//   "Compute");
// - the body unrolled to four vector iterations an iteration (torch's kernel
//   does two), which made sub_, the in-place pair and add into out faster at
//   2 threads (the same section).
struct AlignedRun {
  template <typename Element>
  DLNODE_INLINE static void Write(float* o, int64_t n, const Element& element) {
    const int64_t head = Head(o, n);
    for (int64_t i = 0; i < head; ++i) o[i] = element(i);
    DLNODE_UNROLL4
    for (int64_t i = head; i < n; ++i) o[i] = element(i);
  }
};

DLNODE_VECTOR_CLONES void AddF32(char** p, const int64_t* s, int64_t n) {
  Loop2<float, float, AlignedRun>(
      p, s, n, [](float a, float b) { return ApplyArith<Arith::kAdd, float>(a, b); });
}
DLNODE_VECTOR_CLONES void SubF32(char** p, const int64_t* s, int64_t n) {
  Loop2<float, float, AlignedRun>(
      p, s, n, [](float a, float b) { return ApplyArith<Arith::kSub, float>(a, b); });
}
DLNODE_VECTOR_CLONES void MulF32(char** p, const int64_t* s, int64_t n) {
  Loop2<float, float, AlignedRun>(
      p, s, n, [](float a, float b) { return ApplyArith<Arith::kMul, float>(a, b); });
}
DLNODE_VECTOR_CLONES void DivF32(char** p, const int64_t* s, int64_t n) {
  Loop2<float, float, AlignedRun>(
      p, s, n, [](float a, float b) { return ApplyArith<Arith::kDiv, float>(a, b); });
}

// Loop2 for one of the four, float32 through the functions above.
template <typename T, Arith kOp>
void ArithLoop(char** q, const int64_t* s, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {
    if constexpr (kOp == Arith::kAdd) return AddF32(q, s, n);
    if constexpr (kOp == Arith::kSub) return SubF32(q, s, n);
    if constexpr (kOp == Arith::kMul) return MulF32(q, s, n);
    if constexpr (kOp == Arith::kDiv) return DivF32(q, s, n);
  }
  Loop2<T, T>(q, s, n, ApplyArith<kOp, T>);
}

// Three inputs: types A (where's condition), B, B.
template <typename Out, typename A, typename B, typename F>
void Loop3(char** p, const int64_t* s, int64_t n, const F& f) {
  if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(B)) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    const auto* a = reinterpret_cast<const A*>(p[1]);
    const auto* b = reinterpret_cast<const B*>(p[2]);
    const auto* c = reinterpret_cast<const B*>(p[3]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i], c[i]);
    return;
  }
  char* oc = p[0];
  const char* ac = p[1];
  const char* bc = p[2];
  const char* cc = p[3];
  for (int64_t i = 0; i < n; ++i, oc += s[0], ac += s[1], bc += s[2], cc += s[3]) {
    *reinterpret_cast<Out*>(oc) =
        f(*reinterpret_cast<const A*>(ac), *reinterpret_cast<const B*>(bc),
          *reinterpret_cast<const B*>(cc));
  }
}

// --- element functions ---------------------------------------------------------

// The element functions shared with the CUDA kernel (elementwise_math.h).
using math::Bool;
using math::kIsFloat;

// exp, sigmoid and tanh: float32 through fast_math.h (whose loops vectorise),
// float64 through libm.
template <typename T>
T Exp(T a) {
  if constexpr (std::is_same<T, float>::value) {
    return FastExp(a);
  } else {
    return std::exp(a);
  }
}
template <typename T>
T Sigmoid(T a) {
  if constexpr (std::is_same<T, float>::value) {
    return FastSigmoid(a);
  } else {
    return T(1) / (T(1) + std::exp(-a));
  }
}
template <typename T>
T Tanh(T a) {
  if constexpr (std::is_same<T, float>::value) {
    return FastTanh(a);
  } else {
    return std::tanh(a);
  }
}

// Dense float32 exp, sigmoid and tanh, each compiled for AVX2 and AVX-512F
// too (DLNODE_COMPUTE_CLONES): the inner loop when both operands are contiguous.
// In place is its own loop (an exact alias fails the vectoriser's overlap check).
#define DLNODE_DENSE_FLOAT(Name, fn)                                     \
  DLNODE_COMPUTE_CLONES void Name(float* o, const float* a, int64_t n) { \
    if (o == a) {                                                        \
      for (int64_t i = 0; i < n; ++i) o[i] = fn(o[i]);                   \
      return;                                                            \
    }                                                                    \
    for (int64_t i = 0; i < n; ++i) o[i] = fn(a[i]);                     \
  }
DLNODE_DENSE_FLOAT(ExpDense, FastExp)
DLNODE_DENSE_FLOAT(SigmoidDense, FastSigmoid)
DLNODE_DENSE_FLOAT(TanhDense, FastTanh)
#undef DLNODE_DENSE_FLOAT

// Runs f over p; float32 runs that are dense in both operands go to `dense`.
template <typename T, typename F>
void Transcendental(Plan* p, void (*dense)(float*, const float*, int64_t), const F& f) {
  Run(p, [dense, &f](char** q, const int64_t* s, int64_t n) {
    if constexpr (std::is_same<T, float>::value) {
      if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
        dense(reinterpret_cast<float*>(q[0]), reinterpret_cast<const float*>(q[1]), n);
        return;
      }
    }
    Loop1<T, T>(q, s, n, f);
  });
}

// --- the op table's host dispatch ----------------------------------------------
// Each row of DLNODE_ELEMENTWISE_OPS runs its functor (elementwise_math.h)
// over the loop of its kind and arity; a few rows have a loop of their own
// here (HostLoop), the same values by the same operations.

// The loop for a row's functor Fn in T, by its kind and arity.
template <class Fn, int kArity, typename T, bool IsBool>
void TableLoop(Plan* p) {
  if constexpr (Fn::kKind == math::Kind::kCompare) {
    Run(p, [](char** q, const int64_t* s, int64_t n) {
      Loop2<Bool, T>(q, s, n, [](T a, T b) { return Fn::template Of<T, IsBool>(a, b); });
    });
  } else if constexpr (Fn::kKind == math::Kind::kSelect) {
    Run(p, [](char** q, const int64_t* s, int64_t n) {
      Loop3<T, Bool, T>(q, s, n,
                        [](Bool c, T a, T b) { return Fn::template Of<T, IsBool>(c, a, b); });
    });
  } else if constexpr (kArity == 1) {
    Run(p, [](char** q, const int64_t* s, int64_t n) {
      Loop1<T, T>(q, s, n, [](T a) { return Fn::template Of<T, IsBool>(a, T(), T()); });
    });
  } else if constexpr (kArity == 2) {
    Run(p, [](char** q, const int64_t* s, int64_t n) {
      Loop2<T, T>(q, s, n, [](T a, T b) { return Fn::template Of<T, IsBool>(a, b, T()); });
    });
  } else {
    Run(p, [](char** q, const int64_t* s, int64_t n) {
      Loop3<T, T, T>(q, s, n, [](T a, T b, T c) { return Fn::template Of<T, IsBool>(a, b, c); });
    });
  }
}

// The rows with a host loop of their own: float add, sub, mul and div
// through AddF32's (and the others') AVX2 clones; float exp, sigmoid and tanh through
// fast_math.h (float32) and libm (float64), dense float32 through their
// AVX2/AVX-512F clones. Any other row, or type, runs TableLoop.
template <class Fn>
struct HostLoop {
  template <int kArity, typename T, bool IsBool>
  static void Go(Plan* p) {
    TableLoop<Fn, kArity, T, IsBool>(p);
  }
};

#define DLNODE_HOST_ARITH(Fn, kOp)                 \
  template <>                                      \
  struct HostLoop<math::Fn> {                      \
    template <int kArity, typename T, bool IsBool> \
    static void Go(Plan* p) {                      \
      if constexpr (kIsFloat<T>) {                 \
        Run(p, ArithLoop<T, kOp>);                 \
      } else {                                     \
        TableLoop<math::Fn, kArity, T, IsBool>(p); \
      }                                            \
    }                                              \
  };
DLNODE_HOST_ARITH(AddFn, Arith::kAdd)
DLNODE_HOST_ARITH(SubFn, Arith::kSub)
DLNODE_HOST_ARITH(MulFn, Arith::kMul)
DLNODE_HOST_ARITH(DivFn, Arith::kDiv)
#undef DLNODE_HOST_ARITH

#define DLNODE_HOST_TRANSCENDENTAL(Fn, dense, fn)             \
  template <>                                                 \
  struct HostLoop<math::Fn> {                                 \
    template <int kArity, typename T, bool IsBool>            \
    static void Go(Plan* p) {                                 \
      Transcendental<T>(p, dense, [](T a) { return fn(a); }); \
    }                                                         \
  };
DLNODE_HOST_TRANSCENDENTAL(ExpFn, ExpDense, Exp)
DLNODE_HOST_TRANSCENDENTAL(SigmoidFn, SigmoidDense, Sigmoid)
DLNODE_HOST_TRANSCENDENTAL(TanhFn, TanhDense, Tanh)
#undef DLNODE_HOST_TRANSCENDENTAL

// One row in T: false where T is outside its domain (nothing written).
template <class Fn, int kArity, math::Domain kDomain, typename T, bool IsBool>
bool Row(Plan* p) {
  if constexpr (math::InDomain<T, IsBool>(kDomain)) {
    HostLoop<Fn>::template Go<kArity, T, IsBool>(p);
    return true;
  } else {
    return false;
  }
}

// IsBool: T is Bool holding a bool (uint8_t is also uint8's type).
template <typename T, bool IsBool = false>
bool Dispatch(ElementwiseOp op, Plan* p) {
  switch (op) {
#define DLNODE_DISPATCH_ROW(js, constant, inputs, Fn, domain) \
  case ElementwiseOp::constant:                               \
    return Row<math::Fn, inputs, math::Domain::domain, T, IsBool>(p);
    DLNODE_ELEMENTWISE_OPS(DLNODE_DISPATCH_ROW)
#undef DLNODE_DISPATCH_ROW
    case ElementwiseOp::kCount:
      break;
  }
  return false;
}

}  // namespace

strided::Plan MakePlan(int ndim, const int64_t* shape, int n, const Operand* ops,
                       const uint64_t* sizes) {
  strided::Plan p;
  p.ndim = ndim;
  p.n = n;
  for (int d = 0; d < ndim; ++d) p.shape[d] = shape[d];
  for (int k = 0; k < n; ++k) {
    p.first[k] = ops[k].first;
    for (int d = 0; d < ndim; ++d) {
      p.strides[k][d] = ops[k].strides[d] * static_cast<int64_t>(sizes[k]);
    }
  }
  return p;
}

OpPlan MakeOpPlan(int ndim, const int64_t* shape, int n, const int64_t* const* strides) {
  OpPlan p;
  p.n = n;
  p.count = 1;
  for (int d = 0; d < ndim; ++d) p.count *= shape[d];
  if (p.count == 0) return p;
  // The host engine's plan and its Coalesce(), on element strides.
  strided::Plan c;
  c.ndim = ndim;
  c.n = n;
  for (int d = 0; d < ndim; ++d) {
    c.shape[d] = shape[d];
    for (int k = 0; k < n; ++k) c.strides[k][d] = strides[k][d];
  }
  strided::Coalesce(&c);
  p.ndim = c.ndim;
  for (int d = 0; d < c.ndim; ++d) {
    p.shape[d] = c.shape[d];
    for (int k = 0; k < n; ++k) p.strides[k][d] = c.strides[k][d];
  }
  return p;
}

int ElementwiseArity(ElementwiseOp op) {
  static constexpr int kArity[] = {
#define DLNODE_ELEMENTWISE_ARITY(js, constant, inputs, ...) (inputs),
      DLNODE_ELEMENTWISE_OPS(DLNODE_ELEMENTWISE_ARITY)
#undef DLNODE_ELEMENTWISE_ARITY
  };
  const auto at = static_cast<size_t>(op);
  return at < sizeof(kArity) / sizeof(kArity[0]) ? kArity[at] : 0;
}

bool Elementwise(ElementwiseOp op, Scalar type, int ndim, const int64_t* shape, Operand out,
                 const Operand* in) {
  const int arity = ElementwiseArity(op);
  if (arity == 0) return false;
  const bool compare = op == ElementwiseOp::kEq || op == ElementwiseOp::kNe ||
                       op == ElementwiseOp::kLt || op == ElementwiseOp::kLe ||
                       op == ElementwiseOp::kGt || op == ElementwiseOp::kGe;
  const uint64_t size = ScalarSize(type);
  Operand ops[kMaxOperands] = {out};
  uint64_t sizes[kMaxOperands] = {compare ? 1 : size};
  for (int k = 0; k < arity; ++k) {
    ops[k + 1] = in[k];
    sizes[k + 1] = (op == ElementwiseOp::kWhere && k == 0) ? 1 : size;
  }
  Plan p = MakePlan(ndim, shape, arity + 1, ops, sizes);
  // The loops take the element functions' types (elementwise_math.h, shared
  // with the kernels): bool as math::Bool holding a bool, the other integers
  // and float32/float64 as themselves; float16, bfloat16 and complex none.
  bool ran = false;
  element::Dispatch(type, [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_same<S, element::Bool>::value) {
      ran = Dispatch<Bool, true>(op, &p);
    } else if constexpr (std::is_arithmetic<S>::value) {
      ran = Dispatch<S>(op, &p);
    }
  });
  return ran;
}

void StoreScalar(Scalar type, double value, void* dst) {
  const int64_t none[1] = {0};
  // An integer-valued number in [-2^63, 2^64) wraps into an integer type, as
  // torch wraps a Python int (uint8 tensor * -2 multiplies by 254): through
  // int64 below 2^63, uint64 from there, whose conversions to the narrower
  // integers wrap (lib/scalars.js refuses integers outside that range for an
  // integer type; to a floating type the conversion rounds the same value).
  // Anything else converts as a float64 (convert.h: saturating into an
  // integer type, NaN to 0).
  constexpr double kTwo63 = 9223372036854775808.0;
  constexpr double kTwo64 = 18446744073709551616.0;
  int64_t whole = 0;
  uint64_t high = 0;
  Scalar from = Scalar::kFloat64;
  char* src = reinterpret_cast<char*>(&value);
  if (std::nearbyint(value) == value && value >= -kTwo63 && value < kTwo64) {
    if (value < kTwo63) {
      whole = static_cast<int64_t>(value);
      from = Scalar::kInt64;
      src = reinterpret_cast<char*>(&whole);
    } else {
      high = static_cast<uint64_t>(value);
      from = Scalar::kUint64;
      src = reinterpret_cast<char*>(&high);
    }
  }
  ConvertStrided(0, nullptr, type, StridedView{static_cast<char*>(dst), none},
                 ByteRange{static_cast<const char*>(dst), static_cast<const char*>(dst) + 16}, from,
                 StridedView{src, none}, ByteRange{src, src + sizeof(double)});
}

}  // namespace dlnode
