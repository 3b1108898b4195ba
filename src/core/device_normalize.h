// dl.normalize on a CUDA device in one pass (cuda_ops.cu NormalizeKernel),
// written once for host and device as device_copy.h is: the walk over the
// output and input views, the channel of each element, and the arithmetic.
// test/cpp/device_normalize_test.cc runs this code on the host against the
// host engine's Normalize() (elementwise.cc), bit for bit, so the kernel's
// index arithmetic and rounding are tested where there is no GPU.
//
// out[i] = (float(in[i]) * scale - mean[c]) / std[c], c the element's index
// on dim -3, each step rounded in float32 (no fused multiply-add): the host
// pass's order and bits. One kernel per input dtype the pass takes on a
// device (uint8, float32; a bool input arrives as uint8) into float32, for
// plans of fewer than 2^31 elements and at most kDeviceNormalizeChannels
// channels; other cases go through the elementwise kernels in the same order
// (lib/normalize.js).
#ifndef DLPACK_NODE_CORE_DEVICE_NORMALIZE_H_
#define DLPACK_NODE_CORE_DEVICE_NORMALIZE_H_

#include <cstdint>

#include "convert.h"
#include "device_copy.h"

namespace dlnode {

// The most channels whose mean and std travel in the launch's arguments.
constexpr int kDeviceNormalizeChannels = 32;

// The views' walk (CopyPlan32 over out, in: coalescing keeps the row-major
// element order) and the channel of element i: (i / plane) % channels.
struct NormalizePlan32 {
  CopyPlan32 walk;
  FastDivider plane;     // H * W: elements per channel
  FastDivider channels;  // C
};

// The per-channel values and the scale, as float32 (the host pass rounds
// them to the output dtype the same way).
struct NormalizeValues {
  float scale = 1;
  float mean[kDeviceNormalizeChannels] = {};
  float std[kDeviceNormalizeChannels] = {};
};

// Whether the one-pass kernel takes this normalize: `in` uint8 or float32
// into float32 (lib/normalize.js converts a bool input to uint8 first, as for the
// host pass: the kernel reads bytes as numbers), `channels`
// (shape[ndim - 3]) at most kDeviceNormalizeChannels, fewer than 2^31
// elements.
bool DeviceNormalizes(Scalar in, Scalar out, int ndim, const int64_t* shape);

// The plan for out and in over `shape` ([..., C, H, W], strides in
// elements); false where DeviceNormalizes is false for the shape or it has no
// elements.
bool MakeNormalizePlan32(int ndim, const int64_t* shape, const int64_t* out_strides,
                         const int64_t* in_strides, NormalizePlan32* plan);

// mean/std (`channels` each) and scale as the kernel reads them.
NormalizeValues MakeNormalizeValues(int channels, const double* mean, const double* std,
                                    double scale);

// The channel of row-major element i.
DLNODE_HD uint32_t ChannelOf(const NormalizePlan32& p, uint32_t i) {
  const uint32_t q = Divide(p.plane, i);
  return q - Divide(p.channels, q) * p.channels.divisor;
}

// (x * scale - mean) / std, each step rounded to float32. On the device
// through the _rn intrinsics: nvcc would otherwise contract the first two
// steps into one fused multiply-add, whose single rounding gives other bits
// than the host's two.
DLNODE_HD float NormalizeValue(float x, float scale, float mean, float std) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(__fsub_rn(__fmul_rn(x, scale), mean), std);
#else
  return (x * scale - mean) / std;
#endif
}

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_DEVICE_NORMALIZE_H_
