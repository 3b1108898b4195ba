#include "scan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "../element.h"
#include "../parallel.h"
#include "lanes.h"

namespace dlnode {
namespace compute {
namespace {

// An integer accumulator stored into an integer dtype: the low bits (wrapping).
void StoreWrapped(char* p, Scalar type, uint64_t v) {
  const size_t bytes = ScalarSize(type);
  if (type == Scalar::kBool) v = v != 0 ? 1 : 0;
  std::memcpy(p, &v, bytes);  // little-endian: the low bytes
}

// A float as an int64, truncated toward zero, NaN 0 and saturated (convert.h's rule).
int64_t Truncated(double x) {
  if (!(x == x)) return 0;  // NOLINT(misc-redundant-expression): NaN
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(x);
}

template <class S>
void ScanTyped(const ScanArgs& args) {
  using V = element::ValueOf<S>;
  const LaneView in(args.in, 1);
  const LaneView out(args.out, 1);
  const int64_t n = in.length();
  const int64_t step = in.inner.strides[0] * args.in.item();
  const int64_t out_step = out.inner.strides[0] * args.out.item();
  const bool float_out = IsReal(args.out.type);
  const Scalar out_type = args.out.type;
  ParallelFor(in.lanes(), std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t o = b; o < e; ++o) {
                  const char* src = in.Lane(o);
                  char* dst = const_cast<char*>(out.Lane(o));
                  if constexpr (std::is_same<S, float>::value || std::is_same<S, double>::value) {
                    if (out_type == args.in.type) {
                      // The common case typed: the same arithmetic, no per-element switch.
                      const int64_t si = step / static_cast<int64_t>(sizeof(S));
                      const int64_t so = out_step / static_cast<int64_t>(sizeof(S));
                      const S* x = reinterpret_cast<const S*>(src);
                      S* y = reinterpret_cast<S*>(dst);
                      double acc = args.product ? 1.0 : 0.0;
                      if (args.product) {
                        for (int64_t i = 0; i < n; ++i)
                          y[i * so] = static_cast<S>(acc *= x[i * si]);
                      } else {
                        for (int64_t i = 0; i < n; ++i)
                          y[i * so] = static_cast<S>(acc += x[i * si]);
                      }
                      continue;
                    }
                  }
                  if (float_out) {
                    double acc = args.product ? 1.0 : 0.0;
                    for (int64_t i = 0; i < n; ++i) {
                      const auto x = static_cast<double>(element::Load<S>(src + i * step));
                      acc = args.product ? acc * x : acc + x;
                      StoreReal(dst + i * out_step, out_type, acc);
                    }
                    continue;
                  }
                  // Wrapping int64 arithmetic, in uint64 (no signed overflow).
                  uint64_t acc = args.product ? 1 : 0;
                  for (int64_t i = 0; i < n; ++i) {
                    const V x = element::Load<S>(src + i * step);
                    uint64_t v;
                    if constexpr (std::is_floating_point<V>::value) {
                      v = static_cast<uint64_t>(Truncated(x));
                    } else {
                      v = static_cast<uint64_t>(static_cast<int64_t>(x));
                    }
                    acc = args.product ? acc * v : acc + v;
                    StoreWrapped(dst + i * out_step, out_type, acc);
                  }
                }
              });
}

}  // namespace

ComputeResult Scan(const ScanArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "cumsum and cumprod"); !r.ok()) return r;
  if (args.in.size() == 0) return {};
  element::DispatchReal(args.in.type,
                        [&](auto tag) { ScanTyped<typename decltype(tag)::type>(args); });
  return {};
}

}  // namespace compute
}  // namespace dlnode
