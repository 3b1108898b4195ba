#include "sort.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "../parallel.h"
#include "lanes.h"
#include "real_types.h"
#include "scratch.h"

namespace dlnode {
namespace compute {
namespace {

template <class V>
bool IsNaN(V v) {
  return v != v;  // NOLINT(misc-redundant-expression): false for every integer
}

// a before b: ascending with NaN last, or descending with NaN first. Equal
// values (and two NaNs) are not ordered: stable_sort keeps their order.
template <class V>
struct Before {
  bool descending;
  bool operator()(const std::pair<V, int64_t>& a, const std::pair<V, int64_t>& b) const {
    const bool an = IsNaN(a.first);
    const bool bn = IsNaN(b.first);
    if (an || bn) return descending ? an && !bn : bn && !an;
    return descending ? b.first < a.first : a.first < b.first;
  }
};

void StoreIndex(char* p, Scalar type, int64_t i) {
  if (type == Scalar::kInt32) {
    const auto v = static_cast<int32_t>(i);
    std::memcpy(p, &v, sizeof v);
  } else {
    std::memcpy(p, &i, sizeof i);
  }
}

template <class S>
ComputeResult SortTyped(const SortArgs& args) {
  using V = typename Real<S>::Value;
  using Pair = std::pair<V, int64_t>;
  const LaneView in(args.in, 1);
  const int64_t lanes = in.lanes();
  const int64_t n = in.length();
  if (lanes == 0 || n == 0) return {};
  const int slots = static_cast<int>(std::min<int64_t>(GetNumThreads(), lanes));
  Scratch<Pair> buffers;
  const uint64_t need = static_cast<uint64_t>(slots) * static_cast<uint64_t>(n);
  if (!buffers.Allocate(need)) return OutOfMemory("sort's lane buffers", need * sizeof(Pair));
  const LaneView values(args.values.first != nullptr ? args.values : args.in, 1);
  const LaneView indices(args.indices, 1);
  const int64_t item = args.in.item();
  const int64_t step = in.inner.strides[0] * item;
  const int64_t value_step = values.inner.strides[0] * item;
  const int64_t index_item = args.indices.item();
  const int64_t index_step = indices.inner.strides[0] * index_item;
  const Before<V> before{args.descending};
  // Lanes are whole tasks (a lane of n elements is n log n work); the
  // indices are written before the values, which may overwrite the input.
  ParallelChunks(lanes, slots, [&](int64_t begin, int64_t end, int slot) {
    Pair* pairs = buffers.data() + static_cast<uint64_t>(slot) * static_cast<uint64_t>(n);
    for (int64_t o = begin; o < end; ++o) {
      const char* lane = in.Lane(o);
      for (int64_t i = 0; i < n; ++i) pairs[i] = {Real<S>::Load(lane + i * step), i};
      std::stable_sort(pairs, pairs + n, before);
      char* idx = const_cast<char*>(indices.Lane(o));
      for (int64_t i = 0; i < n; ++i)
        StoreIndex(idx + i * index_step, args.indices.type, pairs[i].second);
      if (args.values.first != nullptr) {
        char* val = const_cast<char*>(values.Lane(o));
        // From the pairs, not the lane: values may be the input itself.
        for (int64_t i = 0; i < n; ++i) Real<S>::Store(val + i * value_step, pairs[i].first);
      }
    }
  });
  return {};
}

}  // namespace

ComputeResult Sort(const SortArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "sort"); !r.ok()) return r;
  ComputeResult result;
  DispatchReal(args.in.type,
               [&](auto tag) { result = SortTyped<typename decltype(tag)::type>(args); });
  return result;
}

}  // namespace compute
}  // namespace dlnode
