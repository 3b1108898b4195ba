#include "interpolate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../parallel.h"
#include "lanes.h"
#include "scratch.h"

namespace dlnode {
namespace compute {
namespace {

// torch's compute_scales_value and area_pixel_compute_scale, in A.
template <class A>
A ScaleOf(int64_t in, int64_t out, bool align_corners, double scale_factor) {
  if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  if (scale_factor > 0) return static_cast<A>(1.0 / scale_factor);
  return static_cast<A>(in) / static_cast<A>(out);
}

// One output index's source: two indices and their weights.
template <class A>
struct Tap {
  int64_t i0, i1;
  A l0, l1;
};

template <class A>
Tap<A> NearestTap(int64_t dst, int64_t in, int64_t out, double scale_factor) {
  int64_t src;
  if (out == in) {
    src = dst;
  } else if (out == 2 * in) {
    src = dst >> 1;
  } else {
    const A scale = ScaleOf<A>(in, out, false, scale_factor);
    src = std::min(static_cast<int64_t>(std::floor(static_cast<A>(dst) * scale)), in - 1);
  }
  return {src, src, A(1), A(0)};
}

template <class A>
Tap<A> LinearTap(int64_t dst, int64_t in, int64_t out, bool align_corners, double scale_factor) {
  const A scale = ScaleOf<A>(in, out, align_corners, scale_factor);
  A src;
  if (align_corners) {
    src = scale * static_cast<A>(dst);
  } else {
    src = scale * (static_cast<A>(dst) + A(0.5)) - A(0.5);
    if (src < 0) src = 0;
  }
  const auto i0 = static_cast<int64_t>(src);
  const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
  const A l1 = std::min(std::max(src - static_cast<A>(i0), A(0)), A(1));
  return {i0, i1, A(1) - l1, l1};
}

template <class T>
T LoadTyped(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void StoreTyped(char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// One output row from source rows r0 and r1 (the same row for nearest).
template <class A, class Load, class Store>
void Row(const Load& load, const Store& store, bool bilinear, const Tap<A>* cols, int64_t ow,
         const Tap<A>& row, const char* r0, const char* r1, int64_t sw, char* dst, int64_t so) {
  for (int64_t x = 0; x < ow; ++x) {
    const Tap<A>& t = cols[x];
    A v;
    if (!bilinear) {
      v = load(r0 + t.i0 * sw);
    } else {
      const A top = load(r0 + t.i0 * sw) * t.l0 + load(r0 + t.i1 * sw) * t.l1;
      const A bottom = load(r1 + t.i0 * sw) * t.l0 + load(r1 + t.i1 * sw) * t.l1;
      v = top * row.l0 + bottom * row.l1;
    }
    store(dst + x * so, v);
  }
}

template <class A>
ComputeResult InterpolateTyped(const InterpolateArgs& args) {
  const View& in = args.in;
  const View& out = args.out;
  const int64_t h = in.shape[2], w = in.shape[3], oh = out.shape[2], ow = out.shape[3];
  // The column taps, computed once (the row taps per output row).
  Scratch<Tap<A>> cols;
  if (!cols.Allocate(static_cast<uint64_t>(ow)))
    return OutOfMemory("interpolate's taps", ow * sizeof(Tap<A>));
  for (int64_t x = 0; x < ow; ++x) {
    cols[x] = args.bilinear ? LinearTap<A>(x, w, ow, args.align_corners, args.scale_w)
                            : NearestTap<A>(x, w, ow, args.scale_w);
  }
  const int64_t planes = in.shape[0] * in.shape[1];
  // float32 in and out compute in float, float64 in double: typed loads and
  // stores, the same arithmetic as the general loop's.
  const Scalar own = sizeof(A) == sizeof(float) ? Scalar::kFloat32 : Scalar::kFloat64;
  const bool dense = in.type == own && out.type == own;
  const int64_t item = in.item();
  const int64_t oitem = out.item();
  ParallelFor(planes * oh, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(ow, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t r = b; r < e; ++r) {
                  const int64_t plane = r / oh;
                  const int64_t y = r % oh;
                  const int64_t n = plane / in.shape[1];
                  const int64_t c = plane % in.shape[1];
                  const Tap<A> row = args.bilinear
                                         ? LinearTap<A>(y, h, oh, args.align_corners, args.scale_h)
                                         : NearestTap<A>(y, h, oh, args.scale_h);
                  const char* src = in.first + (n * in.strides[0] + c * in.strides[1]) * item;
                  const char* r0 = src + row.i0 * in.strides[2] * item;
                  const char* r1 = src + row.i1 * in.strides[2] * item;
                  char* dst =
                      out.first +
                      (n * out.strides[0] + c * out.strides[1] + y * out.strides[2]) * oitem;
                  const int64_t sw = in.strides[3] * item;
                  const int64_t so = out.strides[3] * oitem;
                  if (dense) {
                    Row<A>(LoadTyped<A>, StoreTyped<A>, args.bilinear, cols.data(), ow, row, r0, r1,
                           sw, dst, so);
                  } else {
                    const Scalar it = in.type;
                    const Scalar ot = out.type;
                    Row<A>([it](const char* p) { return static_cast<A>(LoadReal(p, it)); },
                           [ot](char* p, A v) { StoreReal(p, ot, static_cast<double>(v)); },
                           args.bilinear, cols.data(), ow, row, r0, r1, sw, dst, so);
                  }
                }
              });
  return {};
}

}  // namespace

ComputeResult Interpolate(const InterpolateArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "interpolate"); !r.ok()) return r;
  if (args.out.size() == 0) return {};
  return args.in.type == Scalar::kFloat64 ? InterpolateTyped<double>(args)
                                          : InterpolateTyped<float>(args);
}

}  // namespace compute
}  // namespace dlnode
