// Box post-processing as torchvision.ops computes it (box_iou, nms,
// batched_nms; docs/development.md "Compute families"). Boxes are
// (x1, y1, x2, y2) rows of float32 or float64 (any strides); every IoU is
// computed in the boxes' type in torchvision's order of operations:
// w = max(min(x2) - max(x1), 0), h likewise, inter = w * h, iou = inter /
// ((area_a + area_b) - inter), area = (x2 - x1) * (y2 - y1).
//
// nms keeps, in order of decreasing score (a stable order: equal scores by
// index; NaN scores first, as torch's descending sort puts them), each box
// whose IoU with every box kept before it is at most the threshold.
// batchedNms does the same within each category (idxs): torchvision's
// per-category path, exact; its other path shifts boxes apart by a multiple
// of the largest coordinate, which rounds IoUs differently near the threshold.
// No boxes: nothing kept.
#ifndef DLPACK_NODE_CORE_COMPUTE_BOXES_H_
#define DLPACK_NODE_CORE_COMPUTE_BOXES_H_

#include <cstdint>

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

// out[i, j] = IoU(a[i], b[j]): a [N, 4], b [M, 4] of one type, out [N, M] of it.
struct BoxIouArgs {
  View a;
  View b;
  View out;
  Place place;
};
ComputeResult BoxIou(const BoxIouArgs& args);

struct NmsArgs {
  View boxes;        // [N, 4]
  View scores;       // [N], the boxes' type
  const View* idxs;  // [N] int64 or int32 categories (batchedNms), or null (nms)
  double iou_threshold = 0.5;
  int64_t* keep;  // room for N indices, int64
  Place place;
};
// The kept indices into args.keep[0, *kept).
ComputeResult Nms(const NmsArgs& args, int64_t* kept);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_BOXES_H_
