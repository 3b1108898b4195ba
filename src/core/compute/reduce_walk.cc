#include "reduce_walk.h"

namespace dlnode {
namespace reduction {

void WalkLanes(const StridedInput& in, int dim, const int64_t* out_strides, int64_t item_size,
               const LaneSplit& split, const void* fn, LaneVisit visit) {
  if (split.lanes == 0 || split.len == 0) return;
  strided::Plan p;  // operand 0 the output, 1 the input (elements)
  p.n = 2;
  for (int d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    p.shape[p.ndim] = in.shape[d];
    p.strides[0][p.ndim] = out_strides[d];
    p.strides[1][p.ndim] = in.strides[d];
    ++p.ndim;
  }
  strided::ReorderByStride(&p);
  strided::Coalesce(&p);
  ParallelForChunks(split.lanes, split.grain, split.chunks, [&](int chunk, int64_t b, int64_t e) {
    Walker<2> w(p);
    w.Seek(b);
    for (int64_t o = b; o < e; ++o, w.Next()) {
      visit(fn, chunk, in.first + w.off(1) * item_size, w.off(0));
    }
  });
}

}  // namespace reduction
}  // namespace dlnode
