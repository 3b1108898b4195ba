// dl.normalize's native half (src/core/compute/normalize.h): the host pass
// over the layouts a pipeline hands it (a permuted HWC frame, interleaved
// frames against the same values as planes, at 1, 2 and 4 threads), its
// refusal of bool, and the one entry: the host fork is the pass, a refusal is
// coded with nothing written, and a device's call is the kernel where it takes
// the case (device_normalize_test.cc runs the kernel's arithmetic on the host,
// bit for bit against this pass), kNotOnDevice where it does not (lib/
// normalize.js then composes elementwise kernels), and the coded unavailable
// failure in a build or on a machine without CUDA.
#include "compute/normalize.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "device_normalize.h"
#include "parallel.h"

namespace dlnode {
namespace {

template <typename T>
Operand Of(std::vector<T>& v, const int64_t* strides, int64_t offset = 0) {
  return Operand{reinterpret_cast<char*>(v.data() + offset), strides};
}

bool HasDevice() {
  int devices = 0;
  return cuda::Compiled() && cuda::DeviceCount(&devices).ok && devices > 0;
}

TEST(NormalizeTest, NormalizesAPermutedHwcFrame) {
  // A [2, 2, 3] uint8 HWC frame read as CHW through strides [1, 6, 3].
  std::vector<uint8_t> hwc = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110};
  std::vector<float> out(12);
  const int64_t shape[] = {3, 2, 2};
  const int64_t si[] = {1, 6, 3};
  const int64_t so[] = {4, 2, 1};
  const double mean[] = {1, 2, 3};
  const double std[] = {2, 4, 8};
  ASSERT_TRUE(Normalize(3, shape, Scalar::kUint8, Of(hwc, si), Scalar::kFloat32, Of(out, so), mean,
                        std, 0.5));
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < 4; ++p) {
      const float x = hwc[static_cast<size_t>(p) * 3 + static_cast<size_t>(c)];
      EXPECT_FLOAT_EQ(out[static_cast<size_t>(c) * 4 + static_cast<size_t>(p)],
                      (x * 0.5f - static_cast<float>(mean[c])) / static_cast<float>(std[c]));
    }
  }
}

// A bool input is refused, with nothing written: the pass reads bytes as
// numbers (a 0/255 mask normalized as 255: issue 37, finding 6), so
// lib/normalize.js converts bool to uint8 first, whose rule reads any nonzero byte
// as 1.
TEST(NormalizeTest, NormalizeRefusesBool) {
  std::vector<uint8_t> mask = {0, 255, 1, 7};
  std::vector<float> out(4, -1.0F);
  const int64_t shape[] = {1, 2, 2};
  const int64_t strides[] = {4, 2, 1};
  const double zero = 0;
  const double one = 1;
  EXPECT_FALSE(Normalize(3, shape, Scalar::kBool, Of(mask, strides), Scalar::kFloat32,
                         Of(out, strides), &zero, &one, 1.0));
  EXPECT_EQ(out, (std::vector<float>(4, -1.0F)));
}

// Interleaved frames (HWC memory read as CHW: every channel of a pixel row
// read together) give the bits of the same values laid out as planes (the
// general row path): RGB uint8 -> float32 (the vectorised row), 4 channels,
// int16 -> float64, a batch dim, a width that is no multiple of 8, and 1, 2
// and 4 threads.
TEST(NormalizeTest, InterleavedFramesNormalizeAsPlanarOnes) {
  const int saved = GetNumThreads();
  struct Case {
    int64_t batch, channels, height, width;
  };
  for (const Case k : {Case{1, 3, 224, 224}, Case{2, 3, 5, 37}, Case{3, 4, 9, 11}}) {
    const int64_t n = k.batch * k.channels * k.height * k.width;
    std::vector<uint8_t> hwc(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) hwc[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 37 + 11);
    // The same pixels as planes: [B, C, H, W] contiguous.
    std::vector<uint8_t> planes(hwc.size());
    const int64_t pixels = k.height * k.width;
    for (int64_t b = 0; b < k.batch; ++b) {
      for (int64_t c = 0; c < k.channels; ++c) {
        for (int64_t px = 0; px < pixels; ++px) {
          planes[static_cast<size_t>((b * k.channels + c) * pixels + px)] =
              hwc[static_cast<size_t>((b * pixels + px) * k.channels + c)];
        }
      }
    }
    const int64_t shape[] = {k.batch, k.channels, k.height, k.width};
    const int64_t si[] = {pixels * k.channels, 1, k.width * k.channels, k.channels};
    const int64_t sp[] = {k.channels * pixels, pixels, k.width, 1};
    const double mean[] = {0.485, 0.456, 0.406, 0.5};
    const double std[] = {0.229, 0.224, 0.225, 0.25};
    for (const int threads : {1, 2, 4}) {
      ASSERT_TRUE(SetNumThreads(threads));
      std::vector<float> a(hwc.size());
      std::vector<float> b(hwc.size());
      ASSERT_TRUE(Normalize(4, shape, Scalar::kUint8, Of(hwc, si), Scalar::kFloat32, Of(a, sp),
                            mean, std, 1.0 / 255));
      ASSERT_TRUE(Normalize(4, shape, Scalar::kUint8, Of(planes, sp), Scalar::kFloat32, Of(b, sp),
                            mean, std, 1.0 / 255));
      ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << k.channels << " channels, " << threads << " threads";
      // int16 into float64 takes the interleaved path's general channel loop.
      std::vector<int16_t> hwc16(hwc.begin(), hwc.end());
      std::vector<int16_t> planes16(planes.begin(), planes.end());
      std::vector<double> c(hwc.size());
      std::vector<double> d(hwc.size());
      ASSERT_TRUE(Normalize(4, shape, Scalar::kInt16, Of(hwc16, si), Scalar::kFloat64, Of(c, sp),
                            mean, std, 0.5));
      ASSERT_TRUE(Normalize(4, shape, Scalar::kInt16, Of(planes16, sp), Scalar::kFloat64, Of(d, sp),
                            mean, std, 0.5));
      ASSERT_EQ(std::memcmp(c.data(), d.data(), c.size() * sizeof(double)), 0);
    }
  }
  SetNumThreads(saved);
}

// The call over a [2, 2, 2] uint8 frame into float32, on `device`.
struct FrameCall {
  std::vector<uint8_t> in = {0, 51, 102, 153, 204, 255, 17, 34};
  std::vector<float> out = std::vector<float>(8, -1.0F);
  int64_t shape[3] = {2, 2, 2};
  int64_t dense[3] = {4, 2, 1};
  double mean[2] = {0.5, 0.25};
  double std[2] = {0.5, 2};
  NormalizeCall call;
  explicit FrameCall(int device) {
    call.device = device;
    call.stream = 1;
    call.ndim = 3;
    call.shape = shape;
    call.in = Of(in, dense);
    call.out = Of(out, dense);
    call.channels = 2;
    call.mean = mean;
    call.std = std;
    call.scale = 1.0 / 255;
  }
};

TEST(NormalizeTest, TheHostForkIsThePass) {
  FrameCall f(kHostDevice);
  ASSERT_TRUE(RunNormalize(f.call).ok());
  std::vector<float> direct(8);
  ASSERT_TRUE(Normalize(3, f.shape, Scalar::kUint8, Of(f.in, f.dense), Scalar::kFloat32,
                        Of(direct, f.dense), f.mean, f.std, 1.0 / 255));
  EXPECT_EQ(std::memcmp(f.out.data(), direct.data(), direct.size() * sizeof(float)), 0);
  const float k = 1.0F / 255;
  EXPECT_EQ(f.out[5], (255.0F * k - 0.25F) / 2.0F);
}

TEST(NormalizeTest, ARefusalIsCodedAndWritesNothing) {
  FrameCall f(kHostDevice);
  f.call.in_type = Scalar::kBool;  // lib/normalize.js converts a bool input to uint8 first
  const NormalizeResult result = RunNormalize(f.call);
  EXPECT_EQ(result.failure, NormalizeFailure::kRefused);
  EXPECT_STREQ(result.code(), "ERR_DLPACK_UNSUPPORTED");
  EXPECT_EQ(f.out, std::vector<float>(8, -1.0F));
  FrameCall g(kHostDevice);
  g.call.out_type = Scalar::kInt32;
  EXPECT_EQ(RunNormalize(g.call).failure, NormalizeFailure::kRefused);
}

// What the one-pass kernel does not take is answered before any CUDA call,
// so the answer is the same with and without a device: a float64 output, an
// int16 input, more channels than the launch carries.
TEST(NormalizeTest, ADeviceCallTheKernelDoesNotTakeIsNotOnDevice) {
  FrameCall f(0);
  f.call.out_type = Scalar::kFloat64;
  NormalizeResult result = RunNormalize(f.call);
  EXPECT_EQ(result.failure, NormalizeFailure::kNotOnDevice);
  EXPECT_NE(result.message.find("one-pass kernel"), std::string::npos) << result.message;
  FrameCall g(0);
  g.call.in_type = Scalar::kInt16;
  EXPECT_EQ(RunNormalize(g.call).failure, NormalizeFailure::kNotOnDevice);
  std::vector<float> wide(static_cast<size_t>(kDeviceNormalizeChannels + 1));
  std::vector<float> wide_out(wide.size(), -1.0F);
  std::vector<double> ones(wide.size(), 1.0);
  const int64_t shape[3] = {kDeviceNormalizeChannels + 1, 1, 1};
  const int64_t dense[3] = {1, 1, 1};
  FrameCall h(0);
  h.call.in_type = Scalar::kFloat32;
  h.call.shape = shape;
  h.call.in = Of(wide, dense);
  h.call.out = Of(wide_out, dense);
  h.call.channels = kDeviceNormalizeChannels + 1;
  h.call.mean = ones.data();
  h.call.std = ones.data();
  EXPECT_EQ(RunNormalize(h.call).failure, NormalizeFailure::kNotOnDevice);
  EXPECT_EQ(f.out, std::vector<float>(8, -1.0F));
  EXPECT_EQ(wide_out, std::vector<float>(wide.size(), -1.0F));
}

TEST(NormalizeTest, ADeviceCallWithoutCudaIsUnavailable) {
  if (HasDevice()) {
    GTEST_SKIP() << "a CUDA device is present: test/cuda-ops.test.js runs the device fork";
  }
  FrameCall f(0);
  const NormalizeResult result = RunNormalize(f.call);
  EXPECT_EQ(result.failure, NormalizeFailure::kCudaUnavailable);
  EXPECT_STREQ(result.code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
  EXPECT_NE(result.message.find("the normalize kernel on device 0"), std::string::npos)
      << result.message;
  EXPECT_EQ(f.out, std::vector<float>(8, -1.0F));
}

}  // namespace
}  // namespace dlnode
