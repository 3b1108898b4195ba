#include "boxes.h"

#include <algorithm>
#include <cstring>

#include "../parallel.h"
#include "lanes.h"
#include "scratch.h"

namespace dlnode {
namespace compute {
namespace {

template <class T>
struct Box {
  T x1, y1, x2, y2, area;
};

template <class T>
T Load(const View& v, int64_t i, int64_t j) {
  T x;
  std::memcpy(&x, v.first + (i * v.strides[0] + j * v.strides[1]) * v.item(), sizeof x);
  return x;
}

template <class T>
Box<T> BoxAt(const View& v, int64_t i) {
  Box<T> b{Load<T>(v, i, 0), Load<T>(v, i, 1), Load<T>(v, i, 2), Load<T>(v, i, 3), T(0)};
  b.area = (b.x2 - b.x1) * (b.y2 - b.y1);
  return b;
}

template <class T>
T Iou(const Box<T>& a, const Box<T>& b) {
  const T w = std::max(std::min(a.x2, b.x2) - std::max(a.x1, b.x1), T(0));
  const T h = std::max(std::min(a.y2, b.y2) - std::max(a.y1, b.y1), T(0));
  const T inter = w * h;
  return inter / ((a.area + b.area) - inter);
}

template <class T>
ComputeResult BoxIouTyped(const BoxIouArgs& args) {
  const int64_t n = args.a.shape[0];
  const int64_t m = args.b.shape[0];
  if (n == 0 || m == 0) return {};
  ParallelFor(n, std::max<int64_t>(1, kDefaultGrain / m), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const Box<T> a = BoxAt<T>(args.a, i);
      for (int64_t j = 0; j < m; ++j) {
        const T v = Iou(a, BoxAt<T>(args.b, j));
        std::memcpy(
            args.out.first + (i * args.out.strides[0] + j * args.out.strides[1]) * sizeof(T), &v,
            sizeof v);
      }
    }
  });
  return {};
}

int64_t LoadIndex(const View& v, int64_t i) {
  const char* p = v.first + i * v.strides[0] * v.item();
  if (v.type == Scalar::kInt32) {
    int32_t x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }
  int64_t x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

template <class T>
ComputeResult NmsTyped(const NmsArgs& args, int64_t* kept) {
  const int64_t n = args.boxes.shape[0];
  // Per box: its box and area, its place in score order, a suppressed flag.
  Scratch<Box<T>> boxes;
  Scratch<int64_t> order;
  Scratch<uint8_t> suppressed;
  if (!boxes.Allocate(static_cast<uint64_t>(n)) || !order.Allocate(static_cast<uint64_t>(n)) ||
      !suppressed.Allocate(static_cast<uint64_t>(n))) {
    return OutOfMemory("nms's box list", static_cast<uint64_t>(n) * (sizeof(Box<T>) + 9));
  }
  for (int64_t i = 0; i < n; ++i) {
    boxes[i] = BoxAt<T>(args.boxes, i);
    order[i] = i;
    suppressed[i] = 0;
  }
  auto score = [&](int64_t i) {
    T s;
    std::memcpy(&s, args.scores.first + i * args.scores.strides[0] * sizeof(T), sizeof s);
    return s;
  };
  // Descending, stable; NaN first (torch's descending sort).
  std::stable_sort(order.data(), order.data() + n, [&](int64_t x, int64_t y) {
    const T a = score(x);
    const T b = score(y);
    const bool an = a != a;  // NOLINT(misc-redundant-expression): NaN
    const bool bn = b != b;  // NOLINT(misc-redundant-expression): NaN
    if (an || bn) return an && !bn;
    return b < a;
  });
  const T threshold = static_cast<T>(args.iou_threshold);
  int64_t count = 0;
  for (int64_t oi = 0; oi < n; ++oi) {
    const int64_t i = order[oi];
    if (suppressed[i] != 0) continue;
    args.keep[count++] = i;
    const int64_t category = args.idxs != nullptr ? LoadIndex(*args.idxs, i) : 0;
    for (int64_t oj = oi + 1; oj < n; ++oj) {
      const int64_t j = order[oj];
      if (suppressed[j] != 0) continue;
      if (args.idxs != nullptr && LoadIndex(*args.idxs, j) != category) continue;
      if (Iou(boxes[i], boxes[j]) > threshold) suppressed[j] = 1;
    }
  }
  *kept = count;
  return {};
}

}  // namespace

ComputeResult BoxIou(const BoxIouArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "boxIou"); !r.ok()) return r;
  return args.a.type == Scalar::kFloat64 ? BoxIouTyped<double>(args) : BoxIouTyped<float>(args);
}

ComputeResult Nms(const NmsArgs& args, int64_t* kept) {
  *kept = 0;
  if (ComputeResult r = RequireHost(args.place, "nms"); !r.ok()) return r;
  if (args.boxes.shape[0] == 0) return {};
  return args.boxes.type == Scalar::kFloat64 ? NmsTyped<double>(args, kept)
                                             : NmsTyped<float>(args, kept);
}

}  // namespace compute
}  // namespace dlnode
