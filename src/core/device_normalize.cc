#include "device_normalize.h"

namespace dlnode {
namespace {

// [..., C, H, W] with at most kDeviceNormalizeChannels channels and fewer
// than 2^31 elements.
bool ShapeTaken(int ndim, const int64_t* shape) {
  if (ndim < 3 || ndim > kMaxDims || shape[ndim - 3] > kDeviceNormalizeChannels) return false;
  int64_t count = 1;
  for (int d = 0; d < ndim; ++d) {
    count *= shape[d];
    if (count >= (INT64_C(1) << 31)) return false;
  }
  return true;
}

}  // namespace

bool DeviceNormalizes(Scalar in, Scalar out, int ndim, const int64_t* shape) {
  if (out != Scalar::kFloat32) return false;
  // bool is converted to uint8 first (lib/normalize.js, as for the host pass).
  if (in != Scalar::kUint8 && in != Scalar::kFloat32) return false;
  return ShapeTaken(ndim, shape);
}

bool MakeNormalizePlan32(int ndim, const int64_t* shape, const int64_t* out_strides,
                         const int64_t* in_strides, NormalizePlan32* plan) {
  if (!ShapeTaken(ndim, shape)) return false;
  const CopyPlan walk = MakeCopyPlan(ndim, shape, out_strides, in_strides);
  if (walk.count == 0 || !MakeCopyPlan32(walk, &plan->walk)) return false;
  plan->plane = MakeDivider(static_cast<uint32_t>(shape[ndim - 2] * shape[ndim - 1]));
  plan->channels = MakeDivider(static_cast<uint32_t>(shape[ndim - 3]));
  return true;
}

NormalizeValues MakeNormalizeValues(int channels, const double* mean, const double* std,
                                    double scale) {
  NormalizeValues v;
  v.scale = static_cast<float>(scale);
  for (int c = 0; c < channels && c < kDeviceNormalizeChannels; ++c) {
    v.mean[c] = static_cast<float>(mean[c]);
    v.std[c] = static_cast<float>(std[c]);
  }
  return v;
}

}  // namespace dlnode
