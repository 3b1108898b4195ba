// The dense leaves of the fixed order (reduce_order.h), each compiled for
// AVX2 too.
#include "reduce_order.h"

#include "fast_math.h"

namespace dlnode {
namespace reduction {
namespace {

// Ordered()'s sum for up to kColumns outputs at once: output c's sequence is
// base[c + i * stride], i < n (a reduced dim that is not the inner one, as
// in sum(0) of a row-major matrix). Each step reads a run of the columns
// where one output at a time would read one element a row (a cache line and
// often a page each); every output's additions are Ordered()'s, in its
// order, so the bits are those of Combine().
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

}  // namespace

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

DLNODE_VECTOR_CLONES void ColumnSumsF32(const float* base, int64_t stride, int64_t n,
                                        int64_t columns, float* sums) {
  ColumnSums(base, stride, n, columns, sums);
}
DLNODE_VECTOR_CLONES void ColumnSumsF64(const double* base, int64_t stride, int64_t n,
                                        int64_t columns, double* sums) {
  ColumnSums(base, stride, n, columns, sums);
}

}  // namespace reduction
}  // namespace dlnode
