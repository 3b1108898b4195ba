// softmax and logSoftmax along one dim (src/core/compute/reduce.h):
// numerically stable (the lane's maximum subtracted before exp()), the sum of
// the exps in reduce_order.h's fixed order; dense float32 lanes in one
// vectorised visit each.
#include <cmath>
#include <cstring>

#include "fast_math.h"
#include "reduce_order.h"

namespace dlnode {
namespace reduction {
namespace {

// e^x: float through fast_math.h (vectorised), double through libm.
inline float ExpOf(float x) { return FastExp(x); }
inline double ExpOf(double x) { return std::exp(x); }

// The largest of n >= 1 floats in four running maxima of eight lanes each:
// one would be a chain of dependent compares, each waiting for the last (a
// large part of softmax's time over rows of 1000: bench/README.md "Compute",
// "another machine"). A NaN may or may not win here:
// softmax's NaN reaches every result through the sum of the exps instead.
DLNODE_COMPUTE_CLONES float DenseMax(const float* x, int64_t n) {
  constexpr int64_t kWide = 4 * kLanes;
  float top = x[0];
  int64_t i = 0;
  if (n >= kWide) {
    Float8 best[4];
    std::memcpy(best, x, sizeof best);
    for (i = kWide; i + kWide <= n; i += kWide) {
      Float8 v[4];
      std::memcpy(v, x + i, sizeof v);
      for (int k = 0; k < 4; ++k) best[k] = v[k] > best[k] ? v[k] : best[k];
    }
    for (int k = 1; k < 4; ++k) best[0] = best[k] > best[0] ? best[k] : best[0];
    for (int64_t j = 0; j < kLanes; ++j) top = best[0][j] > top ? best[0][j] : top;
  }
  for (; i < n; ++i) top = x[i] > top ? x[i] : top;
  return top;
}

// A leaf of OrderedDense<float, Add>'s order over e^(x - top) for `count`
// rows of kLanes, written to out as it goes: softmax's exp pass and its sum
// in one visit of the row (the exps are summed while still in L1).
DLNODE_COMPUTE_CLONES void ExpLeaf(const float* x, float top, float* out, int64_t count,
                                   float* lanes) {
  const int64_t n = count * kLanes;
  for (int64_t i = 0; i < n; ++i) out[i] = FastExp(x[i] - top);
  LeafOf<float, Add>(out, count, lanes);
}

// out[i] *= scale (softmax's last pass), and out[i] = (x[i] - top) - shift
// (logSoftmax's), rounded as the general path rounds them.
DLNODE_COMPUTE_CLONES void ScaleLane(float* out, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) out[i] *= scale;
}
DLNODE_COMPUTE_CLONES void ShiftLane(const float* x, float top, float* out, int64_t n,
                                     float shift) {
  for (int64_t i = 0; i < n; ++i) out[i] = (x[i] - top) - shift;
}

// One dense float32 lane of softmax/logSoftmax, out not overlapping x: the
// maximum, then e^(x - max) written to out and summed in OrderedDense()'s
// order in the same visit, then a pass scaling out (softmax) or writing
// x - max - log(sum) (logSoftmax). Every loop is vectorised; the values are
// those of the general path below. A NaN in x makes the sum NaN, and with it
// every result, as the general path's NaN maximum does.
void SoftmaxDenseLane(bool log, const float* x, float* out, int64_t len) {
  const float top = DenseMax(x, len);
  const int64_t rows = len / kLanes;
  float total;
  if (rows == 0) {
    for (int64_t i = 0; i < len; ++i) out[i] = FastExp(x[i] - top);
    total = OrderedDense<float, Add>(reinterpret_cast<const char*>(out), len);
  } else {
    auto leaf = [&](int64_t row, int64_t count) {
      Lanes<float> l;
      ExpLeaf(x + row * kLanes, top, out + row * kLanes, count, l.v);
      return l;
    };
    total = Fold<float, Add>(Rows<float, Add>(0, rows, leaf));
    for (int64_t i = rows * kLanes; i < len; ++i) {
      out[i] = FastExp(x[i] - top);
      total += out[i];
    }
  }
  if (log) {
    ShiftLane(x, top, out, len, std::log(total));
  } else {
    ScaleLane(out, len, 1.0F / total);
  }
}

template <class T>
void SoftmaxOf(ReduceOp op, const StridedInput& in, int dim, char* out,
               const int64_t* out_strides) {
  if constexpr (kIsFloat<T>) {
    using V = ValueOf<T>;
    const int64_t len = in.ndim == 0 ? 1 : in.shape[dim];
    const int64_t step = (in.ndim == 0 ? 0 : in.strides[dim]) * kSizeOf<T>;
    const int64_t out_step = (in.ndim == 0 ? 0 : out_strides[dim]) * kSizeOf<T>;
    const bool log = op == ReduceOp::kLogSoftmax;
    constexpr bool kFloat32 = std::is_same<T, float>::value;
    const bool dense = kFloat32 && step == kSizeOf<T> && out_step == kSizeOf<T>;
    // A lane that does not take the dense path works in two buffers of its
    // length (a slot per chunk, allocated before the split: scratch.h). A
    // dense lane does unless it overlaps its output, which no lane can when
    // the input's and the output's byte ranges are apart.
    const LaneSplit split = SplitLanes(in, dim);
    uint64_t in_low = 0;
    uint64_t in_high = 0;
    uint64_t out_low = 0;
    uint64_t out_high = 0;
    const bool apart =
        ComputeExtent(in.ndim, in.shape, in.strides, kSizeOf<T>, &in_low, &in_high) &&
        ComputeExtent(in.ndim, in.shape, out_strides, kSizeOf<T>, &out_low, &out_high) &&
        (out + out_high <= in.first - in_low || in.first + in_high <= out - out_low);
    const Scratch<V> buffers =
        dense && apart ? Scratch<V>() : ScratchSlots<V>(2 * split.len, split.chunks);
    ForEachLane(in, dim, out_strides, kSizeOf<T>, split,
                [&](int chunk, const char* lane, int64_t at) {
                  char* o = out + at * kSizeOf<T>;
                  const int64_t bytes = len * kSizeOf<T>;
                  if (dense && (o >= lane + bytes || lane >= o + bytes)) {
                    SoftmaxDenseLane(log, reinterpret_cast<const float*>(lane),
                                     reinterpret_cast<float*>(o), len);
                    return;
                  }
                  V* shifted = buffers.data() + 2 * len * chunk;
                  V* exps = shifted + len;
                  V top = Load<T>(lane);
                  for (int64_t i = 0; i < len; ++i) {
                    shifted[i] = Load<T>(lane + i * step);
                    top = Larger::Apply(top, shifted[i]);
                  }
                  for (int64_t i = 0; i < len; ++i) {
                    shifted[i] -= top;
                    exps[i] = ExpOf(shifted[i]);
                  }
                  const V total = OrderedDense<V, Add>(reinterpret_cast<const char*>(exps), len);
                  if (log) {
                    const V log_total = std::log(total);
                    for (int64_t i = 0; i < len; ++i)
                      Store<T>(o + i * out_step, shifted[i] - log_total);
                  } else {
                    const V scale = V(1) / total;
                    for (int64_t i = 0; i < len; ++i) Store<T>(o + i * out_step, exps[i] * scale);
                  }
                });
  }
}

}  // namespace
}  // namespace reduction

void Softmax(ReduceOp op, const StridedInput& in, int dim, char* out, const int64_t* out_strides) {
  reduction::Dispatch(in.type, [&](auto tag) {
    reduction::SoftmaxOf<typename decltype(tag)::type>(op, in, dim, out, out_strides);
  });
}

}  // namespace dlnode
