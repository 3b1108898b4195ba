#include "elementwise.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "elementwise_math.h"
#include "fast_math.h"
#include "layout.h"
#include "parallel.h"
#include "scratch.h"
#include "strided_loop.h"

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
      if (p[0] == p[1]) {  // in place: see InPlace2
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

// In place (the output is the first input, element for element): one pointer,
// so the loop vectorises without the runtime overlap check, which an exact
// alias fails (GCC then runs the scalar loop).
template <typename T, typename F>
bool InPlace2(char** p, const int64_t* s, int64_t n, const F& f) {
  if (p[0] != p[1] || s[0] != sizeof(T) || s[1] != sizeof(T)) return false;
  auto* o = reinterpret_cast<T*>(p[0]);
  if (s[2] == 0) {
    const T bv = *reinterpret_cast<const T*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(o[i], bv);
    return true;
  }
  if (s[2] != sizeof(T)) return false;
  const auto* b = reinterpret_cast<const T*>(p[2]);
  for (int64_t i = 0; i < n; ++i) o[i] = f(o[i], b[i]);
  return true;
}

template <typename Out, typename In, typename F>
void Loop2(char** p, const int64_t* s, int64_t n, const F& f) {
  if constexpr (std::is_same<Out, In>::value) {
    if (InPlace2<Out>(p, s, n, f)) return;
  }
  auto* o = reinterpret_cast<Out*>(p[0]);
  const auto* a = reinterpret_cast<const In*>(p[1]);
  const auto* b = reinterpret_cast<const In*>(p[2]);
  if (s[0] == sizeof(Out)) {
    if (s[1] == sizeof(In) && s[2] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
      return;
    }
    if (s[1] == sizeof(In) && s[2] == 0) {
      const In bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
      return;
    }
    if (s[1] == 0 && s[2] == sizeof(In)) {
      const In av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
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

// float32 add, sub, mul and div over the dense forms of Loop2 (and in place),
// in functions compiled for AVX2 too: eight lanes a register where the
// baseline has four, which halves the time of a division (x.div_(std)).
// The same IEEE operations as Loop2's, so the same bits. False for any other
// form (Loop2 then runs it).
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

// o[i] = element(i) for i in [0, n), the same operations on each element as
// one plain loop (so the same bits), in two runs:
// - the elements before o's first 32-byte boundary on their own, so that the
//   vector body's stores (and, in place, its loads) never straddle two cache
//   lines. Memory malloc maps for a large buffer starts 16 bytes past a page
//   (its chunk header), and an in-place mul_ over a view at that offset was
//   slower than over the same buffer 16 bytes on (bench/README.md "Compute",
//   the morning runs of 2026-11-27);
// - the body unrolled to four vector iterations an iteration (torch's kernel
//   does two), which made sub_, the in-place pair and add into out faster at
//   2 threads (the same runs).
template <class Element>
inline void DenseLoop(float* o, int64_t n, const Element& element) {
  const int64_t head = Head(o, n);
  for (int64_t i = 0; i < head; ++i) o[i] = element(i);
  DLNODE_UNROLL4
  for (int64_t i = head; i < n; ++i) o[i] = element(i);
}

template <Arith kOp>
inline bool DenseArith(char** p, const int64_t* s, int64_t n) {
  constexpr auto kF = static_cast<int64_t>(sizeof(float));
  if (s[0] != kF) return false;
  auto* o = reinterpret_cast<float*>(p[0]);
  const auto* a = reinterpret_cast<const float*>(p[1]);
  const auto* b = reinterpret_cast<const float*>(p[2]);
  if (p[0] == p[1] && s[1] == kF) {  // in place: one pointer (see InPlace2)
    if (s[2] == 0) {
      const float bv = *b;
      DenseLoop(o, n, [o, bv](int64_t i) { return ApplyArith<kOp, float>(o[i], bv); });
      return true;
    }
    if (s[2] != kF) return false;
    DenseLoop(o, n, [o, b](int64_t i) { return ApplyArith<kOp, float>(o[i], b[i]); });
    return true;
  }
  if (s[1] == kF && s[2] == kF) {
    DenseLoop(o, n, [a, b](int64_t i) { return ApplyArith<kOp, float>(a[i], b[i]); });
    return true;
  }
  if (s[1] == kF && s[2] == 0) {
    const float bv = *b;
    DenseLoop(o, n, [a, bv](int64_t i) { return ApplyArith<kOp, float>(a[i], bv); });
    return true;
  }
  if (s[1] == 0 && s[2] == kF) {
    const float av = *a;
    DenseLoop(o, n, [av, b](int64_t i) { return ApplyArith<kOp, float>(av, b[i]); });
    return true;
  }
  return false;
}

DLNODE_VECTOR_CLONES bool AddF32(char** p, const int64_t* s, int64_t n) {
  return DenseArith<Arith::kAdd>(p, s, n);
}
DLNODE_VECTOR_CLONES bool SubF32(char** p, const int64_t* s, int64_t n) {
  return DenseArith<Arith::kSub>(p, s, n);
}
DLNODE_VECTOR_CLONES bool MulF32(char** p, const int64_t* s, int64_t n) {
  return DenseArith<Arith::kMul>(p, s, n);
}
DLNODE_VECTOR_CLONES bool DivF32(char** p, const int64_t* s, int64_t n) {
  return DenseArith<Arith::kDiv>(p, s, n);
}

// Loop2 for one of the four, float32 through the functions above.
template <typename T, Arith kOp>
void ArithLoop(char** q, const int64_t* s, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {
    bool done = false;
    if constexpr (kOp == Arith::kAdd) done = AddF32(q, s, n);
    if constexpr (kOp == Arith::kSub) done = SubF32(q, s, n);
    if constexpr (kOp == Arith::kMul) done = MulF32(q, s, n);
    if constexpr (kOp == Arith::kDiv) done = DivF32(q, s, n);
    if (done) return;
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
using math::IntPow;
using math::kIsFloat;
using math::Max;
using math::Min;
using math::WrapAdd;
using math::WrapMul;
using math::WrapSub;

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

// The floating-point functions (exp log sqrt sigmoid tanh) for a float T.
template <typename T>
bool FloatUnary(ElementwiseOp op, Plan* p) {
  using Op = ElementwiseOp;
  switch (op) {
    case Op::kExp:
      Transcendental<T>(p, ExpDense, [](T a) { return Exp(a); });
      return true;
    case Op::kLog:
      Run(p, [](char** q, const int64_t* s, int64_t n) {
        Loop1<T, T>(q, s, n, [](T a) { return std::log(a); });
      });
      return true;
    case Op::kSqrt:
      Run(p, [](char** q, const int64_t* s, int64_t n) {
        Loop1<T, T>(q, s, n, [](T a) { return std::sqrt(a); });
      });
      return true;
    case Op::kSigmoid:
      Transcendental<T>(p, SigmoidDense, [](T a) { return Sigmoid(a); });
      return true;
    case Op::kTanh:
      Transcendental<T>(p, TanhDense, [](T a) { return Tanh(a); });
      return true;
    default:
      return false;
  }
}

// clamp(x, lo, hi), clamp(x, lo), clamp(x, None, hi) for a non-bool T.
template <typename T>
bool Clamp(ElementwiseOp op, Plan* p) {
  if (op == ElementwiseOp::kClampMin) {
    Run(p, [](char** q, const int64_t* s, int64_t n) { Loop2<T, T>(q, s, n, Max<T>); });
  } else if (op == ElementwiseOp::kClampMax) {
    Run(p, [](char** q, const int64_t* s, int64_t n) { Loop2<T, T>(q, s, n, Min<T>); });
  } else {
    // torch's clamp_kernel (math::Clamp).
    Run(p, [](char** q, const int64_t* s, int64_t n) { Loop3<T, T, T>(q, s, n, math::Clamp<T>); });
  }
  return true;
}

// IsBool: T is Bool holding a bool (uint8_t is also uint8's type). The cases
// are ordered so that no two refusals of one type are neighbours (clang-tidy's
// bugprone-branch-clone reads each instantiation).
template <typename T, bool IsBool = false>
bool Dispatch(ElementwiseOp op, Plan* p) {
  using Op = ElementwiseOp;
  constexpr bool kBool = IsBool;
  constexpr bool kFloat = kIsFloat<T>;
  // Comparisons read bool bytes as 0/1 values (any nonzero is true).
  auto v = [](T x) {
    if constexpr (kBool) return static_cast<Bool>(x != 0);
    return x;
  };
#define DLNODE_COMPARE(constant, expr)                  \
  case Op::constant:                                    \
    Run(p, [&](char** q, const int64_t* s, int64_t n) { \
      Loop2<Bool, T>(q, s, n, [&](T a0, T b0) {         \
        const T a = v(a0);                              \
        const T b = v(b0);                              \
        return static_cast<Bool>(expr);                 \
      });                                               \
    });                                                 \
    return true;
  switch (op) {
    case Op::kAdd:
      if constexpr (kBool) {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop2<Bool, Bool>(q, s, n,
                            [](Bool a, Bool b) { return static_cast<Bool>((a | b) != 0); });
        });
      } else if constexpr (kFloat) {
        Run(p, ArithLoop<T, Arith::kAdd>);
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) { Loop2<T, T>(q, s, n, WrapAdd<T>); });
      }
      return true;
    case Op::kSub:
      if constexpr (kBool) {
        return false;
      } else if constexpr (kFloat) {
        Run(p, ArithLoop<T, Arith::kSub>);
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) { Loop2<T, T>(q, s, n, WrapSub<T>); });
      }
      return true;
    case Op::kMul:
      if constexpr (kBool) {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop2<Bool, Bool>(q, s, n, [](Bool a, Bool b) { return static_cast<Bool>(a && b); });
        });
      } else if constexpr (kFloat) {
        Run(p, ArithLoop<T, Arith::kMul>);
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) { Loop2<T, T>(q, s, n, WrapMul<T>); });
      }
      return true;
    case Op::kPow:
      if constexpr (kBool) {
        return false;
      } else if constexpr (kFloat) {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop2<T, T>(q, s, n, [](T a, T b) { return static_cast<T>(std::pow(a, b)); });
        });
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) { Loop2<T, T>(q, s, n, IntPow<T>); });
      }
      return true;
    case Op::kMaximum:
      Run(p, [&](char** q, const int64_t* s, int64_t n) {
        Loop2<T, T>(q, s, n, [&](T a, T b) { return Max<T>(v(a), v(b)); });
      });
      return true;
    case Op::kDiv:
      if constexpr (!kFloat) {
        return false;
      } else {
        Run(p, ArithLoop<T, Arith::kDiv>);
        return true;
      }
    case Op::kMinimum:
      Run(p, [&](char** q, const int64_t* s, int64_t n) {
        Loop2<T, T>(q, s, n, [&](T a, T b) { return Min<T>(v(a), v(b)); });
      });
      return true;
    case Op::kNeg:
      if constexpr (kBool) {
        return false;
      } else if constexpr (kFloat) {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return -a; });
        });
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return WrapSub<T>(0, a); });
        });
      }
      return true;
      DLNODE_COMPARE(kEq, a == b)
    case Op::kAbs:
      if constexpr (kBool) {
        return false;
      } else if constexpr (kFloat) {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return std::fabs(a); });
        });
      } else if constexpr (std::is_signed<T>::value) {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return a < 0 ? WrapSub<T>(0, a) : a; });
        });
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return a; });
        });
      }
      return true;
      DLNODE_COMPARE(kNe, a != b)
    case Op::kExp:
    case Op::kLog:
    case Op::kSqrt:
    case Op::kSigmoid:
    case Op::kTanh:
      if constexpr (!kFloat) {
        return false;
      } else {
        return FloatUnary<T>(op, p);
      }
      DLNODE_COMPARE(kLt, a < b)
    case Op::kRound:
      if constexpr (kBool) {
        return false;
      } else if constexpr (kFloat) {
        // Half to even, as torch.round (the default rounding mode).
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return std::nearbyint(a); });
        });
      } else {
        Run(p, [](char** q, const int64_t* s, int64_t n) {
          Loop1<T, T>(q, s, n, [](T a) { return a; });
        });
      }
      return true;
      DLNODE_COMPARE(kLe, a <= b)
    case Op::kClamp:
    case Op::kClampMin:
    case Op::kClampMax:
      if constexpr (kBool) {
        return false;
      } else {
        return Clamp<T>(op, p);
      }
      DLNODE_COMPARE(kGt, a > b)
      DLNODE_COMPARE(kGe, a >= b)
    case Op::kWhere:
      Run(p, [&](char** q, const int64_t* s, int64_t n) {
        Loop3<T, Bool, T>(q, s, n, [&](Bool c, T a, T b) { return c != 0 ? v(a) : v(b); });
      });
      return true;
    case Op::kCount:
      break;
  }
#undef DLNODE_COMPARE
  return false;
}

// One pixel row of an RGB uint8 frame whose channels are interleaved (HWC
// memory read as CHW) into three dense float32 rows: every channel of a pixel
// from one read of the row, in a loop the compiler vectorises. The values are
// NormalizeRows' general ones: (x * k - m[c]) / sd[c], rounded the same way.
DLNODE_VECTOR_CLONES void NormalizeRgbRow(const uint8_t* in, float* r, float* g, float* b,
                                          int64_t width, float k, const float* m, const float* sd) {
  const float m0 = m[0];
  const float m1 = m[1];
  const float m2 = m[2];
  const float s0 = sd[0];
  const float s1 = sd[1];
  const float s2 = sd[2];
  for (int64_t w = 0; w < width; ++w) {
    r[w] = (static_cast<float>(in[3 * w]) * k - m0) / s0;
    g[w] = (static_cast<float>(in[3 * w + 1]) * k - m1) / s1;
    b[w] = (static_cast<float>(in[3 * w + 2]) * k - m2) / s2;
  }
}

// Whether p (out, in over [..., C, H, W]) reads a frame whose channels are
// interleaved: in's channel step one element and its pixel step C elements,
// out's rows dense. Then NormalizeInterleaved reads each pixel row once.
template <typename Out, typename In>
bool Interleaved(const Plan& p) {
  const int c = p.ndim - 3;
  const int last = p.ndim - 1;
  const auto in_size = static_cast<int64_t>(sizeof(In));
  return p.strides[1][c] == in_size && p.strides[1][last] == p.shape[c] * in_size &&
         p.strides[0][last] == static_cast<int64_t>(sizeof(Out));
}

// NormalizeRows over an interleaved frame: a task is one pixel row (every
// dim but C and W), all its channels together, so that the input row is read
// from memory once rather than once per channel.
template <typename Out, typename In>
void NormalizeInterleaved(const Plan& p, const double* mean, const double* std, double scale) {
  const int c = p.ndim - 3;
  const int last = p.ndim - 1;
  const int64_t channels = p.shape[c];
  const int64_t width = p.shape[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= d == c ? 1 : p.shape[d];
  // Allocated before the split (scratch.h).
  const Scratch<Out> m(channels);
  const Scratch<Out> sd(channels);
  for (int64_t ch = 0; ch < channels; ++ch) {
    m[ch] = static_cast<Out>(mean[ch]);
    sd[ch] = static_cast<Out>(std[ch]);
  }
  const Out k = static_cast<Out>(scale);
  const int64_t grain =
      std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(width * channels, 1));
  ParallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r;
      char* o = p.first[0];
      const char* i = p.first[1];
      for (int d = last - 1; d >= 0; --d) {
        if (d == c) continue;
        const int64_t at = rest % p.shape[d];
        rest /= p.shape[d];
        o += at * p.strides[0][d];
        i += at * p.strides[1][d];
      }
      const auto* iv = reinterpret_cast<const In*>(i);
      if constexpr (std::is_same<Out, float>::value && std::is_same<In, uint8_t>::value) {
        if (channels == 3) {
          NormalizeRgbRow(
              iv, reinterpret_cast<float*>(o), reinterpret_cast<float*>(o + p.strides[0][c]),
              reinterpret_cast<float*>(o + 2 * p.strides[0][c]), width, k, m.data(), sd.data());
          continue;
        }
      }
      for (int64_t ch = 0; ch < channels; ++ch) {
        auto* ov = reinterpret_cast<Out*>(o + ch * p.strides[0][c]);
        for (int64_t w = 0; w < width; ++w) {
          ov[w] = (static_cast<Out>(iv[w * channels + ch]) * k - m[ch]) / sd[ch];
        }
      }
    }
  });
}

template <typename Out, typename In>
void NormalizeRows(const Plan& p, const double* mean, const double* std, double scale) {
  // p: operands out, in over dims [..., C, H, W] uncoalesced; rows of W.
  if (Interleaved<Out, In>(p)) {
    NormalizeInterleaved<Out, In>(p, mean, std, scale);
    return;
  }
  const int last = p.ndim - 1;
  const int64_t width = p.shape[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.shape[d];
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(width, 1));
  ParallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r;
      char* o = p.first[0];
      const char* i = p.first[1];
      int64_t channel = 0;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t at = rest % p.shape[d];
        rest /= p.shape[d];
        o += at * p.strides[0][d];
        i += at * p.strides[1][d];
        if (d == p.ndim - 3) channel = at;
      }
      const Out m = static_cast<Out>(mean[channel]);
      const Out sd = static_cast<Out>(std[channel]);
      const Out k = static_cast<Out>(scale);
      const int64_t so = p.strides[0][last];
      const int64_t si = p.strides[1][last];
      if (so == sizeof(Out) && si == sizeof(In)) {
        auto* ov = reinterpret_cast<Out*>(o);
        const auto* iv = reinterpret_cast<const In*>(i);
        for (int64_t w = 0; w < width; ++w) ov[w] = (static_cast<Out>(iv[w]) * k - m) / sd;
      } else if (so == sizeof(Out)) {
        // A permuted HWC frame: channel-interleaved input, dense output rows.
        auto* ov = reinterpret_cast<Out*>(o);
        const int64_t step = si / static_cast<int64_t>(sizeof(In));
        const auto* iv = reinterpret_cast<const In*>(i);
        for (int64_t w = 0; w < width; ++w) ov[w] = (static_cast<Out>(iv[w * step]) * k - m) / sd;
      } else {
        for (int64_t w = 0; w < width; ++w, o += so, i += si) {
          *reinterpret_cast<Out*>(o) =
              (static_cast<Out>(*reinterpret_cast<const In*>(i)) * k - m) / sd;
        }
      }
    }
  });
}

template <typename Out>
bool NormalizeFrom(Scalar in_type, const Plan& p, const double* mean, const double* std,
                   double scale) {
  switch (in_type) {
    case Scalar::kUint8:
      NormalizeRows<Out, uint8_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt8:
      NormalizeRows<Out, int8_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt16:
      NormalizeRows<Out, int16_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt32:
      NormalizeRows<Out, int32_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt64:
      NormalizeRows<Out, int64_t>(p, mean, std, scale);
      return true;
    case Scalar::kUint16:
      NormalizeRows<Out, uint16_t>(p, mean, std, scale);
      return true;
    case Scalar::kUint32:
      NormalizeRows<Out, uint32_t>(p, mean, std, scale);
      return true;
    case Scalar::kUint64:
      NormalizeRows<Out, uint64_t>(p, mean, std, scale);
      return true;
    case Scalar::kFloat32:
      NormalizeRows<Out, float>(p, mean, std, scale);
      return true;
    case Scalar::kFloat64:
      NormalizeRows<Out, double>(p, mean, std, scale);
      return true;
    default:
      return false;
  }
}

Plan MakePlan(int ndim, const int64_t* shape, int n, const Operand* ops, const uint64_t* sizes) {
  Plan p;
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

}  // namespace

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
#define DLNODE_ELEMENTWISE_ARITY(js, constant, inputs) (inputs),
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
  switch (type) {
    case Scalar::kBool:
      return Dispatch<Bool, true>(op, &p);
    case Scalar::kInt8:
      return Dispatch<int8_t>(op, &p);
    case Scalar::kInt16:
      return Dispatch<int16_t>(op, &p);
    case Scalar::kInt32:
      return Dispatch<int32_t>(op, &p);
    case Scalar::kInt64:
      return Dispatch<int64_t>(op, &p);
    case Scalar::kUint8:
      return Dispatch<uint8_t>(op, &p);
    case Scalar::kUint16:
      return Dispatch<uint16_t>(op, &p);
    case Scalar::kUint32:
      return Dispatch<uint32_t>(op, &p);
    case Scalar::kUint64:
      return Dispatch<uint64_t>(op, &p);
    case Scalar::kFloat32:
      return Dispatch<float>(op, &p);
    case Scalar::kFloat64:
      return Dispatch<double>(op, &p);
    default:
      return false;
  }
}

bool Normalize(int ndim, const int64_t* shape, Scalar in_type, Operand in, Scalar out_type,
               Operand out, const double* mean, const double* std, double scale) {
  if (ndim < 3) return false;
  const Operand ops[2] = {out, in};
  const uint64_t sizes[2] = {ScalarSize(out_type), ScalarSize(in_type)};
  const Plan p = MakePlan(ndim, shape, 2, ops, sizes);
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 0) return true;
  }
  if (out_type == Scalar::kFloat32) return NormalizeFrom<float>(in_type, p, mean, std, scale);
  if (out_type == Scalar::kFloat64) return NormalizeFrom<double>(in_type, p, mean, std, scale);
  return false;
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
