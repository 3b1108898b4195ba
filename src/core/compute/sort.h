// sort and argsort along the last dim (torch.sort, argsort;
// docs/development.md "Compute families"): lib/ moves `dim` last (a view)
// and allocates values (in's dtype) and int64 indices of in's shape.
//
// Order: ascending, or descending; NaN sorts as the largest value (after
// every number ascending, first descending), as torch orders it; -0 and 0
// are equal. Every sort is stable (equal values keep their order, in both
// directions), which torch's stable=True promises and stable=False allows.
// Each lane is sorted on one thread, into a scratch buffer per pool slot
// allocated before the split.
#ifndef DLPACK_NODE_CORE_COMPUTE_SORT_H_
#define DLPACK_NODE_CORE_COMPUTE_SORT_H_

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

struct SortArgs {
  View in;  // [..., n]; any real dtype
  bool descending = false;
  View values;   // in's shape and dtype, or first == nullptr (argsort)
  View indices;  // in's shape, int64 (or int32)
  Place place;
};

ComputeResult Sort(const SortArgs& args);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_SORT_H_
