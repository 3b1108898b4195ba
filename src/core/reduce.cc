#include "reduce.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "fast_math.h"
#include "layout.h"
#include "parallel.h"
#include "scratch.h"

namespace dlnode {
namespace {

// Storage types: bool is a byte read as `!= 0`; the 16-bit floats are bits.
struct BoolT {
  uint8_t v;
};
struct HalfT {
  uint16_t bits;
};
struct Bf16T {
  uint16_t bits;
};

template <class T>
constexpr int64_t kSizeOf = static_cast<int64_t>(sizeof(T));

template <class T>
struct Tag {
  using type = T;
};

template <class T>
T Raw(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
void Put(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// An element as the value ops compute with.
template <class T>
T Value(T v) {
  return v;
}
inline uint8_t Value(BoolT v) { return v.v != 0 ? 1 : 0; }
inline float Value(HalfT v) { return HalfToFloat(v.bits); }
inline float Value(Bf16T v) { return Bfloat16ToFloat(v.bits); }

template <class T>
using ValueOf = decltype(Value(T{}));

// A value as an accumulator: signed integers sign-extend to 64 bits first
// (a sum's uint64 accumulator wraps like two's complement int64).
template <class A, class V>
A ToAcc(V v) {
  if constexpr (std::is_integral<V>::value && std::is_signed<V>::value) {
    return static_cast<A>(static_cast<int64_t>(v));
  } else {
    return static_cast<A>(v);
  }
}

template <class T>
struct IsComplexT : std::false_type {};
template <class T>
struct IsComplexT<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool kIsComplex = IsComplexT<T>::value;
template <class T>
constexpr bool kIsFloat = std::is_floating_point<ValueOf<T>>::value;

// A computed value stored as T (float16/bfloat16 round to nearest even).
template <class T, class V>
void StoreValue(char* p, V v) {
  if constexpr (std::is_same<T, HalfT>::value) {
    Put<uint16_t>(p, FloatToHalf(static_cast<float>(v)));
  } else if constexpr (std::is_same<T, Bf16T>::value) {
    Put<uint16_t>(p, FloatToBfloat16(static_cast<float>(v)));
  } else if constexpr (std::is_same<T, BoolT>::value) {
    Put<uint8_t>(p, v != 0 ? 1 : 0);
  } else {
    Put<T>(p, static_cast<T>(v));
  }
}

template <class F>
void Dispatch(Scalar s, F&& f) {
  switch (s) {
    case Scalar::kBool:
      return f(Tag<BoolT>{});
    case Scalar::kInt8:
      return f(Tag<int8_t>{});
    case Scalar::kInt16:
      return f(Tag<int16_t>{});
    case Scalar::kInt32:
      return f(Tag<int32_t>{});
    case Scalar::kInt64:
      return f(Tag<int64_t>{});
    case Scalar::kUint8:
      return f(Tag<uint8_t>{});
    case Scalar::kUint16:
      return f(Tag<uint16_t>{});
    case Scalar::kUint32:
      return f(Tag<uint32_t>{});
    case Scalar::kUint64:
      return f(Tag<uint64_t>{});
    case Scalar::kFloat16:
      return f(Tag<HalfT>{});
    case Scalar::kBfloat16:
      return f(Tag<Bf16T>{});
    case Scalar::kFloat32:
      return f(Tag<float>{});
    case Scalar::kFloat64:
      return f(Tag<double>{});
    case Scalar::kComplex64:
      return f(Tag<std::complex<float>>{});
    case Scalar::kComplex128:
      return f(Tag<std::complex<double>>{});
  }
}

// Dims walked in row-major order from any linear index, with one or two
// sets of strides (an input's and an output's), offsets in elements.
class Walker {
 public:
  Walker(int ndim, const int64_t* shape, const int64_t* s0, const int64_t* s1 = nullptr)
      : ndim_(ndim), shape_(shape), s0_(s0), s1_(s1) {}

  void Seek(int64_t linear) {
    off0_ = 0;
    off1_ = 0;
    for (int d = ndim_ - 1; d >= 0; --d) {
      index_[d] = linear % shape_[d];
      linear /= shape_[d];
      off0_ += index_[d] * s0_[d];
      if (s1_ != nullptr) off1_ += index_[d] * s1_[d];
    }
  }

  void Next() {
    for (int d = ndim_ - 1; d >= 0; --d) {
      off0_ += s0_[d];
      if (s1_ != nullptr) off1_ += s1_[d];
      if (++index_[d] < shape_[d]) return;
      off0_ -= s0_[d] * shape_[d];
      if (s1_ != nullptr) off1_ -= s1_[d] * shape_[d];
      index_[d] = 0;
    }
  }

  int64_t off0() const { return off0_; }
  int64_t off1() const { return off1_; }

 private:
  int ndim_;
  const int64_t* shape_;
  const int64_t* s0_;
  const int64_t* s1_;
  int64_t index_[kMaxDims] = {};
  int64_t off0_ = 0;
  int64_t off1_ = 0;
};

// Dims with their strides, size-1 dims dropped and row-major neighbours
// merged where one stride spans both (the walk order is unchanged). At least
// one dim (size 1) is left.
struct Dims {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  int64_t count = 1;

  Dims(int n, const int64_t* shape_in, const int64_t* strides_in) {
    for (int i = 0; i < n; ++i) {
      count *= shape_in[i];
      if (shape_in[i] == 1) continue;
      if (ndim > 0 && strides[ndim - 1] == strides_in[i] * shape_in[i]) {
        shape[ndim - 1] *= shape_in[i];
        strides[ndim - 1] = strides_in[i];
        continue;
      }
      shape[ndim] = shape_in[i];
      strides[ndim] = strides_in[i];
      ++ndim;
    }
    if (ndim == 0) {
      shape[0] = 1;
      strides[0] = 0;
      ndim = 1;
    }
  }
};

// Combining two partial results.
struct Add {
  template <class A>
  static A Apply(A a, A b) {
    return a + b;
  }
};
struct Larger {     // NaN wins and stays
  struct Numbers {  // the same where no NaN is seen
    template <class A>
    static A Apply(A a, A b) {
      return b > a ? b : a;
    }
  };
  template <class A>
  static A Apply(A a, A b) {
    return (b > a || b != b) ? b : a;  // NOLINT(misc-redundant-expression): NaN test
  }
};
struct Smaller {
  struct Numbers {
    template <class A>
    static A Apply(A a, A b) {
      return b < a ? b : a;
    }
  };
  template <class A>
  static A Apply(A a, A b) {
    return (b < a || b != b) ? b : a;  // NOLINT(misc-redundant-expression): NaN test
  }
};

// The order every combine follows (sums, and amax/amin alike), fixed by the
// element count alone: n elements are rows of 8, lane j holding elements j,
// j + 8, j + 16, ...; each lane is combined pairwise (leaves of kLeafRows rows
// combined in sequence, halves cut at a row), the eight lanes then in the tree
// ((0 1)(2 3))((4 5)(6 7)), and the n % 8 tail elements in sequence after that.
// Error O(log n) ulps, like NumPy's pairwise sum, and the lanes are the SIMD
// registers' lanes in the dense loop.
constexpr int64_t kLanes = 8;
constexpr int64_t kLeafRows = 32;

template <class A>
struct Lanes {
  A v[kLanes];
};

template <class A, class Op>
A Fold(const Lanes<A>& l) {
  return Op::Apply(Op::Apply(Op::Apply(l.v[0], l.v[1]), Op::Apply(l.v[2], l.v[3])),
                   Op::Apply(Op::Apply(l.v[4], l.v[5]), Op::Apply(l.v[6], l.v[7])));
}

// The tree of that order over rows [row, row + rows) into *out: leaf(row,
// count, out) for a run of up to kLeafRows rows, join(out, right) at a node,
// whose halves are cut at rows / 2 and visited left first (a walker behind
// `leaf` steps forward only). node(row, rows, out) may take a whole subtree
// first and return true (DenseRows' four leaves side by side). The one copy
// of the halving rule: Rows, DenseRows and ColumnRows are its instances.
template <class Partial, class LeafFn, class JoinFn, class NodeFn>
void Tree(int64_t row, int64_t rows, Partial* out, const LeafFn& leaf, const JoinFn& join,
          const NodeFn& node) {
  if (node(row, rows, out)) return;
  if (rows <= kLeafRows) {
    leaf(row, rows, out);
    return;
  }
  const int64_t half = rows / 2;
  Tree(row, half, out, leaf, join, node);
  Partial right;
  Tree(row + half, rows - half, &right, leaf, join, node);
  join(out, right);
}

template <class Partial, class LeafFn, class JoinFn>
void Tree(int64_t row, int64_t rows, Partial* out, const LeafFn& leaf, const JoinFn& join) {
  Tree(row, rows, out, leaf, join, [](int64_t, int64_t, Partial*) { return false; });
}

// Lanes' join for Op.
template <class A, class Op>
void JoinInto(Lanes<A>* left, const Lanes<A>& right) {
  for (int64_t j = 0; j < kLanes; ++j) left->v[j] = Op::Apply(left->v[j], right.v[j]);
}

// Rows [row, row + rows) of the lanes; `leaf(row, rows)` combines up to
// kLeafRows rows in sequence.
template <class A, class Op, class LeafFn>
Lanes<A> Rows(int64_t row, int64_t rows, const LeafFn& leaf) {
  Lanes<A> out;
  Tree(
      row, rows, &out, [&leaf](int64_t r, int64_t count, Lanes<A>* l) { *l = leaf(r, count); },
      JoinInto<A, Op>);
  return out;
}

// The n >= 1 elements get(0) .. get(n - 1) in that order.
template <class A, class Op, class Get>
A Ordered(int64_t n, const Get& get) {
  const int64_t rows = n / kLanes;
  int64_t i = rows * kLanes;
  A res;
  if (rows == 0) {
    res = get(0);
    i = 1;
  } else {
    auto leaf = [&get](int64_t row, int64_t count) {
      Lanes<A> l;
      for (int64_t j = 0; j < kLanes; ++j) l.v[j] = get(row * kLanes + j);
      for (int64_t r = 1; r < count; ++r) {
        for (int64_t j = 0; j < kLanes; ++j)
          l.v[j] = Op::Apply(l.v[j], get((row + r) * kLanes + j));
      }
      return l;
    };
    res = Fold<A, Op>(Rows<A, Op>(0, rows, leaf));
  }
  for (; i < n; ++i) res = Op::Apply(res, get(i));
  return res;
}

// A row of kLanes elements as one value of GCC's vector extension (one AVX2
// register of floats, two of doubles): an elementwise + or ?: on it is one
// instruction a register, where a loop over the lanes of an array is left
// scalar by the compiler more often than not.
typedef float Float8 __attribute__((vector_size(kLanes * sizeof(float))));
typedef double Double8 __attribute__((vector_size(kLanes * sizeof(double))));
template <class A>
struct RowOf;
template <>
struct RowOf<float> {
  using type = Float8;
};
template <>
struct RowOf<double> {
  using type = Double8;
};

// Row r of p combined into *acc (a vector is never passed or returned by
// value between functions: its ABI differs with and without AVX).
template <class A, class Op>
inline void Combine8(typename RowOf<A>::type* acc, const A* p, int64_t r) {
  typename RowOf<A>::type v;
  std::memcpy(&v, p + r * kLanes, sizeof v);
  // Op::Apply(*acc, v), written out: Apply takes its values by value.
  if constexpr (std::is_same<Op, Add>::value) {
    *acc += v;
  } else if constexpr (std::is_same<Op, Larger::Numbers>::value) {
    *acc = v > *acc ? v : *acc;
  } else {
    static_assert(std::is_same<Op, Smaller::Numbers>::value,
                  "a dense leaf: Add, Larger or Smaller");
    *acc = v < *acc ? v : *acc;
  }
}

// One leaf of Ordered()'s order over `count` >= 1 dense rows of kLanes from
// p, into `lanes`: the first row, then each next row combined in sequence.
template <class A, class Op>
inline void LeafOf(const A* p, int64_t count, A* lanes) {
  typename RowOf<A>::type acc;
  std::memcpy(&acc, p, sizeof acc);
  for (int64_t r = 1; r < count; ++r) Combine8<A, Op>(&acc, p, r);
  std::memcpy(lanes, &acc, sizeof acc);
}

// Four leaves of Ordered()'s order side by side (rows `starts[j]`, counts
// `counts[j]`), each exactly as LeafOf computes it: four independent chains
// of dependent adds where one chain waits out each add's latency.
template <class A, class Op>
inline void FourLeavesOf(const A* p, const int64_t* starts, const int64_t* counts, A* lanes) {
  const A* q0 = p + starts[0] * kLanes;
  const A* q1 = p + starts[1] * kLanes;
  const A* q2 = p + starts[2] * kLanes;
  const A* q3 = p + starts[3] * kLanes;
  typename RowOf<A>::type a0;
  typename RowOf<A>::type a1;
  typename RowOf<A>::type a2;
  typename RowOf<A>::type a3;
  std::memcpy(&a0, q0, sizeof a0);
  std::memcpy(&a1, q1, sizeof a1);
  std::memcpy(&a2, q2, sizeof a2);
  std::memcpy(&a3, q3, sizeof a3);
  const int64_t common = std::min(std::min(counts[0], counts[1]), std::min(counts[2], counts[3]));
  // The rows after these leaves (the next node Tree visits, or in a sum over
  // rows the next output's row) are prefetched as fast as these are read:
  // the hardware prefetcher stops at each 4 KiB page and restarts slowly on
  // four interleaved streams (a C loop over 4096 rows of 1024 floats, one
  // thread, on the benchmark VM: 0.84 -> 0.57 ms). A prefetch past the
  // tensor's end is harmless: it never faults.
  constexpr int64_t kStep = 4 * kLanes * static_cast<int64_t>(sizeof(A));
  const char* ahead = reinterpret_cast<const char*>(q3 + counts[3] * kLanes);
  for (int64_t r = 1; r < common; ++r) {
    for (int64_t b = 0; b < kStep; b += 64) __builtin_prefetch(ahead + (r - 1) * kStep + b);
    Combine8<A, Op>(&a0, q0, r);
    Combine8<A, Op>(&a1, q1, r);
    Combine8<A, Op>(&a2, q2, r);
    Combine8<A, Op>(&a3, q3, r);
  }
  for (int64_t r = common; r < counts[0]; ++r) Combine8<A, Op>(&a0, q0, r);
  for (int64_t r = common; r < counts[1]; ++r) Combine8<A, Op>(&a1, q1, r);
  for (int64_t r = common; r < counts[2]; ++r) Combine8<A, Op>(&a2, q2, r);
  for (int64_t r = common; r < counts[3]; ++r) Combine8<A, Op>(&a3, q3, r);
  std::memcpy(lanes, &a0, sizeof a0);
  std::memcpy(lanes + kLanes, &a1, sizeof a1);
  std::memcpy(lanes + 2 * kLanes, &a2, sizeof a2);
  std::memcpy(lanes + 3 * kLanes, &a3, sizeof a3);
}

// The leaves of the dense float loops, each compiled for AVX2 too (a lambda
// inside a DLNODE_VECTOR_CLONES function is not: the recursion in Rows()
// keeps it out of line, on the baseline's SSE2 registers).
DLNODE_VECTOR_CLONES void LeafSumF32(const float* p, int64_t count, float* lanes) {
  LeafOf<float, Add>(p, count, lanes);
}
DLNODE_VECTOR_CLONES void LeafSumF64(const double* p, int64_t count, double* lanes) {
  LeafOf<double, Add>(p, count, lanes);
}
DLNODE_VECTOR_CLONES void LeafMaxF32(const float* p, int64_t count, float* lanes) {
  LeafOf<float, Larger::Numbers>(p, count, lanes);
}
DLNODE_VECTOR_CLONES void LeafMaxF64(const double* p, int64_t count, double* lanes) {
  LeafOf<double, Larger::Numbers>(p, count, lanes);
}
DLNODE_VECTOR_CLONES void LeafMinF32(const float* p, int64_t count, float* lanes) {
  LeafOf<float, Smaller::Numbers>(p, count, lanes);
}
DLNODE_VECTOR_CLONES void LeafMinF64(const double* p, int64_t count, double* lanes) {
  LeafOf<double, Smaller::Numbers>(p, count, lanes);
}

// FourLeavesOf for each dense loop, compiled for AVX2 too.
DLNODE_VECTOR_CLONES void FourSumF32(const float* p, const int64_t* starts, const int64_t* counts,
                                     float* lanes) {
  FourLeavesOf<float, Add>(p, starts, counts, lanes);
}
DLNODE_VECTOR_CLONES void FourSumF64(const double* p, const int64_t* starts, const int64_t* counts,
                                     double* lanes) {
  FourLeavesOf<double, Add>(p, starts, counts, lanes);
}
DLNODE_VECTOR_CLONES void FourMaxF32(const float* p, const int64_t* starts, const int64_t* counts,
                                     float* lanes) {
  FourLeavesOf<float, Larger::Numbers>(p, starts, counts, lanes);
}
DLNODE_VECTOR_CLONES void FourMaxF64(const double* p, const int64_t* starts, const int64_t* counts,
                                     double* lanes) {
  FourLeavesOf<double, Larger::Numbers>(p, starts, counts, lanes);
}
DLNODE_VECTOR_CLONES void FourMinF32(const float* p, const int64_t* starts, const int64_t* counts,
                                     float* lanes) {
  FourLeavesOf<float, Smaller::Numbers>(p, starts, counts, lanes);
}
DLNODE_VECTOR_CLONES void FourMinF64(const double* p, const int64_t* starts, const int64_t* counts,
                                     double* lanes) {
  FourLeavesOf<double, Smaller::Numbers>(p, starts, counts, lanes);
}

// Whether any of n floats is NaN, in one vectorised pass.
DLNODE_VECTOR_CLONES bool AnyNaN(const float* p, int64_t n) {
  int nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    nan |= static_cast<int>(p[i] != p[i]);  // NOLINT(misc-redundant-expression): NaN test
  }
  return nan != 0;
}
DLNODE_VECTOR_CLONES bool AnyNaN(const double* p, int64_t n) {
  int nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    nan |= static_cast<int>(p[i] != p[i]);  // NOLINT(misc-redundant-expression): NaN test
  }
  return nan != 0;
}

// The vectorised leaf for A and Op.
template <class A, class Op>
void DenseLeaf(const A* p, int64_t count, A* lanes) {
  constexpr bool kFloat = std::is_same<A, float>::value;
  if constexpr (std::is_same<Op, Add>::value) {
    if constexpr (kFloat)
      LeafSumF32(p, count, lanes);
    else
      LeafSumF64(p, count, lanes);
  } else if constexpr (std::is_same<Op, Larger::Numbers>::value) {
    if constexpr (kFloat)
      LeafMaxF32(p, count, lanes);
    else
      LeafMaxF64(p, count, lanes);
  } else {
    static_assert(std::is_same<Op, Smaller::Numbers>::value,
                  "a dense leaf: Add, Larger or Smaller");
    if constexpr (kFloat)
      LeafMinF32(p, count, lanes);
    else
      LeafMinF64(p, count, lanes);
  }
}

// The vectorised four leaves for A and Op.
template <class A, class Op>
void DenseFourLeaves(const A* p, const int64_t* starts, const int64_t* counts, A* lanes) {
  constexpr bool kFloat = std::is_same<A, float>::value;
  if constexpr (std::is_same<Op, Add>::value) {
    if constexpr (kFloat)
      FourSumF32(p, starts, counts, lanes);
    else
      FourSumF64(p, starts, counts, lanes);
  } else if constexpr (std::is_same<Op, Larger::Numbers>::value) {
    if constexpr (kFloat)
      FourMaxF32(p, starts, counts, lanes);
    else
      FourMaxF64(p, starts, counts, lanes);
  } else {
    if constexpr (kFloat)
      FourMinF32(p, starts, counts, lanes);
    else
      FourMinF64(p, starts, counts, lanes);
  }
}

// Rows() over dense rows of p: the same leaves and joins, but a node of four
// leaves (both halves over kLeafRows and at most 2 * kLeafRows: each splits
// once more into leaves) computes them side by side.
template <class A, class Op>
Lanes<A> DenseRows(const A* p, int64_t row, int64_t rows) {
  auto four = [p](int64_t r, int64_t count, Lanes<A>* out) {
    // Halves over kLeafRows and at most 2 * kLeafRows rows: Tree would cut
    // each once more, into these four leaves, and join them so.
    const int64_t h1 = count / 2;
    if (h1 <= kLeafRows || count > 4 * kLeafRows) return false;
    const int64_t h2 = count - h1;
    const int64_t starts[4] = {r, r + h1 / 2, r + h1, r + h1 + h2 / 2};
    const int64_t counts[4] = {h1 / 2, h1 - h1 / 2, h2 / 2, h2 - h2 / 2};
    A lanes[4 * kLanes];
    DenseFourLeaves<A, Op>(p, starts, counts, lanes);
    Lanes<A> leaves[4];
    for (int j = 0; j < 4; ++j) std::memcpy(leaves[j].v, lanes + j * kLanes, sizeof leaves[j].v);
    JoinInto<A, Op>(&leaves[0], leaves[1]);
    JoinInto<A, Op>(&leaves[2], leaves[3]);
    JoinInto<A, Op>(&leaves[0], leaves[2]);
    *out = leaves[0];
    return true;
  };
  Lanes<A> out;
  Tree(
      row, rows, &out,
      [p](int64_t r, int64_t count, Lanes<A>* l) { DenseLeaf<A, Op>(p + r * kLanes, count, l->v); },
      JoinInto<A, Op>, four);
  return out;
}

// Ordered() over n contiguous elements of A (float or double): the same
// arithmetic, each leaf one vectorised loop (a row of 8 floats is one AVX2
// register, or two SSE2 ones), four leaves at a time where a node has four.
template <class A, class Op>
A OrderedDense(const char* p, int64_t n) {
  const A* a = reinterpret_cast<const A*>(p);
  const int64_t rows = n / kLanes;
  if (rows == 0) return Ordered<A, Op>(n, [a](int64_t i) { return a[i]; });
  A res = Fold<A, Op>(DenseRows<A, Op>(a, 0, rows));
  for (int64_t i = rows * kLanes; i < n; ++i) res = Op::Apply(res, a[i]);
  return res;
}

// One outer index's reduced elements (`inner`, from `base`), linear indices
// [start, start + n), n >= 1, combined in Ordered()'s order.
template <class T, class A, class Op>
A Combine(const char* base, const Dims& inner, int64_t start, int64_t n) {
  if (inner.ndim == 1) {
    const int64_t s = inner.strides[0];
    const char* p = base + start * s * kSizeOf<T>;
    if constexpr (std::is_same<T, A>::value && std::is_floating_point<A>::value) {
      if (s == 1) {
        if constexpr (std::is_same<Op, Add>::value) {
          return OrderedDense<A, Op>(p, n);
        } else {
          // A NaN anywhere decides amax/amin; without one, a plain compare
          // (which vectorises) gives the same value.
          if (AnyNaN(reinterpret_cast<const A*>(p), n)) return std::numeric_limits<A>::quiet_NaN();
          return OrderedDense<A, typename Op::Numbers>(p, n);
        }
      }
    }
    return Ordered<A, Op>(
        n, [p, s](int64_t i) { return ToAcc<A>(Value(Raw<T>(p + i * s * kSizeOf<T>))); });
  }
  // Ordered() calls get(i) in increasing i: a walker steps along.
  Walker w(inner.ndim, inner.shape, inner.strides);
  w.Seek(start);
  return Ordered<A, Op>(n, [&](int64_t) {
    const auto v = ToAcc<A>(Value(Raw<T>(base + w.off0() * kSizeOf<T>)));
    w.Next();
    return v;
  });
}

// Ordered()'s sum for up to kColumns outputs at once: output c's sequence is
// base[c + i * stride], i < n (a reduced dim that is not the inner one, as
// in sum(0) of a row-major matrix). Each step reads a run of the columns
// where one output at a time would read one element a row (a cache line and
// often a page each); every output's additions are Ordered()'s, in its
// order, so the bits are those of Combine().
constexpr int64_t kColumns = 64;

template <class A>
struct ColumnLanes {
  A v[kLanes][kColumns];
};

template <class A>
void ColumnLeaf(const A* base, int64_t stride, int64_t row, int64_t count, int64_t columns,
                ColumnLanes<A>* l) {
  for (int64_t j = 0; j < kLanes; ++j) {
    const A* x = base + (row * kLanes + j) * stride;
    for (int64_t c = 0; c < columns; ++c) l->v[j][c] = x[c];
  }
  for (int64_t r = 1; r < count; ++r) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const A* x = base + ((row + r) * kLanes + j) * stride;
      for (int64_t c = 0; c < columns; ++c) l->v[j][c] += x[c];
    }
  }
}

template <class A>
void ColumnRows(const A* base, int64_t stride, int64_t row, int64_t rows, int64_t columns,
                ColumnLanes<A>* out) {
  Tree(
      row, rows, out,
      [&](int64_t r, int64_t count, ColumnLanes<A>* l) {
        ColumnLeaf(base, stride, r, count, columns, l);
      },
      [columns](ColumnLanes<A>* left, const ColumnLanes<A>& right) {
        for (int64_t j = 0; j < kLanes; ++j) {
          for (int64_t c = 0; c < columns; ++c) left->v[j][c] += right.v[j][c];
        }
      });
}

template <class A>
void ColumnSums(const A* base, int64_t stride, int64_t n, int64_t columns, A* sums) {
  const int64_t rows = n / kLanes;
  int64_t i = rows * kLanes;
  if (rows == 0) {
    for (int64_t c = 0; c < columns; ++c) sums[c] = base[c];
    i = 1;
  } else {
    ColumnLanes<A> l;
    ColumnRows(base, stride, 0, rows, columns, &l);
    for (int64_t c = 0; c < columns; ++c) {
      Lanes<A> lanes;
      for (int64_t j = 0; j < kLanes; ++j) lanes.v[j] = l.v[j][c];
      sums[c] = Fold<A, Add>(lanes);
    }
  }
  for (; i < n; ++i) {
    const A* x = base + i * stride;
    for (int64_t c = 0; c < columns; ++c) sums[c] += x[c];
  }
}

DLNODE_VECTOR_CLONES void ColumnSumsF32(const float* base, int64_t stride, int64_t n,
                                        int64_t columns, float* sums) {
  ColumnSums(base, stride, n, columns, sums);
}
DLNODE_VECTOR_CLONES void ColumnSumsF64(const double* base, int64_t stride, int64_t n,
                                        int64_t columns, double* sums) {
  ColumnSums(base, stride, n, columns, sums);
}

// Combines n >= 1 partial results in the same order.
template <class A, class Op>
A CombineArray(const A* a, int64_t n) {
  return Ordered<A, Op>(n, [a](int64_t i) { return a[i]; });
}

template <class A>
struct RealOf {
  using type = A;
};
template <class A>
struct RealOf<std::complex<A>> {
  using type = A;
};

// The accumulator of a sum: integers and bool in uint64 (wrapping, stored as
// int64), the rest in their computing type.
template <class T>
using SumAcc = std::conditional_t<std::is_integral<ValueOf<T>>::value, uint64_t, ValueOf<T>>;

// Reduce() for input type T, accumulator A, combining Op; `finish(out, acc,
// n)` stores one result.
template <class T, class A, class Op, class Finish>
void ReduceTyped(const StridedInput& in, int reduced, char* out, int64_t out_size,
                 const Finish& finish) {
  const int kept = in.ndim - reduced;
  const Dims outer(kept, in.shape, in.strides);
  const Dims inner(reduced, in.shape + kept, in.strides + kept);
  const int64_t n = inner.count;
  const int64_t m = outer.count;
  if (m == 0) return;
  if (n == 0) {
    for (int64_t o = 0; o < m; ++o) finish(out + o * out_size, A{}, 0);
    return;
  }
  if constexpr (std::is_same<T, A>::value && std::is_floating_point<A>::value &&
                std::is_same<Op, Add>::value) {
    // Sums whose outputs are neighbours in memory and whose reduced dim is
    // not: kColumns outputs at a time (ColumnSums).
    const int last = outer.ndim - 1;
    if (n <= kSumBlock && inner.ndim == 1 && inner.strides[0] != 1 && outer.strides[last] == 1) {
      const int64_t row = outer.shape[last];
      ParallelFor(m, std::max<int64_t>(1, kDefaultGrain / n), [&](int64_t b, int64_t e) {
        Walker w(outer.ndim, outer.shape, outer.strides);
        A sums[kColumns];
        for (int64_t o = b; o < e;) {
          w.Seek(o);
          const int64_t columns = std::min({kColumns, e - o, row - o % row});
          const A* base = reinterpret_cast<const A*>(in.first) + w.off0();
          if constexpr (std::is_same<A, float>::value) {
            ColumnSumsF32(base, inner.strides[0], n, columns, sums);
          } else {
            ColumnSumsF64(base, inner.strides[0], n, columns, sums);
          }
          for (int64_t c = 0; c < columns; ++c) finish(out + (o + c) * out_size, sums[c], n);
          o += columns;
        }
      });
      return;
    }
  }
  if (n <= kSumBlock) {
    ParallelFor(m, std::max<int64_t>(1, kDefaultGrain / n), [&](int64_t b, int64_t e) {
      Walker w(outer.ndim, outer.shape, outer.strides);
      w.Seek(b);
      for (int64_t o = b; o < e; ++o, w.Next()) {
        finish(out + o * out_size, Combine<T, A, Op>(in.first + w.off0() * kSizeOf<T>, inner, 0, n),
               n);
      }
    });
    return;
  }
  // Fixed blocks, each combined apart (any thread), then combined in order;
  // their partials allocated before the split (scratch.h).
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  const Scratch<A> partial = ScratchSlots<A>(blocks, m);
  ParallelFor(m * blocks, 1, [&](int64_t b, int64_t e) {
    Walker w(outer.ndim, outer.shape, outer.strides);
    for (int64_t i = b; i < e; ++i) {
      const int64_t o = i / blocks;
      const int64_t start = (i % blocks) * kSumBlock;
      w.Seek(o);
      partial[i] = Combine<T, A, Op>(in.first + w.off0() * kSizeOf<T>, inner, start,
                                     std::min(kSumBlock, n - start));
    }
  });
  for (int64_t o = 0; o < m; ++o) {
    finish(out + o * out_size, CombineArray<A, Op>(partial.data() + o * blocks, blocks), n);
  }
}

template <class T>
void ReduceOf(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  using V = ValueOf<T>;
  if (op == ReduceOp::kSum || op == ReduceOp::kMean) {
    using A = SumAcc<T>;
    if constexpr (std::is_integral<V>::value) {
      ReduceTyped<T, A, Add>(in, reduced, out, 8, [](char* p, A acc, int64_t) {
        Put<int64_t>(p, static_cast<int64_t>(acc));  // two's complement: the wrapped sum
      });
    } else if (op == ReduceOp::kSum) {
      ReduceTyped<T, A, Add>(in, reduced, out, sizeof(T),
                             [](char* p, A acc, int64_t) { StoreValue<T>(p, acc); });
    } else {
      // torch's mean: the sum rounded to the dtype, then divided in the
      // computing type and rounded again (at::sum(...).div_(n)).
      ReduceTyped<T, A, Add>(in, reduced, out, sizeof(T), [](char* p, A acc, int64_t n) {
        if constexpr (std::is_same<T, HalfT>::value || std::is_same<T, Bf16T>::value) {
          StoreValue<T>(p, acc);
          acc = Value(Raw<T>(p));
        }
        // No elements: 0 / 0, NaN (torch).
        StoreValue<T>(p, acc / static_cast<typename RealOf<A>::type>(n));
      });
    }
    return;
  }
  if constexpr (!kIsComplex<T>) {
    auto store = [](char* p, V acc, int64_t) { StoreValue<T>(p, acc); };
    if (op == ReduceOp::kAmax) {
      ReduceTyped<T, V, Larger>(in, reduced, out, sizeof(T), store);
    } else {
      ReduceTyped<T, V, Smaller>(in, reduced, out, sizeof(T), store);
    }
  }
}

// How ForEachLane splits the lanes along `dim` of `in` across threads: the
// number of lanes, the grain, and at most how many chunks (the slots of any
// per-chunk scratch, allocated before the split: scratch.h).
struct LaneSplit {
  int64_t lanes = 1;
  int64_t len = 1;
  int64_t grain = 1;
  int chunks = 1;
};

LaneSplit SplitLanes(const StridedInput& in, int dim) {
  LaneSplit split;
  for (int d = 0; d < in.ndim; ++d) {
    if (d != dim) split.lanes *= in.shape[d];
  }
  split.len = in.ndim == 0 ? 1 : in.shape[dim];
  split.grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(split.len, 1));
  split.chunks = MaxChunks(split.lanes, split.grain);
  return split;
}

// Calls fn(chunk, in_lane, out_offset) for every lane along `dim`, split
// across at most split.chunks threads (chunk < split.chunks: the slot of its
// scratch); in_lane is the lane's element 0, out_offset in output elements.
template <class Fn>
void ForEachLane(const StridedInput& in, int dim, const int64_t* out_strides, int64_t item_size,
                 const LaneSplit& split, const Fn& fn) {
  int64_t shape[kMaxDims];
  int64_t s0[kMaxDims];
  int64_t s1[kMaxDims];
  int n = 0;
  for (int d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    shape[n] = in.shape[d];
    s0[n] = in.strides[d];
    s1[n] = out_strides[d];
    ++n;
  }
  if (split.lanes == 0 || split.len == 0) return;
  ParallelForChunks(split.lanes, split.grain, split.chunks, [&](int chunk, int64_t b, int64_t e) {
    Walker w(n, shape, s0, s1);
    w.Seek(b);
    for (int64_t o = b; o < e; ++o, w.Next()) fn(chunk, in.first + w.off0() * item_size, w.off1());
  });
}

template <class T>
void ArgExtremeOf(ReduceOp op, const StridedInput& in, int dim, char* values, int64_t* indices,
                  const int64_t* out_strides) {
  if constexpr (!kIsComplex<T>) {
    using V = ValueOf<T>;
    const int64_t len = in.ndim == 0 ? 1 : in.shape[dim];
    const int64_t step = (in.ndim == 0 ? 0 : in.strides[dim]) * kSizeOf<T>;
    const bool larger = op == ReduceOp::kMax;
    ForEachLane(
        in, dim, out_strides, kSizeOf<T>, SplitLanes(in, dim),
        [&](int, const char* lane, int64_t at) {
          V best = Value(Raw<T>(lane));
          int64_t index = 0;
          for (int64_t i = 1; i < len && best == best; ++i) {  // NOLINT(misc-redundant-expression)
            const V v = Value(Raw<T>(lane + i * step));
            if ((larger ? v > best : v < best) || v != v) {  // NOLINT(misc-redundant-expression)
              best = v;
              index = i;
            }
          }
          if (values != nullptr)
            std::memcpy(values + at * kSizeOf<T>, lane + index * step, sizeof(T));
          if (indices != nullptr) indices[at] = index;
        });
  }
}

// e^x: float through fast_math.h (vectorised), double through libm.
inline float ExpOf(float x) { return FastExp(x); }
inline double ExpOf(double x) { return std::exp(x); }

// The largest of n >= 1 floats in four running maxima of eight lanes each:
// one would be a chain of dependent compares, each waiting for the last (a
// large part of softmax's time over rows of 1000: bench/README.md "Compute",
// "another machine"). A NaN may or may not win here:
// softmax's NaN reaches every result through the sum of the exps instead.
DLNODE_COMPUTE_CLONES float DenseMax(const float* x, int64_t n) {
  constexpr int64_t kWide = 4 * kLanes;
  float top = x[0];
  int64_t i = 0;
  if (n >= kWide) {
    Float8 best[4];
    std::memcpy(best, x, sizeof best);
    for (i = kWide; i + kWide <= n; i += kWide) {
      Float8 v[4];
      std::memcpy(v, x + i, sizeof v);
      for (int k = 0; k < 4; ++k) best[k] = v[k] > best[k] ? v[k] : best[k];
    }
    for (int k = 1; k < 4; ++k) best[0] = best[k] > best[0] ? best[k] : best[0];
    for (int64_t j = 0; j < kLanes; ++j) top = best[0][j] > top ? best[0][j] : top;
  }
  for (; i < n; ++i) top = x[i] > top ? x[i] : top;
  return top;
}

// A leaf of OrderedDense<float, Add>'s order over e^(x - top) for `count`
// rows of kLanes, written to out as it goes: softmax's exp pass and its sum
// in one visit of the row (the exps are summed while still in L1).
DLNODE_COMPUTE_CLONES void ExpLeaf(const float* x, float top, float* out, int64_t count,
                                   float* lanes) {
  const int64_t n = count * kLanes;
  for (int64_t i = 0; i < n; ++i) out[i] = FastExp(x[i] - top);
  LeafOf<float, Add>(out, count, lanes);
}

// out[i] *= scale (softmax's last pass), and out[i] = (x[i] - top) - shift
// (logSoftmax's), rounded as the general path rounds them.
DLNODE_COMPUTE_CLONES void ScaleLane(float* out, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) out[i] *= scale;
}
DLNODE_COMPUTE_CLONES void ShiftLane(const float* x, float top, float* out, int64_t n,
                                     float shift) {
  for (int64_t i = 0; i < n; ++i) out[i] = (x[i] - top) - shift;
}

// One dense float32 lane of softmax/logSoftmax, out not overlapping x: the
// maximum, then e^(x - max) written to out and summed in OrderedDense()'s
// order in the same visit, then a pass scaling out (softmax) or writing
// x - max - log(sum) (logSoftmax). Every loop is vectorised; the values are
// those of the general path below. A NaN in x makes the sum NaN, and with it
// every result, as the general path's NaN maximum does.
void SoftmaxDenseLane(bool log, const float* x, float* out, int64_t len) {
  const float top = DenseMax(x, len);
  const int64_t rows = len / kLanes;
  float total;
  if (rows == 0) {
    for (int64_t i = 0; i < len; ++i) out[i] = FastExp(x[i] - top);
    total = OrderedDense<float, Add>(reinterpret_cast<const char*>(out), len);
  } else {
    auto leaf = [&](int64_t row, int64_t count) {
      Lanes<float> l;
      ExpLeaf(x + row * kLanes, top, out + row * kLanes, count, l.v);
      return l;
    };
    total = Fold<float, Add>(Rows<float, Add>(0, rows, leaf));
    for (int64_t i = rows * kLanes; i < len; ++i) {
      out[i] = FastExp(x[i] - top);
      total += out[i];
    }
  }
  if (log) {
    ShiftLane(x, top, out, len, std::log(total));
  } else {
    ScaleLane(out, len, 1.0F / total);
  }
}

template <class T>
void SoftmaxOf(ReduceOp op, const StridedInput& in, int dim, char* out,
               const int64_t* out_strides) {
  if constexpr (kIsFloat<T>) {
    using V = ValueOf<T>;
    const int64_t len = in.ndim == 0 ? 1 : in.shape[dim];
    const int64_t step = (in.ndim == 0 ? 0 : in.strides[dim]) * kSizeOf<T>;
    const int64_t out_step = (in.ndim == 0 ? 0 : out_strides[dim]) * kSizeOf<T>;
    const bool log = op == ReduceOp::kLogSoftmax;
    constexpr bool kFloat32 = std::is_same<T, float>::value;
    const bool dense = kFloat32 && step == kSizeOf<T> && out_step == kSizeOf<T>;
    // A lane that does not take the dense path works in two buffers of its
    // length (a slot per chunk, allocated before the split: scratch.h). A
    // dense lane does unless it overlaps its output, which no lane can when
    // the input's and the output's byte ranges are apart.
    const LaneSplit split = SplitLanes(in, dim);
    uint64_t in_low = 0;
    uint64_t in_high = 0;
    uint64_t out_low = 0;
    uint64_t out_high = 0;
    const bool apart =
        ComputeExtent(in.ndim, in.shape, in.strides, kSizeOf<T>, &in_low, &in_high) &&
        ComputeExtent(in.ndim, in.shape, out_strides, kSizeOf<T>, &out_low, &out_high) &&
        (out + out_high <= in.first - in_low || in.first + in_high <= out - out_low);
    const Scratch<V> buffers =
        dense && apart ? Scratch<V>() : ScratchSlots<V>(2 * split.len, split.chunks);
    ForEachLane(in, dim, out_strides, kSizeOf<T>, split,
                [&](int chunk, const char* lane, int64_t at) {
                  char* o = out + at * kSizeOf<T>;
                  const int64_t bytes = len * kSizeOf<T>;
                  if (dense && (o >= lane + bytes || lane >= o + bytes)) {
                    SoftmaxDenseLane(log, reinterpret_cast<const float*>(lane),
                                     reinterpret_cast<float*>(o), len);
                    return;
                  }
                  V* shifted = buffers.data() + 2 * len * chunk;
                  V* exps = shifted + len;
                  V top = Value(Raw<T>(lane));
                  for (int64_t i = 0; i < len; ++i) {
                    shifted[i] = Value(Raw<T>(lane + i * step));
                    top = Larger::Apply(top, shifted[i]);
                  }
                  for (int64_t i = 0; i < len; ++i) {
                    shifted[i] -= top;
                    exps[i] = ExpOf(shifted[i]);
                  }
                  const V total = OrderedDense<V, Add>(reinterpret_cast<const char*>(exps), len);
                  if (log) {
                    const V log_total = std::log(total);
                    for (int64_t i = 0; i < len; ++i)
                      StoreValue<T>(o + i * out_step, shifted[i] - log_total);
                  } else {
                    const V scale = V(1) / total;
                    for (int64_t i = 0; i < len; ++i)
                      StoreValue<T>(o + i * out_step, exps[i] * scale);
                  }
                });
  }
}

// Up to this k, topk keeps its best k in a sorted buffer as it scans a lane.
constexpr int64_t kSmallTopK = 32;

// Inlined where it is called, into target clones too (GCC inlines a function
// without target attributes into one compiled for a wider target).
#if defined(__GNUC__)
#define DLNODE_INLINE inline __attribute__((always_inline))
#else
#define DLNODE_INLINE inline
#endif

// topk's order, "a before b": larger first (smaller when !largest), NaN
// before every number when largest and after when not, ties by index.
template <class V>
DLNODE_INLINE bool TopkBefore(const std::pair<V, int64_t>& a, const std::pair<V, int64_t>& b,
                              bool largest) {
  const bool a_nan = a.first != a.first;  // NOLINT(misc-redundant-expression)
  const bool b_nan = b.first != b.first;  // NOLINT(misc-redundant-expression)
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return a.second < b.second;
    return largest ? a_nan : b_nan;
  }
  if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
  return a.second < b.second;
}

// Offers c to the k best so far (pairs[0, *filled), in order): kept in order
// if it is among the k best, else dropped. Inlined, also into SmallTopkF32's
// AVX2 clone: called out of line from there, its SSE code read the values
// AVX code had just written, and paid the transition between the two on
// every element (14x slower than the scalar loop, perf on the Xeon).
template <class V>
DLNODE_INLINE void OfferTopk(const std::pair<V, int64_t>& c, int64_t k, bool largest,
                             std::pair<V, int64_t>* pairs, int64_t* filled) {
  if (*filled == k) {
    // The common case first: two numbers, c not past the k-th (a tie loses:
    // c comes later). NaN on either side: the full rule.
    const V kth = pairs[k - 1].first;
    const bool past = largest ? c.first > kth : c.first < kth;
    // NOLINTNEXTLINE(misc-redundant-expression): x == x is false for NaN
    const bool numbers = c.first == c.first && kth == kth;
    if (!past && (numbers || !TopkBefore(c, pairs[k - 1], largest))) return;
  }
  int64_t j = *filled < k ? (*filled)++ : k - 1;
  for (; j > 0 && TopkBefore(c, pairs[j - 1], largest); --j) pairs[j] = pairs[j - 1];
  pairs[j] = c;
}

// The k best of a dense float32 lane into pairs (k <= kSmallTopK), as the
// general loop in TopKOf finds them. Once the buffer is full and its k-th is
// a number, blocks of 16 elements none of which is past the k-th or NaN
// (the test vectorised: Float8 compares) are skipped whole; the rest go
// through OfferTopk one by one (figures: bench/README.md "Compute", "topk of
// dense float32 rows").
DLNODE_VECTOR_CLONES void SmallTopkF32(const float* lane, int64_t len, int64_t k, bool largest,
                                       std::pair<float, int64_t>* pairs) {
  // Below kth is above -kth: one compare for both orders (-NaN is NaN, and
  // negating is exact).
  const float sign = largest ? 1.0F : -1.0F;
  int64_t filled = 0;
  int64_t i = 0;
  while (i < len) {
    const float kth = pairs[k - 1].first;
    // NOLINTNEXTLINE(misc-redundant-expression): kth == kth is false for NaN
    if (filled == k && kth == kth) {
      const float bar = kth * sign;
      for (; i + 2 * kLanes <= len; i += 2 * kLanes) {
        Float8 a;
        Float8 b;
        std::memcpy(&a, lane + i, sizeof a);
        std::memcpy(&b, lane + i + kLanes, sizeof b);
        a *= sign;
        b *= sign;
        // All ones in each lane past the k-th or NaN (x != x).
        const auto hits =
            (a > bar) | (a != a) | (b > bar) | (b != b);  // NOLINT(misc-redundant-expression)
        uint64_t words[sizeof hits / sizeof(uint64_t)];
        std::memcpy(words, &hits, sizeof hits);
        uint64_t any = 0;
        for (const uint64_t w : words) any |= w;
        if (any != 0) break;
      }
      if (i == len) break;
    }
    // One element, or the block that had a hit, element by element.
    const int64_t end = std::min(len, filled == k ? i + 2 * kLanes : i + 1);
    for (; i < end; ++i)
      OfferTopk(std::pair<float, int64_t>{lane[i], i}, k, largest, pairs, &filled);
  }
}

template <class T>
void TopKOf(const StridedInput& in, int dim, int64_t k, bool largest, bool sorted, char* values,
            int64_t* indices, const int64_t* out_strides) {
  if constexpr (!kIsComplex<T>) {
    using V = ValueOf<T>;
    const int64_t len = in.ndim == 0 ? 1 : in.shape[dim];
    const int64_t step = (in.ndim == 0 ? 0 : in.strides[dim]) * kSizeOf<T>;
    const int64_t out_step = in.ndim == 0 ? 0 : out_strides[dim];
    if (k == 0) return;
    auto before = [largest](const std::pair<V, int64_t>& a, const std::pair<V, int64_t>& b) {
      return TopkBefore(a, b, largest);
    };
    // The k best so far (k <= kSmallTopK) or the whole lane, a slot per
    // chunk, allocated before the split (scratch.h): a lane of 2^40 elements
    // is ERR_DLPACK_OUT_OF_MEMORY here, not a std::bad_alloc in a pool task.
    const LaneSplit split = SplitLanes(in, dim);
    const int64_t per_lane = k <= kSmallTopK ? k : len;
    const Scratch<std::pair<V, int64_t>> slots =
        ScratchSlots<std::pair<V, int64_t>>(per_lane, split.chunks);
    ForEachLane(
        in, dim, out_strides, kSizeOf<T>, split, [&](int chunk, const char* lane, int64_t at) {
          std::pair<V, int64_t>* pairs = slots.data() + per_lane * chunk;
          if (k <= kSmallTopK) {
            // One pass keeping the k best in order (torch's top-k keeps a small
            // queue too): most elements cost one comparison with the k-th.
            if constexpr (std::is_same<T, float>::value) {
              if (step == sizeof(float)) {
                SmallTopkF32(reinterpret_cast<const float*>(lane), len, k, largest, pairs);
              }
            }
            if (!std::is_same<T, float>::value || step != sizeof(float)) {
              int64_t filled = 0;
              for (int64_t i = 0; i < len; ++i) {
                OfferTopk(std::pair<V, int64_t>{Value(Raw<T>(lane + i * step)), i}, k, largest,
                          pairs, &filled);
              }
            }
          } else {
            for (int64_t i = 0; i < len; ++i) pairs[i] = {Value(Raw<T>(lane + i * step)), i};
            if (sorted) {
              std::partial_sort(pairs, pairs + k, pairs + len, before);
            } else if (k < len) {
              std::nth_element(pairs, pairs + (k - 1), pairs + len, before);
            }
          }
          for (int64_t j = 0; j < k; ++j) {
            const int64_t i = pairs[j].second;
            std::memcpy(values + (at + j * out_step) * kSizeOf<T>, lane + i * step, sizeof(T));
            indices[at + j * out_step] = i;
          }
        });
  }
}

bool IsFloat(Scalar s) {
  return s == Scalar::kFloat16 || s == Scalar::kBfloat16 || s == Scalar::kFloat32 ||
         s == Scalar::kFloat64;
}
bool IsComplex(Scalar s) { return s == Scalar::kComplex64 || s == Scalar::kComplex128; }

}  // namespace

bool ResultType(ReduceOp op, Scalar in, Scalar* out) {
  switch (op) {
    case ReduceOp::kSum:
      *out = IsFloat(in) || IsComplex(in) ? in : Scalar::kInt64;
      return true;
    case ReduceOp::kMean:
      *out = in;
      return IsFloat(in) || IsComplex(in);
    case ReduceOp::kSoftmax:
    case ReduceOp::kLogSoftmax:
      *out = in;
      return IsFloat(in);
    case ReduceOp::kAmax:
    case ReduceOp::kAmin:
    case ReduceOp::kMax:
    case ReduceOp::kMin:
    case ReduceOp::kTopk:
      *out = in;
      return !IsComplex(in);
  }
  return false;
}

void Reduce(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  Scalar result;
  if (!ResultType(op, in.type, &result)) return;
  Dispatch(in.type,
           [&](auto tag) { ReduceOf<typename decltype(tag)::type>(op, in, reduced, out); });
}

void ArgExtreme(ReduceOp op, const StridedInput& in, int dim, char* values, int64_t* indices,
                const int64_t* out_strides) {
  Dispatch(in.type, [&](auto tag) {
    ArgExtremeOf<typename decltype(tag)::type>(op, in, dim, values, indices, out_strides);
  });
}

void Softmax(ReduceOp op, const StridedInput& in, int dim, char* out, const int64_t* out_strides) {
  Dispatch(in.type, [&](auto tag) {
    SoftmaxOf<typename decltype(tag)::type>(op, in, dim, out, out_strides);
  });
}

void TopK(const StridedInput& in, int dim, int64_t k, bool largest, bool sorted, char* values,
          int64_t* indices, const int64_t* out_strides) {
  Dispatch(in.type, [&](auto tag) {
    TopKOf<typename decltype(tag)::type>(in, dim, k, largest, sorted, values, indices, out_strides);
  });
}

}  // namespace dlnode
