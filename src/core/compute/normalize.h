// dl.normalize (docs/API.md "normalize"): torchvision's normalize with a scale
// first, out[..., c, h, w] = (in[..., c, h, w] * scale - mean[c]) / std[c], the
// channel at dim ndim - 3, in one pass. The host engine (Normalize) and one
// call's descriptor, which lib/route.js builds and the addon reads
// (src/addon/normalize.cc) for host and CUDA memory alike, with its one entry
// (RunNormalize) that forks at the bottom: the host engine, or the one-pass
// kernel (device_normalize.h, cuda_ops.h) on a device. Every rule above this
// point (the input's conversion, the target, overlap, the values) is
// lib/normalize.js's, written once for both.
//
// The host pass over an interleaved RGB uint8 frame into float32 is also
// compiled for AVX2 (fast_math.h's target_clones: NormalizeRgbRow); check the
// object code with `objdump -d build/Release/obj.target/dlpack/src/core/compute/normalize.o`.
#ifndef DLPACK_NODE_CORE_COMPUTE_NORMALIZE_H_
#define DLPACK_NODE_CORE_COMPUTE_NORMALIZE_H_

#include <cstdint>

#include "../result.h"
#include "elementwise.h"
#include "elementwise_call.h"

namespace dlnode {

// The host pass: `in` of any real type but bool, `out` float32 or float64
// (computed in that type), ndim >= 3, split over rows of the last dimension.
// Returns false, having written nothing, for other types: a bool input is
// converted to uint8 first by lib/normalize.js (convert.h: any nonzero byte is
// 1), since reading its bytes as numbers gave 255 for a 0/255 mask (issue 37,
// finding 6); a loop of its own would cost 15 KB of code.
bool Normalize(int ndim, const int64_t* shape, Scalar in_type, Operand in, Scalar out_type,
               Operand out, const double* mean, const double* std, double scale);

struct NormalizeCall {
  Scalar in_type = Scalar::kUint8;
  Scalar out_type = Scalar::kFloat32;
  int device = kHostDevice;  // or a CUDA device's index
  uintptr_t stream = 0;      // CUDA: 1 the legacy default stream, 2 per-thread, larger a handle
  int ndim = 0;
  const int64_t* shape = nullptr;
  Operand out{nullptr, nullptr};
  Operand in{nullptr, nullptr};
  int channels = 0;              // shape[ndim - 3]
  const double* mean = nullptr;  // `channels` of them
  const double* std = nullptr;   // `channels` of them
  double scale = 1;
};

// X(Constant, code) (result.h).
#define DLNODE_NORMALIZE_FAILURES(X)                                                           \
  X(kNone, nullptr)                                                                            \
  X(kRefused, code::kUnsupported)             /* the types (Normalize()'s refusals) */         \
  X(kNotOnDevice, code::kUnsupported)         /* the one-pass kernel does not take the case */ \
  X(kCudaUnavailable, code::kCudaUnavailable) /* no CUDA build or device */                    \
  X(kCuda, code::kCuda)                       /* the launch failed */

DLNODE_DEFINE_FAILURES(NormalizeFailure, DLNODE_NORMALIZE_FAILURES)
using NormalizeResult = Result<NormalizeFailure>;

// The pass on the call's device, on this thread (a kernel: enqueued on its
// stream). On a device, kNotOnDevice, with nothing enqueued, where the kernel
// does not take the case (DeviceNormalizes: uint8 or float32 into float32, at
// most kDeviceNormalizeChannels channels, fewer than 2^31 elements): the
// caller composes it of elementwise kernels in the same order
// (lib/normalize.js). out may be in itself (the same elements) but not
// overlap it otherwise: the caller stages that.
NormalizeResult RunNormalize(const NormalizeCall& call);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_NORMALIZE_H_
