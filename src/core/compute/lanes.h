// What the lane-wise families (stats, norms, sort, scan) share: an operand
// cut into lanes (its leading dims kept, its trailing dims walked as one
// lane), elements loaded as double and stored back rounded once, and the one
// summation order every lane sum follows.
//
// The order: a lane of n values is cut into blocks of kSumBlock (the last
// shorter), each block summed pairwise (halves cut at n / 2, leaves of up to
// kLeaf values, each leaf's value i added to accumulator i % 8 in sequence and
// the eight folded ((0 1)(2 3))((4 5)(6 7))), and the block sums added
// pairwise the same way. The eight accumulators are what lets a dense lane's
// leaf vectorise; a strided lane follows the same order one value at a time. It depends on n alone,
// never on the layout or the thread count, so a lane split over threads by blocks gives the bits of
// one thread. The error is O(log n) ulps of the sum of magnitudes (NumPy's pairwise sum), in
// double.
#ifndef DLPACK_NODE_CORE_COMPUTE_LANES_H_
#define DLPACK_NODE_CORE_COMPUTE_LANES_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "../convert.h"
#include "../layout.h"
#include "view.h"

namespace dlnode {
namespace compute {

constexpr int64_t kLeaf = 64;
constexpr int64_t kSumBlock = 32768;

// Element i of a float type as double, and a double stored in it rounded
// once (float16/bfloat16 through float, as torch rounds its float results).
inline double LoadReal(const char* p, Scalar type) {
  switch (type) {
    case Scalar::kFloat64: {
      double v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case Scalar::kFloat32: {
      float v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case Scalar::kFloat16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return HalfToFloat(v);
    }
    case Scalar::kBfloat16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return Bfloat16ToFloat(v);
    }
    default:
      return 0.0;
  }
}

inline void StoreReal(char* p, Scalar type, double value) {
  switch (type) {
    case Scalar::kFloat64:
      std::memcpy(p, &value, sizeof value);
      break;
    case Scalar::kFloat32: {
      const auto v = static_cast<float>(value);
      std::memcpy(p, &v, sizeof v);
      break;
    }
    case Scalar::kFloat16: {
      const uint16_t v = FloatToHalf(static_cast<float>(value));
      std::memcpy(p, &v, sizeof v);
      break;
    }
    case Scalar::kBfloat16: {
      const uint16_t v = FloatToBfloat16(static_cast<float>(value));
      std::memcpy(p, &v, sizeof v);
      break;
    }
    default:
      break;
  }
}

inline bool IsReal(Scalar t) {
  return t == Scalar::kFloat16 || t == Scalar::kBfloat16 || t == Scalar::kFloat32 ||
         t == Scalar::kFloat64;
}

// Dims of a view, size-1 dims dropped and row-major neighbours merged where
// one stride spans both; at least one dim.
struct Walk {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  int64_t count = 1;

  Walk() : ndim(1) { shape[0] = 1; }
  Walk(int n, const int64_t* shape_in, const int64_t* strides_in) {
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

  // Element offset of linear index i (row-major over the dims).
  int64_t Offset(int64_t i) const {
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      off += (i % shape[d]) * strides[d];
      i /= shape[d];
    }
    return off;
  }
};

// Steps through a walk's elements in row-major order from a linear index.
class Cursor {
 public:
  Cursor(const Walk& w, int64_t start) : w_(w) {
    int64_t rest = start;
    for (int d = w.ndim - 1; d >= 0; --d) {
      index_[d] = rest % w.shape[d];
      rest /= w.shape[d];
      off_ += index_[d] * w.strides[d];
    }
  }
  int64_t offset() const { return off_; }
  void Next() {
    for (int d = w_.ndim - 1; d >= 0; --d) {
      off_ += w_.strides[d];
      if (++index_[d] < w_.shape[d]) return;
      off_ -= w_.strides[d] * w_.shape[d];
      index_[d] = 0;
    }
  }

 private:
  const Walk& w_;
  int64_t index_[kMaxDims] = {};
  int64_t off_ = 0;
};

constexpr int kSumLanes = 8;

// The sums below recurse; inlined, GCC unrolls a few levels of the recursion
// into every caller (cosineSimilarity's lane was 57 KB of code), so they stay
// calls (one per leaf of 64 values).
#if defined(__GNUC__)
#define DLNODE_SUM_NOINLINE __attribute__((noinline))
#else
#define DLNODE_SUM_NOINLINE
#endif

inline double FoldLanes(const double* a) {
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// The pairwise sum of n values taken in order from next() (the order above
// within one block).
template <class Next>
DLNODE_SUM_NOINLINE double PairwiseSum(int64_t n, Next& next) {
  if (n <= kLeaf) {
    double a[kSumLanes] = {};
    for (int64_t i = 0; i < n; ++i) a[i % kSumLanes] += next();
    return FoldLanes(a);
  }
  const int64_t half = n / 2;
  const double left = PairwiseSum(half, next);
  return left + PairwiseSum(n - half, next);
}

// The same sum of f(p[0]), ..., f(p[n - 1]) over dense values.
template <class T, class F>
DLNODE_SUM_NOINLINE double DensePairwiseSum(const T* p, int64_t n, const F& f) {
  if (n <= kLeaf) {
    double a[kSumLanes] = {};
    int64_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
      for (int j = 0; j < kSumLanes; ++j) a[j] += f(static_cast<double>(p[i + j]));
    }
    for (; i < n; ++i) a[i % kSumLanes] += f(static_cast<double>(p[i]));
    return FoldLanes(a);
  }
  const int64_t half = n / 2;
  const double left = DensePairwiseSum(p, half, f);
  return left + DensePairwiseSum(p + half, n - half, f);
}

// Block sums combined in the same order.
inline double CombineBlocks(const double* sums, int64_t blocks) {
  int64_t i = 0;
  auto next = [&] { return sums[i++]; };
  return PairwiseSum(blocks, next);
}

// An operand cut into lanes: `kept` leading dims, the rest one lane each.
struct LaneView {
  const View* view;
  Walk outer;  // the kept dims
  Walk inner;  // the lane

  LaneView(const View& v, int lane_dims)
      : view(&v),
        outer(v.ndim - lane_dims, v.shape, v.strides),
        inner(lane_dims, v.shape + (v.ndim - lane_dims), v.strides + (v.ndim - lane_dims)) {}

  int64_t lanes() const { return outer.count; }
  int64_t length() const { return inner.count; }
  // Element 0 of lane o.
  const char* Lane(int64_t o) const { return view->first + outer.Offset(o) * view->item(); }

  // f(value) summed over elements [start, start + n) of lane o, in double,
  // pairwise.
  template <class F>
  double Sum(int64_t o, int64_t start, int64_t n, const F& f) const {
    const char* base = Lane(o);
    const int64_t item = view->item();
    const Scalar type = view->type;
    if (inner.ndim == 1 && (inner.strides[0] == 1 || inner.count <= 1)) {
      // float32 only: each dense instantiation is a few KB of code per sum
      // formula, and float64 lanes are rare in pipelines (they take the
      // general path below, in the same order).
      if (type == Scalar::kFloat32) {
        return DensePairwiseSum(reinterpret_cast<const float*>(base) + start, n, f);
      }
    }
    if (inner.ndim == 1) {
      const int64_t step = inner.strides[0] * item;
      const char* p = base + start * step;
      auto next = [&] {
        const double v = f(LoadReal(p, type));
        p += step;
        return v;
      };
      return PairwiseSum(n, next);
    }
    Cursor c(inner, start);
    auto next = [&] {
      const double v = f(LoadReal(base + c.offset() * item, type));
      c.Next();
      return v;
    };
    return PairwiseSum(n, next);
  }

  // The whole lane's sum of f on this thread, in the order above (blocks of
  // kSumBlock, their sums combined pairwise).
  template <class F>
  double Total(int64_t o, const F& f) const {
    const int64_t n = length();
    if (n <= kSumBlock) return Sum(o, 0, n, f);
    int64_t start = 0;
    auto next = [&] {
      const double s = Sum(o, start, std::min(kSumBlock, n - start), f);
      start += kSumBlock;
      return s;
    };
    return PairwiseSum((n + kSumBlock - 1) / kSumBlock, next);
  }
};

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_LANES_H_
