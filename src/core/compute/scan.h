// cumsum and cumprod along the last dim (torch.cumsum, cumprod with dtype;
// docs/development.md "Compute families"). lib/ moves `dim` last and picks
// out's dtype as torch does: int64 for bool and integer inputs, in's own for
// floats, or the `dtype` asked for. A float out accumulates in double (torch's
// CPU accumulates float32 in double too) and each output is rounded once; an
// integer out accumulates in int64 arithmetic wrapping modulo 2^64, each
// output wrapped to its width. A lane is scanned in order on one thread (the
// same result at any thread count); lanes are split over the pool. out may be
// in itself.
#ifndef DLPACK_NODE_CORE_COMPUTE_SCAN_H_
#define DLPACK_NODE_CORE_COMPUTE_SCAN_H_

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

struct ScanArgs {
  bool product = false;  // cumprod, else cumsum
  View in;               // [..., n], any real dtype
  View out;              // in's shape, a real dtype
  Place place;
};

ComputeResult Scan(const ScanArgs& args);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_SCAN_H_
