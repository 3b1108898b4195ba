#include "stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../parallel.h"
#include "lanes.h"
#include "scratch.h"

namespace dlnode {
namespace compute {

namespace {

// Per lane of lv, the sum of f(lane, x) over its elements in lanes.h's order
// into sums[lane]; partial is lanes * blocks doubles when a lane has more
// than one block (else unused). Split over lanes, or over blocks.
template <class F>
void LaneSums(const LaneView& lv, double* partial, double* sums, const F& f) {
  const int64_t lanes = lv.lanes();
  const int64_t n = lv.length();
  const int64_t blocks = std::max<int64_t>(1, (n + kSumBlock - 1) / kSumBlock);
  if (blocks == 1) {
    ParallelFor(lanes, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1)),
                [&](int64_t b, int64_t e) {
                  for (int64_t o = b; o < e; ++o) {
                    sums[o] = lv.Sum(o, 0, n, [&](double x) { return f(o, x); });
                  }
                });
    return;
  }
  ParallelFor(lanes * blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t o = i / blocks;
      const int64_t start = (i % blocks) * kSumBlock;
      partial[i] =
          lv.Sum(o, start, std::min(kSumBlock, n - start), [&](double x) { return f(o, x); });
    }
  });
  for (int64_t o = 0; o < lanes; ++o) sums[o] = CombineBlocks(partial + o * blocks, blocks);
}

// The largest (or smallest) |x| of each lane; NaN wins.
void LaneExtremes(const LaneView& lv, bool largest, double* out) {
  const int64_t n = lv.length();
  ParallelFor(lv.lanes(), std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t o = b; o < e; ++o) {
                  const char* base = lv.Lane(o);
                  Cursor c(lv.inner, 0);
                  double best = largest ? 0.0 : std::numeric_limits<double>::infinity();
                  for (int64_t i = 0; i < n; ++i, c.Next()) {
                    const double v =
                        std::fabs(LoadReal(base + c.offset() * lv.view->item(), lv.view->type));
                    if (v != v) {  // NOLINT(misc-redundant-expression): NaN test
                      best = v;
                      break;
                    }
                    best = largest ? std::max(best, v) : std::min(best, v);
                  }
                  out[o] = best;
                }
              });
}

// Writes value[o] to lane o's element of `out` (out's dims are the kept dims).
void StoreLanes(const View& out, const double* values, int64_t lanes) {
  const Walk w(out.ndim, out.shape, out.strides);
  for (int64_t o = 0; o < lanes; ++o) {
    StoreReal(out.first + w.Offset(o) * out.item(), out.type, values[o]);
  }
}

}  // namespace

ComputeResult Stats(const StatsArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "var, std and vectorNorm"); !r.ok()) return r;
  const LaneView lv(args.in, args.reduced);
  const int64_t lanes = lv.lanes();
  const int64_t n = lv.length();
  if (lanes == 0) return {};
  const int64_t blocks = std::max<int64_t>(1, (n + kSumBlock - 1) / kSumBlock);
  Scratch<double> memory;
  const uint64_t need = static_cast<uint64_t>(lanes) * (blocks > 1 ? blocks + 2 : 2);
  if (!memory.Allocate(need))
    return OutOfMemory("the lane sums of var, std or vectorNorm", need * 8);
  double* first = memory.data();
  double* second = first + lanes;
  double* partial = second + lanes;
  if (args.op == StatsOp::kVectorNorm) {
    const double p = args.ord;
    if (std::isinf(p)) {
      LaneExtremes(lv, p > 0, first);
    } else if (p == 0) {
      LaneSums(lv, partial, first, [](int64_t, double x) { return x != 0 ? 1.0 : 0.0; });
    } else if (p == 1) {
      LaneSums(lv, partial, first, [](int64_t, double x) { return std::fabs(x); });
    } else if (p == 2) {
      LaneSums(lv, partial, first, [](int64_t, double x) { return x * x; });
      for (int64_t o = 0; o < lanes; ++o) first[o] = std::sqrt(first[o]);
    } else {
      LaneSums(lv, partial, first, [p](int64_t, double x) { return std::pow(std::fabs(x), p); });
      for (int64_t o = 0; o < lanes; ++o) first[o] = std::pow(first[o], 1.0 / p);
    }
    StoreLanes(args.out, first, lanes);
    return {};
  }
  // Two passes: the mean, then the squared deviations from it.
  LaneSums(lv, partial, first, [](int64_t, double x) { return x; });
  for (int64_t o = 0; o < lanes; ++o) first[o] /= static_cast<double>(n);  // n = 0: NaN
  LaneSums(lv, partial, second, [first](int64_t o, double x) {
    const double d = x - first[o];
    return d * d;
  });
  const double divisor = std::max(0.0, static_cast<double>(n) - args.correction);
  const bool root = args.op == StatsOp::kStd || args.op == StatsOp::kStdMean;
  for (int64_t o = 0; o < lanes; ++o) {
    const double var = second[o] / divisor;
    second[o] = root ? std::sqrt(var) : var;
  }
  StoreLanes(args.out, second, lanes);
  if (args.op == StatsOp::kVarMean || args.op == StatsOp::kStdMean) {
    StoreLanes(args.mean, first, lanes);
  }
  return {};
}

}  // namespace compute
}  // namespace dlnode
