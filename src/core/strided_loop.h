// The one strided iteration under the elementwise ops, the host copies and
// the dtype conversions (docs/API.md "The engine"): operands (the output
// first) with byte strides over one shape; size-1 dimensions dropped and
// dimensions that every operand steps over as one merged (torch's
// TensorIterator::coalesce_dimensions); the flat row-major index space split
// across the host pool by a fixed grain (parallel.h), so a split never changes
// a result; an inner function called once per run of the innermost dimension.
#ifndef DLPACK_NODE_CORE_STRIDED_LOOP_H_
#define DLPACK_NODE_CORE_STRIDED_LOOP_H_

#include <algorithm>
#include <cstdint>
#include <utility>

#include "layout.h"
#include "parallel.h"

namespace dlnode {

constexpr int kMaxOperands = 4;  // the output and up to three inputs

namespace strided {

// `n` operands over a shape of `ndim` dims; strides in bytes. Only the first
// ndim dims of the first n operands are meaningful: whoever sets ndim and n
// writes those, and nothing here reads past them. The arrays are not zeroed:
// that was a 2.6 KB `rep stos` per op on the per-call path of a tiny op
// (bench/README.md "The per-call path").
struct Plan {
  int ndim = 0;
  int n = 0;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];  // bytes
  char* first[kMaxOperands];
};

// Drops size-1 dimensions and merges a dimension into the one outside it when
// every operand steps over both as one.
inline void Coalesce(Plan* p) {
  int out = 0;
  for (int i = 0; i < p->ndim; ++i) {
    if (p->shape[i] == 1) continue;
    bool merge = out > 0;
    for (int k = 0; merge && k < p->n; ++k) {
      merge = p->strides[k][out - 1] == p->strides[k][i] * p->shape[i];
    }
    if (merge) {
      p->shape[out - 1] *= p->shape[i];
      for (int k = 0; k < p->n; ++k) p->strides[k][out - 1] = p->strides[k][i];
      continue;
    }
    p->shape[out] = p->shape[i];
    for (int k = 0; k < p->n; ++k) p->strides[k][out] = p->strides[k][i];
    ++out;
  }
  p->ndim = out;
}

// Orders the dims so that strides shrink from the outside in, the innermost
// the smallest (TensorIterator::reorder_dimensions): dim i moves inside dim j
// when the first operand whose strides at both are non-zero and differ steps
// over i with the smaller one (in magnitude); dims no operand tells apart keep
// their order. Only for walks whose order decides nothing but speed.
inline void ReorderByStride(Plan* p) {
  auto inside = [p](int i, int j) {  // whether dim i belongs inside dim j
    for (int k = 0; k < p->n; ++k) {
      const int64_t a = p->strides[k][i] < 0 ? -p->strides[k][i] : p->strides[k][i];
      const int64_t b = p->strides[k][j] < 0 ? -p->strides[k][j] : p->strides[k][j];
      if (a == 0 || b == 0 || a == b) continue;
      return a < b;
    }
    return false;
  };
  for (int i = 1; i < p->ndim; ++i) {
    for (int j = i; j > 0 && inside(j - 1, j); --j) {
      std::swap(p->shape[j - 1], p->shape[j]);
      for (int k = 0; k < p->n; ++k) std::swap(p->strides[k][j - 1], p->strides[k][j]);
    }
  }
}

// The one index-to-offset rule: flat row-major index `linear` of p as an index
// per dim and an offset per operand (in the units of p's strides).
inline void Unravel(const Plan& p, int64_t linear, int64_t* index, int64_t* offsets) {
  for (int d = p.ndim - 1; d >= 0; --d) {
    index[d] = linear % p.shape[d];
    linear /= p.shape[d];
  }
  for (int k = 0; k < p.n; ++k) {
    offsets[k] = 0;
    for (int d = 0; d < p.ndim; ++d) offsets[k] += index[d] * p.strides[k][d];
  }
}

// Walks [begin, end) of the flat row-major index space of p, one innermost run
// at a time: inner(ptrs, byte_strides, count).
template <typename Inner>
void Walk(const Plan& p, int64_t begin, int64_t end, const Inner& inner) {
  if (p.ndim == 0) {
    char* ptrs[kMaxOperands];
    int64_t zero[kMaxOperands] = {};
    for (int k = 0; k < p.n; ++k) ptrs[k] = p.first[k];
    inner(ptrs, zero, 1);
    return;
  }
  const int last = p.ndim - 1;
  const int64_t row = p.shape[last];
  int64_t index[kMaxDims];  // Unravel writes the first ndim, all the walk reads
  int64_t offsets[kMaxOperands];
  Unravel(p, begin, index, offsets);
  char* ptrs[kMaxOperands];
  int64_t inner_strides[kMaxOperands];
  for (int k = 0; k < p.n; ++k) {
    ptrs[k] = p.first[k] + offsets[k];
    inner_strides[k] = p.strides[k][last];
  }
  int64_t at = begin;
  while (at < end) {
    const int64_t count = std::min(row - index[last], end - at);
    inner(ptrs, inner_strides, count);
    at += count;
    if (at >= end) break;
    // Back to the start of the row, then the odometer over the outer dims.
    for (int k = 0; k < p.n; ++k) ptrs[k] -= index[last] * p.strides[k][last];
    index[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < p.n; ++k) ptrs[k] += p.strides[k][d];
      if (++index[d] < p.shape[d]) break;
      for (int k = 0; k < p.n; ++k) ptrs[k] -= p.strides[k][d] * p.shape[d];
      index[d] = 0;
    }
  }
}

// Coalesces p, then walks all of it, split across the pool. A loop of one
// grain or less is one chunk, which ParallelFor runs on its caller: it is
// walked here, without the std::function and the thread-count reads (the
// per-call path of a tiny op, bench/README.md "The per-call path").
template <typename Inner>
void Run(Plan* p, const Inner& inner) {
  int64_t total = 1;
  for (int d = 0; d < p->ndim; ++d) total *= p->shape[d];
  if (total == 0) return;
  Coalesce(p);
  if (total <= kDefaultGrain) {
    Walk(*p, 0, total, inner);
    return;
  }
  ParallelFor(total, kDefaultGrain,
              [&](int64_t begin, int64_t end) { Walk(*p, begin, end, inner); });
}

// A plan of two operands, dst and src, from element strides and item sizes.
inline Plan Pair(int ndim, const int64_t* shape, char* dst, const int64_t* dst_strides,
                 uint64_t dst_item, const char* src, const int64_t* src_strides,
                 uint64_t src_item) {
  Plan p;
  p.ndim = ndim;
  p.n = 2;
  p.first[0] = dst;
  p.first[1] = const_cast<char*>(src);  // read only: operand 1 is an input
  for (int d = 0; d < ndim; ++d) {
    p.shape[d] = shape[d];
    p.strides[0][d] = dst_strides[d] * static_cast<int64_t>(dst_item);
    p.strides[1][d] = src_strides[d] * static_cast<int64_t>(src_item);
  }
  return p;
}

}  // namespace strided
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_STRIDED_LOOP_H_
