// The picks (src/core/compute/reduce.h): amax/amin over a set of dims (in
// reduce_order.h's fixed order), max/min/argmax/argmin along one dim (the
// first extreme, the first NaN), and topk (NaN above every number, ties by
// index).
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "fast_math.h"
#include "reduce_order.h"

namespace dlnode {
namespace reduction {
namespace {

template <class T>
void ExtremesOf(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  using V = ValueOf<T>;
  if constexpr (!kIsComplex<T>) {
    auto store = [](char* p, V acc, int64_t) { Store<T>(p, acc); };
    if (op == ReduceOp::kAmax) {
      ReduceTyped<T, V, Larger>(in, reduced, out, sizeof(T), store);
    } else {
      ReduceTyped<T, V, Smaller>(in, reduced, out, sizeof(T), store);
    }
  }
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
          V best = Load<T>(lane);
          int64_t index = 0;
          for (int64_t i = 1; i < len && best == best; ++i) {  // NOLINT(misc-redundant-expression)
            const V v = Load<T>(lane + i * step);
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

// Up to this k, topk keeps its best k in a sorted buffer as it scans a lane.
constexpr int64_t kSmallTopK = 32;

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
                OfferTopk(std::pair<V, int64_t>{Load<T>(lane + i * step), i}, k, largest, pairs,
                          &filled);
              }
            }
          } else {
            for (int64_t i = 0; i < len; ++i) pairs[i] = {Load<T>(lane + i * step), i};
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

}  // namespace

void ReduceExtremes(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  Dispatch(in.type,
           [&](auto tag) { ExtremesOf<typename decltype(tag)::type>(op, in, reduced, out); });
}

}  // namespace reduction

void ArgExtreme(ReduceOp op, const StridedInput& in, int dim, char* values, int64_t* indices,
                const int64_t* out_strides) {
  reduction::Dispatch(in.type, [&](auto tag) {
    reduction::ArgExtremeOf<typename decltype(tag)::type>(op, in, dim, values, indices,
                                                          out_strides);
  });
}

void TopK(const StridedInput& in, int dim, int64_t k, bool largest, bool sorted, char* values,
          int64_t* indices, const int64_t* out_strides) {
  reduction::Dispatch(in.type, [&](auto tag) {
    reduction::TopKOf<typename decltype(tag)::type>(in, dim, k, largest, sorted, values, indices,
                                                    out_strides);
  });
}

}  // namespace dlnode
