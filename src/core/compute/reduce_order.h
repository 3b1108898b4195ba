// The one order every reduction combines in (src/core/compute/reduce.h): the
// partial-result combines, the fixed pairwise tree over eight lanes, its
// dense vectorised leaves, the accumulators, and ReduceTyped, the reduction
// of a set of dims that sums and amax/amin share.
#ifndef DLPACK_NODE_CORE_COMPUTE_REDUCE_ORDER_H_
#define DLPACK_NODE_CORE_COMPUTE_REDUCE_ORDER_H_

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../element.h"
#include "../parallel.h"
#include "../scratch.h"
#include "reduce.h"
#include "reduce_walk.h"

namespace dlnode {
namespace reduction {

// The elements, their values and the dtype dispatch (element.h).
using element::Dispatch;
using element::kIsComplex;
using element::kIsFloat;
using element::kSizeOf;
using element::Load;
using element::Put;
using element::Store;
using element::ValueOf;

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

// The dense leaves, compiled for AVX2 too (reduce_order.cc).
void LeafSumF32(const float* p, int64_t count, float* lanes);
void LeafSumF64(const double* p, int64_t count, double* lanes);
void LeafMaxF32(const float* p, int64_t count, float* lanes);
void LeafMaxF64(const double* p, int64_t count, double* lanes);
void LeafMinF32(const float* p, int64_t count, float* lanes);
void LeafMinF64(const double* p, int64_t count, double* lanes);
void FourSumF32(const float* p, const int64_t* starts, const int64_t* counts, float* lanes);
void FourSumF64(const double* p, const int64_t* starts, const int64_t* counts, double* lanes);
void FourMaxF32(const float* p, const int64_t* starts, const int64_t* counts, float* lanes);
void FourMaxF64(const double* p, const int64_t* starts, const int64_t* counts, double* lanes);
void FourMinF32(const float* p, const int64_t* starts, const int64_t* counts, float* lanes);
void FourMinF64(const double* p, const int64_t* starts, const int64_t* counts, double* lanes);
// Whether any of n floats is NaN, in one vectorised pass.
bool AnyNaN(const float* p, int64_t n);
bool AnyNaN(const double* p, int64_t n);
// Ordered()'s sums of `columns` <= kColumns outputs side by side (reduce_order.cc).
constexpr int64_t kColumns = 64;
void ColumnSumsF32(const float* base, int64_t stride, int64_t n, int64_t columns, float* sums);
void ColumnSumsF64(const double* base, int64_t stride, int64_t n, int64_t columns, double* sums);

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
  if (inner.p.ndim == 1) {
    const int64_t s = inner.p.strides[0][0];
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
    return Ordered<A, Op>(n,
                          [p, s](int64_t i) { return ToAcc<A>(Load<T>(p + i * s * kSizeOf<T>)); });
  }
  // Ordered() calls get(i) in increasing i: a walker steps along.
  Walker<1> w(inner.p);
  w.Seek(start);
  return Ordered<A, Op>(n, [&](int64_t) {
    const auto v = ToAcc<A>(Load<T>(base + w.off(0) * kSizeOf<T>));
    w.Next();
    return v;
  });
}

// Combines n >= 1 partial results in the same order.
template <class A, class Op>
A CombineArray(const A* a, int64_t n) {
  return Ordered<A, Op>(n, [a](int64_t i) { return a[i]; });
}

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
    const int last = outer.p.ndim - 1;
    if (n <= kSumBlock && inner.p.ndim == 1 && inner.p.strides[0][0] != 1 &&
        outer.p.strides[0][last] == 1) {
      const int64_t row = outer.p.shape[last];
      ParallelFor(m, std::max<int64_t>(1, kDefaultGrain / n), [&](int64_t b, int64_t e) {
        Walker<1> w(outer.p);
        A sums[kColumns];
        for (int64_t o = b; o < e;) {
          w.Seek(o);
          const int64_t columns = std::min({kColumns, e - o, row - o % row});
          const A* base = reinterpret_cast<const A*>(in.first) + w.off(0);
          if constexpr (std::is_same<A, float>::value) {
            ColumnSumsF32(base, inner.p.strides[0][0], n, columns, sums);
          } else {
            ColumnSumsF64(base, inner.p.strides[0][0], n, columns, sums);
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
      Walker<1> w(outer.p);
      w.Seek(b);
      for (int64_t o = b; o < e; ++o, w.Next()) {
        finish(out + o * out_size, Combine<T, A, Op>(in.first + w.off(0) * kSizeOf<T>, inner, 0, n),
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
    Walker<1> w(outer.p);
    for (int64_t i = b; i < e; ++i) {
      const int64_t o = i / blocks;
      const int64_t start = (i % blocks) * kSumBlock;
      w.Seek(o);
      partial[i] = Combine<T, A, Op>(in.first + w.off(0) * kSizeOf<T>, inner, start,
                                     std::min(kSumBlock, n - start));
    }
  });
  for (int64_t o = 0; o < m; ++o) {
    finish(out + o * out_size, CombineArray<A, Op>(partial.data() + o * blocks, blocks), n);
  }
}

// The kinds' halves of Reduce(): sum and mean (reduce_sums.cc), amax and
// amin (reduce_picks.cc).
void ReduceSums(ReduceOp op, const StridedInput& in, int reduced, char* out);
void ReduceExtremes(ReduceOp op, const StridedInput& in, int reduced, char* out);

}  // namespace reduction
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_REDUCE_ORDER_H_
