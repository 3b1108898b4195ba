// interpolate of NCHW tensors, nearest and bilinear (torch.nn.functional.
// interpolate; docs/development.md "Compute families"), with torch's index
// rules in torch's arithmetic (float for float16, bfloat16 and float32
// inputs, double for float64), so the source indices and weights are torch's:
//  - scale per spatial dim: align_corners (bilinear) (in - 1) / (out - 1) (0
//    for out <= 1); else 1 / scale_factor when lib/ passes one (torch's
//    F.interpolate(scale_factor=s) without recompute_scale_factor), else
//    in / out;
//  - nearest: src = min(floor(dst * scale), in - 1), with torch's shortcuts
//    (out == in: dst; out == 2 in: dst / 2);
//  - bilinear: src = align_corners ? scale * dst : max(scale * (dst + 0.5) -
//    0.5, 0), i0 = floor(src), i1 = min(i0 + 1, in - 1), l1 = src - i0, l0 =
//    1 - l1, out = (x[h0][w0] l0w + x[h0][w1] l1w) l0h + (x[h1][w0] l0w +
//    x[h1][w1] l1w) l1h (torch's formula; its CPU kernel's vectorised
//    arithmetic may round the sums' last bit otherwise).
// lib/ computes out's size (from size, or floor(in * scale_factor)).
#ifndef DLPACK_NODE_CORE_COMPUTE_INTERPOLATE_H_
#define DLPACK_NODE_CORE_COMPUTE_INTERPOLATE_H_

#include "compute_result.h"
#include "view.h"

namespace dlnode {
namespace compute {

struct InterpolateArgs {
  View in;                // [N, C, H, W], a float type
  bool bilinear = false;  // else nearest
  bool align_corners = false;
  double scale_h = 0;  // the scale_factor asked for, or 0
  double scale_w = 0;
  View out;  // [N, C, OH, OW], in's type
  Place place;
};

ComputeResult Interpolate(const InterpolateArgs& args);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_INTERPOLATE_H_
