// Indexing (torch.gather, index_select, take, nonzero;
// docs/development.md "Compute families"). Elements are copied as bytes, so
// every dtype is taken; indices are int64 or int32. Every index is checked
// before anything is written: one outside its dim (a negative one but for
// take, which counts from the end as torch does) is ComputeFailure::kIndex,
// whose message names the index and where it was, and out is left as it was.
//
// maskedFill and where(condition) need no entry of their own: maskedFill is
// the elementwise where(mask, value, input) with a scalar operand, and
// where(condition) is nonzero's columns (lib/ views them).
#ifndef DLPACK_NODE_CORE_COMPUTE_INDEX_H_
#define DLPACK_NODE_CORE_COMPUTE_INDEX_H_

#include <cstdint>

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

// out[p] = in[p with p[dim] replaced by index[p]]: index and out of one
// shape, index.shape[d] <= in.shape[d] for d != dim (lib/ checks).
struct GatherArgs {
  View in;
  int dim = 0;
  View index;
  View out;
  Place place;
};
ComputeResult Gather(const GatherArgs& args);

// out = in with dim `dim` taken at index[0], index[1], ... (index 1-d; out is
// in's shape with that dim index's length).
struct IndexSelectArgs {
  View in;
  int dim = 0;
  View index;
  View out;
  Place place;
};
ComputeResult IndexSelect(const IndexSelectArgs& args);

// out[p] = in.flatten()[index[p]] (row-major order of in's elements),
// -in.size() <= index < in.size().
struct TakeArgs {
  View in;
  View index;
  View out;  // index's shape, in's dtype
  Place place;
};
ComputeResult Take(const TakeArgs& args);

// The number of nonzero elements of in (NaN is nonzero, -0 is not).
ComputeResult NonzeroCount(const View& in, const Place& place, int64_t* count);
// Their indices, row-major order, into out: [count, in.ndim], int64.
ComputeResult Nonzero(const View& in, const View& out, const Place& place);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_INDEX_H_
