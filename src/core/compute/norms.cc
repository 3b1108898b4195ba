#include "norms.h"

#include <algorithm>
#include <cmath>

#include "../parallel.h"
#include "lanes.h"

namespace dlnode {
namespace compute {
namespace {

// Lanes split over the pool, grain by lane length (as reduce.cc splits).
template <class Fn>
void ForLanes(int64_t lanes, int64_t length, const Fn& fn) {
  ParallelFor(lanes, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(length, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t o = b; o < e; ++o) fn(o);
              });
}

double Square(double x) { return x * x; }

// Whether a lane (or a weight) is float32 and dense: the loop below.
bool DenseFloat(const LaneView& lv, const View& v) {
  return v.type == Scalar::kFloat32 && lv.inner.ndim == 1 &&
         (lv.inner.strides[0] == 1 || lv.length() <= 1);
}
bool DenseFloat(const Walk& w, const View& v) {
  return v.type == Scalar::kFloat32 && w.ndim == 1 && (w.strides[0] == 1 || w.count <= 1);
}

// One dense float32 row of layerNorm: the general loop's arithmetic (in
// double, rounded once), without its per-element type switch and walk.
void DenseLayerNormRow(const float* x, float* y, int64_t n, double mean, double rstd,
                       const float* w, const float* b) {
  for (int64_t i = 0; i < n; ++i) {
    double v = (static_cast<double>(x[i]) - mean) * rstd;
    if (w != nullptr) v *= static_cast<double>(w[i]);
    if (b != nullptr) v += static_cast<double>(b[i]);
    y[i] = static_cast<float>(v);
  }
}

}  // namespace

ComputeResult LayerNorm(const LayerNormArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "layerNorm"); !r.ok()) return r;
  const LaneView in(args.in, args.normalized);
  const LaneView out(args.out, args.normalized);
  const int64_t n = in.length();
  const Walk weight = args.weight != nullptr
                          ? Walk(args.weight->ndim, args.weight->shape, args.weight->strides)
                          : Walk();
  const Walk bias =
      args.bias != nullptr ? Walk(args.bias->ndim, args.bias->shape, args.bias->strides) : Walk();
  ForLanes(in.lanes(), n, [&](int64_t o) {
    const double mean = in.Total(o, [](double x) { return x; }) / static_cast<double>(n);
    const double var = in.Total(o, [mean](double x) { return Square(x - mean); }) / n;
    const double rstd = 1.0 / std::sqrt(var + args.eps);
    const char* src = in.Lane(o);
    char* dst = const_cast<char*>(out.Lane(o));
    if (DenseFloat(in, args.in) && DenseFloat(out, args.out) &&
        (args.weight == nullptr || DenseFloat(weight, *args.weight)) &&
        (args.bias == nullptr || DenseFloat(bias, *args.bias))) {
      DenseLayerNormRow(
          reinterpret_cast<const float*>(src), reinterpret_cast<float*>(dst), n, mean, rstd,
          args.weight != nullptr ? reinterpret_cast<const float*>(args.weight->first) : nullptr,
          args.bias != nullptr ? reinterpret_cast<const float*>(args.bias->first) : nullptr);
      return;
    }
    Cursor ci(in.inner, 0);
    Cursor co(out.inner, 0);
    Cursor cw(weight, 0);
    Cursor cb(bias, 0);
    for (int64_t i = 0; i < n; ++i) {
      double y = (LoadReal(src + ci.offset() * args.in.item(), args.in.type) - mean) * rstd;
      if (args.weight != nullptr) {
        y *= LoadReal(args.weight->first + cw.offset() * args.weight->item(), args.weight->type);
        cw.Next();
      }
      if (args.bias != nullptr) {
        y += LoadReal(args.bias->first + cb.offset() * args.bias->item(), args.bias->type);
        cb.Next();
      }
      StoreReal(dst + co.offset() * args.out.item(), args.out.type, y);
      ci.Next();
      co.Next();
    }
  });
  return {};
}

ComputeResult CosineSimilarity(const CosineArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "cosineSimilarity"); !r.ok()) return r;
  const LaneView a(args.a, 1);
  const LaneView b(args.b, 1);
  const Walk out(args.out.ndim, args.out.shape, args.out.strides);
  const int64_t n = a.length();
  const int64_t item_a = args.a.item();
  const int64_t item_b = args.b.item();
  ForLanes(a.lanes(), n, [&](int64_t o) {
    const double na = std::max(std::sqrt(a.Total(o, Square)), args.eps);
    const double nb = std::max(std::sqrt(b.Total(o, Square)), args.eps);
    // The dot of the two scaled lanes, in the same pairwise order.
    const char* pa = a.Lane(o);
    const char* pb = b.Lane(o);
    const int64_t sa = a.inner.strides[0] * item_a;
    const int64_t sb = b.inner.strides[0] * item_b;
    int64_t i = 0;
    auto next = [&] {
      const double v =
          LoadReal(pa + i * sa, args.a.type) / na * (LoadReal(pb + i * sb, args.b.type) / nb);
      ++i;
      return v;
    };
    StoreReal(args.out.first + out.Offset(o) * args.out.item(), args.out.type,
              PairwiseSum(n, next));
  });
  return {};
}

ComputeResult LpNormalize(const LpNormalizeArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "lpNormalize"); !r.ok()) return r;
  const LaneView in(args.in, 1);
  const LaneView out(args.out, 1);
  const int64_t n = in.length();
  const double p = args.p;
  ForLanes(in.lanes(), n, [&](int64_t o) {
    double norm;
    if (std::isinf(p)) {
      norm = p > 0 ? 0.0 : HUGE_VAL;
      const char* base = in.Lane(o);
      for (int64_t i = 0; i < n; ++i) {
        const double v =
            std::fabs(LoadReal(base + i * in.inner.strides[0] * args.in.item(), args.in.type));
        norm = v != v ? v
                      : (p > 0 ? std::max(norm, v)
                               : std::min(norm, v));  // NOLINT(misc-redundant-expression)
        if (norm != norm) break;                      // NOLINT(misc-redundant-expression): NaN
      }
    } else if (p == 2) {
      norm = std::sqrt(in.Total(o, Square));
    } else if (p == 1) {
      norm = in.Total(o, [](double x) { return std::fabs(x); });
    } else if (p == 0) {
      norm = in.Total(o, [](double x) { return x != 0 ? 1.0 : 0.0; });
    } else {
      norm = std::pow(in.Total(o, [p](double x) { return std::pow(std::fabs(x), p); }), 1.0 / p);
    }
    // torch divides by a tensor of the norms in x's type, clamped to eps.
    char rounded[8];
    StoreReal(rounded, args.in.type, norm);
    const double denom = std::max(LoadReal(rounded, args.in.type), args.eps);
    const char* src = in.Lane(o);
    char* dst = const_cast<char*>(out.Lane(o));
    const int64_t si = in.inner.strides[0] * args.in.item();
    const int64_t so = out.inner.strides[0] * args.out.item();
    for (int64_t i = 0; i < n; ++i) {
      StoreReal(dst + i * so, args.out.type, LoadReal(src + i * si, args.in.type) / denom);
    }
  });
  return {};
}

}  // namespace compute
}  // namespace dlnode
