#include "sort.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../element.h"
#include "../parallel.h"
#include "lanes.h"
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

// Values sort as one of three key types, to keep one sort per key type in
// the binary (a sort per dtype was 100 KB of x64 code): signed integers as
// int64, unsigned ones and bool (a uint8 in element.h's DispatchReal) as
// uint64, floats as double (every value exact, NaN still NaN, -0 still equal
// to 0).
template <class S>
using KeyOf = std::conditional_t<
    std::is_floating_point<element::ValueOf<S>>::value, double,
    std::conditional_t<std::is_signed<element::ValueOf<S>>::value, int64_t, uint64_t>>;

template <class K>
ComputeResult SortByKey(const SortArgs& args, K (*load)(const char*), void (*store)(char*, K)) {
  using Pair = std::pair<K, int64_t>;
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
  const Before<K> before{args.descending};
  // Lanes are whole tasks (a lane of n elements is n log n work).
  ParallelChunks(lanes, slots, [&](int64_t begin, int64_t end, int slot) {
    Pair* pairs = buffers.data() + static_cast<uint64_t>(slot) * static_cast<uint64_t>(n);
    for (int64_t o = begin; o < end; ++o) {
      const char* lane = in.Lane(o);
      for (int64_t i = 0; i < n; ++i) pairs[i] = {load(lane + i * step), i};
      std::stable_sort(pairs, pairs + n, before);
      char* idx = const_cast<char*>(indices.Lane(o));
      for (int64_t i = 0; i < n; ++i) {
        StoreIndex(idx + i * index_step, args.indices.type, pairs[i].second);
      }
      if (args.values.first == nullptr) continue;
      // From the keys (each exact), not the lane: out may be the input itself.
      char* val = const_cast<char*>(values.Lane(o));
      for (int64_t i = 0; i < n; ++i) store(val + i * value_step, pairs[i].first);
    }
  });
  return {};
}

template <class S>
KeyOf<S> LoadKey(const char* p) {
  return static_cast<KeyOf<S>>(element::Load<S>(p));
}

template <class S>
void StoreKey(char* p, KeyOf<S> key) {
  element::Store<S>(p, static_cast<element::ValueOf<S>>(key));
}

}  // namespace

ComputeResult Sort(const SortArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "sort"); !r.ok()) return r;
  ComputeResult result;
  element::DispatchReal(args.in.type, [&](auto tag) {
    using S = typename decltype(tag)::type;
    result = SortByKey<KeyOf<S>>(args, LoadKey<S>, StoreKey<S>);
  });
  return result;
}

}  // namespace compute
}  // namespace dlnode
