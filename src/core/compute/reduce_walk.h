// How the reductions walk memory (src/core/compute/reduce.h), through the one
// iteration core (strided_loop.h): a set of dims coalesced by
// strided::Coalesce, walked in row-major order from any flat index
// (strided::Unravel, then an odometer), and the lanes along one dim split
// across the host pool.
//
// A reduced set of dims is coalesced but never reordered: a sum's order is its
// elements' row-major order, so that the bits depend on the element count
// alone, never on the layout. The kept dims of Reduce() are not reordered
// either: its output is row-major and contiguous, which is already the
// order TensorIterator's reorder (the output's strides first) would pick.
// The lanes along one dim (ForEachLane) are reordered by stride, output
// first, then coalesced: each lane is computed apart, so their order decides
// only how memory is visited.
#ifndef DLPACK_NODE_CORE_COMPUTE_REDUCE_WALK_H_
#define DLPACK_NODE_CORE_COMPUTE_REDUCE_WALK_H_

#include <algorithm>
#include <cstdint>

#include "../parallel.h"
#include "../strided_loop.h"
#include "reduce.h"

namespace dlnode {
namespace reduction {

// Dims with their strides in elements (one operand, or two: an input's and an
// output's), size-1 dims dropped and row-major neighbours merged where one
// stride spans both (strided::Coalesce; the walk order is unchanged). At
// least one dim (size 1) is left. `count`: the elements.
struct Dims {
  strided::Plan p;
  int64_t count = 1;

  Dims(int n, const int64_t* shape, const int64_t* strides) {
    p.ndim = n;
    p.n = 1;
    for (int i = 0; i < n; ++i) {
      count *= shape[i];
      p.shape[i] = shape[i];
      p.strides[0][i] = strides[i];
    }
    strided::Coalesce(&p);
    if (p.ndim == 0) {
      p.shape[0] = 1;
      p.strides[0][0] = 0;
      p.ndim = 1;
    }
  }
};

// The dims of p (N operands: p.n == N) walked in row-major order from any
// flat index; off(k): operand k's offset, in the units of its strides.
template <int N>
class Walker {
 public:
  explicit Walker(const strided::Plan& p) : p_(p) {}

  void Seek(int64_t linear) { strided::Unravel(p_, linear, index_, off_); }

  void Next() {
    for (int d = p_.ndim - 1; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off_[k] += p_.strides[k][d];
      if (++index_[d] < p_.shape[d]) return;
      for (int k = 0; k < N; ++k) off_[k] -= p_.strides[k][d] * p_.shape[d];
      index_[d] = 0;
    }
  }

  int64_t off(int k) const { return off_[k]; }

 private:
  const strided::Plan& p_;
  int64_t index_[kMaxDims] = {};
  int64_t off_[kMaxOperands] = {};
};

// How ForEachLane splits the lanes along `dim` of `in` across threads: the
// number of lanes, the grain, and at most how many chunks (the slots of any
// per-chunk scratch, allocated before the split: scratch.h).
struct LaneSplit {
  int64_t lanes = 1;
  int64_t len = 1;
  int64_t grain = 1;
  int chunks = 1;
};

inline LaneSplit SplitLanes(const StridedInput& in, int dim) {
  LaneSplit split;
  for (int d = 0; d < in.ndim; ++d) {
    if (d != dim) split.lanes *= in.shape[d];
  }
  split.len = in.ndim == 0 ? 1 : in.shape[dim];
  split.grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(split.len, 1));
  split.chunks = MaxChunks(split.lanes, split.grain);
  return split;
}

// The lane walk of ForEachLane, out of line and type-erased (reduce_walk.cc):
// one copy in the binary whatever the lane's work, which each pick and
// softmax instantiates per dtype (the walk inlined into each cost about 60 KB
// of x64 code). visit(fn, chunk, in_lane, out_offset) for every lane.
using LaneVisit = void (*)(const void* fn, int chunk, const char* in_lane, int64_t out_offset);
void WalkLanes(const StridedInput& in, int dim, const int64_t* out_strides, int64_t item_size,
               const LaneSplit& split, const void* fn, LaneVisit visit);

// Calls fn(chunk, in_lane, out_offset) for every lane along `dim`, split
// across at most split.chunks threads (chunk < split.chunks: the slot of its
// scratch); in_lane is the lane's element 0, out_offset in output elements.
template <class Fn>
void ForEachLane(const StridedInput& in, int dim, const int64_t* out_strides, int64_t item_size,
                 const LaneSplit& split, const Fn& fn) {
  WalkLanes(in, dim, out_strides, item_size, split, &fn,
            [](const void* f, int chunk, const char* in_lane, int64_t out_offset) {
              (*static_cast<const Fn*>(f))(chunk, in_lane, out_offset);
            });
}

}  // namespace reduction
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_REDUCE_WALK_H_
