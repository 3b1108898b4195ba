#include "normalize.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "../cuda_ops.h"
#include "../device_normalize.h"
#include "../parallel.h"
#include "../scratch.h"
#include "../strided_loop.h"
#include "fast_math.h"

namespace dlnode {
namespace {

using strided::Plan;

// One pixel row of an RGB uint8 frame whose channels are interleaved (HWC
// memory read as CHW) into three dense float32 rows: every channel of a pixel
// from one read of the row, in a loop the compiler vectorises. The values are
// NormalizeRows' general ones: (x * k - m[c]) / sd[c], rounded the same way.
DLNODE_VECTOR_CLONES void NormalizeRgbRow(const uint8_t* in, float* r, float* g, float* b,
                                          int64_t width, float k, const float* m, const float* sd) {
  const float m0 = m[0];
  const float m1 = m[1];
  const float m2 = m[2];
  const float s0 = sd[0];
  const float s1 = sd[1];
  const float s2 = sd[2];
  for (int64_t w = 0; w < width; ++w) {
    r[w] = (static_cast<float>(in[3 * w]) * k - m0) / s0;
    g[w] = (static_cast<float>(in[3 * w + 1]) * k - m1) / s1;
    b[w] = (static_cast<float>(in[3 * w + 2]) * k - m2) / s2;
  }
}

// Whether p (out, in over [..., C, H, W]) reads a frame whose channels are
// interleaved: in's channel step one element and its pixel step C elements,
// out's rows dense. Then NormalizeInterleaved reads each pixel row once.
template <typename Out, typename In>
bool Interleaved(const Plan& p) {
  const int c = p.ndim - 3;
  const int last = p.ndim - 1;
  const auto in_size = static_cast<int64_t>(sizeof(In));
  return p.strides[1][c] == in_size && p.strides[1][last] == p.shape[c] * in_size &&
         p.strides[0][last] == static_cast<int64_t>(sizeof(Out));
}

// NormalizeRows over an interleaved frame: a task is one pixel row (every
// dim but C and W), all its channels together, so that the input row is read
// from memory once rather than once per channel.
template <typename Out, typename In>
void NormalizeInterleaved(const Plan& p, const double* mean, const double* std, double scale) {
  const int c = p.ndim - 3;
  const int last = p.ndim - 1;
  const int64_t channels = p.shape[c];
  const int64_t width = p.shape[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= d == c ? 1 : p.shape[d];
  // Allocated before the split (scratch.h).
  const Scratch<Out> m(channels);
  const Scratch<Out> sd(channels);
  for (int64_t ch = 0; ch < channels; ++ch) {
    m[ch] = static_cast<Out>(mean[ch]);
    sd[ch] = static_cast<Out>(std[ch]);
  }
  const Out k = static_cast<Out>(scale);
  const int64_t grain =
      std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(width * channels, 1));
  ParallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r;
      char* o = p.first[0];
      const char* i = p.first[1];
      for (int d = last - 1; d >= 0; --d) {
        if (d == c) continue;
        const int64_t at = rest % p.shape[d];
        rest /= p.shape[d];
        o += at * p.strides[0][d];
        i += at * p.strides[1][d];
      }
      const auto* iv = reinterpret_cast<const In*>(i);
      if constexpr (std::is_same<Out, float>::value && std::is_same<In, uint8_t>::value) {
        if (channels == 3) {
          NormalizeRgbRow(
              iv, reinterpret_cast<float*>(o), reinterpret_cast<float*>(o + p.strides[0][c]),
              reinterpret_cast<float*>(o + 2 * p.strides[0][c]), width, k, m.data(), sd.data());
          continue;
        }
      }
      for (int64_t ch = 0; ch < channels; ++ch) {
        auto* ov = reinterpret_cast<Out*>(o + ch * p.strides[0][c]);
        for (int64_t w = 0; w < width; ++w) {
          ov[w] = (static_cast<Out>(iv[w * channels + ch]) * k - m[ch]) / sd[ch];
        }
      }
    }
  });
}

template <typename Out, typename In>
void NormalizeRows(const Plan& p, const double* mean, const double* std, double scale) {
  // p: operands out, in over dims [..., C, H, W] uncoalesced; rows of W.
  if (Interleaved<Out, In>(p)) {
    NormalizeInterleaved<Out, In>(p, mean, std, scale);
    return;
  }
  const int last = p.ndim - 1;
  const int64_t width = p.shape[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.shape[d];
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(width, 1));
  ParallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r;
      char* o = p.first[0];
      const char* i = p.first[1];
      int64_t channel = 0;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t at = rest % p.shape[d];
        rest /= p.shape[d];
        o += at * p.strides[0][d];
        i += at * p.strides[1][d];
        if (d == p.ndim - 3) channel = at;
      }
      const Out m = static_cast<Out>(mean[channel]);
      const Out sd = static_cast<Out>(std[channel]);
      const Out k = static_cast<Out>(scale);
      const int64_t so = p.strides[0][last];
      const int64_t si = p.strides[1][last];
      if (so == sizeof(Out) && si == sizeof(In)) {
        auto* ov = reinterpret_cast<Out*>(o);
        const auto* iv = reinterpret_cast<const In*>(i);
        for (int64_t w = 0; w < width; ++w) ov[w] = (static_cast<Out>(iv[w]) * k - m) / sd;
      } else if (so == sizeof(Out)) {
        // A permuted HWC frame: channel-interleaved input, dense output rows.
        auto* ov = reinterpret_cast<Out*>(o);
        const int64_t step = si / static_cast<int64_t>(sizeof(In));
        const auto* iv = reinterpret_cast<const In*>(i);
        for (int64_t w = 0; w < width; ++w) ov[w] = (static_cast<Out>(iv[w * step]) * k - m) / sd;
      } else {
        for (int64_t w = 0; w < width; ++w, o += so, i += si) {
          *reinterpret_cast<Out*>(o) =
              (static_cast<Out>(*reinterpret_cast<const In*>(i)) * k - m) / sd;
        }
      }
    }
  });
}

template <typename Out>
bool NormalizeFrom(Scalar in_type, const Plan& p, const double* mean, const double* std,
                   double scale) {
  switch (in_type) {
    case Scalar::kUint8:
      NormalizeRows<Out, uint8_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt8:
      NormalizeRows<Out, int8_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt16:
      NormalizeRows<Out, int16_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt32:
      NormalizeRows<Out, int32_t>(p, mean, std, scale);
      return true;
    case Scalar::kInt64:
      NormalizeRows<Out, int64_t>(p, mean, std, scale);
      return true;
    case Scalar::kUint16:
      NormalizeRows<Out, uint16_t>(p, mean, std, scale);
      return true;
    case Scalar::kUint32:
      NormalizeRows<Out, uint32_t>(p, mean, std, scale);
      return true;
    case Scalar::kUint64:
      NormalizeRows<Out, uint64_t>(p, mean, std, scale);
      return true;
    case Scalar::kFloat32:
      NormalizeRows<Out, float>(p, mean, std, scale);
      return true;
    case Scalar::kFloat64:
      NormalizeRows<Out, double>(p, mean, std, scale);
      return true;
    default:
      return false;
  }
}

constexpr const char* kRefusedMessage = "Expected a real input and a float32 or float64 output";

// The call as the one-pass kernel on its device, or kNotOnDevice.
NormalizeResult OnDevice(const NormalizeCall& call) {
  NormalizePlan32 plan;
  if (!DeviceNormalizes(call.in_type, call.out_type, call.ndim, call.shape) ||
      !MakeNormalizePlan32(call.ndim, call.shape, call.out.strides, call.in.strides, &plan)) {
    return Failed(NormalizeFailure::kNotOnDevice,
                  "Expected a normalize the one-pass kernel takes (uint8 or float32 into float32, "
                  "at most " +
                      std::to_string(kDeviceNormalizeChannels) + " channels)");
  }
  const NormalizeValues values =
      MakeNormalizeValues(call.channels, call.mean, call.std, call.scale);
  const cuda::Status status = cuda::DeviceNormalize(call.device, call.in_type, plan, values,
                                                    call.in.first, call.out.first, call.stream);
  return cuda::FamilyResultOf<NormalizeFailure>(
      status, "the normalize kernel on device " + std::to_string(call.device));
}

}  // namespace

bool Normalize(int ndim, const int64_t* shape, Scalar in_type, Operand in, Scalar out_type,
               Operand out, const double* mean, const double* std, double scale) {
  if (ndim < 3) return false;
  const Operand ops[2] = {out, in};
  const uint64_t sizes[2] = {ScalarSize(out_type), ScalarSize(in_type)};
  const strided::Plan p = MakePlan(ndim, shape, 2, ops, sizes);
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 0) return true;
  }
  if (out_type == Scalar::kFloat32) return NormalizeFrom<float>(in_type, p, mean, std, scale);
  if (out_type == Scalar::kFloat64) return NormalizeFrom<double>(in_type, p, mean, std, scale);
  return false;
}

NormalizeResult RunNormalize(const NormalizeCall& call) {
  if (call.device != kHostDevice) return OnDevice(call);
  if (!Normalize(call.ndim, call.shape, call.in_type, call.in, call.out_type, call.out, call.mean,
                 call.std, call.scale)) {
    return Failed(NormalizeFailure::kRefused, kRefusedMessage);
  }
  return {};
}

}  // namespace dlnode
