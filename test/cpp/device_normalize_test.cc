// The code the CUDA normalize kernel runs (device_normalize.h: the walk, the
// channel of each element, the arithmetic), run on the host against the host
// engine's Normalize() bit for bit, over the layouts a pipeline hands it. A
// GPU runs the same functions; only the launch and the shared-memory copy of
// mean and std go untested here.
#include "device_normalize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "compute/elementwise.h"
#include "compute/normalize.h"

namespace {

using dlnode::Scalar;

// A view of `shape` over a buffer: strides in elements, `first` the element
// offset of index 0 (a negative stride starts past the front).
struct View {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t first = 0;
  int64_t span = 0;  // elements the buffer holds
};

View Contiguous(std::vector<int64_t> shape) {
  View v;
  v.shape = shape;
  v.strides.assign(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    v.strides[d] = v.strides[d + 1] * shape[d + 1];
  }
  v.span = v.strides[0] * shape[0];
  return v;
}

// `base` with its dims in `order` (torch's permute).
View Permuted(const View& base, std::vector<int> order) {
  View v = base;
  for (size_t d = 0; d < order.size(); ++d) {
    v.shape[d] = base.shape[order[d]];
    v.strides[d] = base.strides[order[d]];
  }
  return v;
}

// `base` read backwards along `dim` (a negative stride).
View Flipped(const View& base, int dim) {
  View v = base;
  v.first += (base.shape[dim] - 1) * base.strides[dim];
  v.strides[dim] = -base.strides[dim];
  return v;
}

template <typename In>
std::vector<In> Values(int64_t n, std::mt19937* gen) {
  std::vector<In> v(static_cast<size_t>(n));
  if constexpr (std::is_same<In, float>::value) {
    std::normal_distribution<float> dist(0.0F, 50.0F);
    for (auto& x : v) x = dist(*gen);
    if (n > 3) {
      v[0] = std::numeric_limits<float>::quiet_NaN();
      v[1] = std::numeric_limits<float>::infinity();
      v[2] = -0.0F;
    }
  } else {
    std::uniform_int_distribution<int> dist(0, 255);
    for (auto& x : v) x = static_cast<In>(dist(*gen));
  }
  return v;
}

// The kernel's arithmetic over every element, and Normalize()'s, into two
// buffers of out's span; true when every element has the same bits.
template <typename In>
::testing::AssertionResult SameAsHost(const View& in, const View& out, int seed) {
  const int ndim = static_cast<int>(in.shape.size());
  const int channels = static_cast<int>(in.shape[ndim - 3]);
  std::mt19937 gen(seed);
  std::vector<In> source = Values<In>(in.span, &gen);
  std::uniform_real_distribution<double> mean_dist(-1.0, 1.0);
  std::uniform_real_distribution<double> std_dist(0.1, 2.0);
  std::vector<double> mean(channels);
  std::vector<double> stdev(channels);
  for (int c = 0; c < channels; ++c) {
    mean[c] = mean_dist(gen);
    stdev[c] = std_dist(gen);
  }
  const double scale = 1.0 / 255;

  dlnode::NormalizePlan32 plan;
  if (!dlnode::MakeNormalizePlan32(ndim, in.shape.data(), out.strides.data(), in.strides.data(),
                                   &plan)) {
    return ::testing::AssertionFailure() << "no plan";
  }
  const dlnode::NormalizeValues values =
      dlnode::MakeNormalizeValues(channels, mean.data(), stdev.data(), scale);
  // Both outputs start as the same NaN pattern, so an element either side
  // skips shows.
  std::vector<float> twin(static_cast<size_t>(out.span), std::nanf("7"));
  std::vector<float> host = twin;
  for (uint32_t i = 0; i < plan.walk.count; ++i) {
    int64_t d = 0;
    int64_t s = 0;
    dlnode::PlanOffsets(plan.walk, i, &d, &s);
    const uint32_t c = dlnode::ChannelOf(plan, i);
    twin[out.first + d] = dlnode::NormalizeValue(static_cast<float>(source[in.first + s]),
                                                 values.scale, values.mean[c], values.std[c]);
  }
  const Scalar in_type = std::is_same<In, float>::value ? Scalar::kFloat32 : Scalar::kUint8;
  const dlnode::Operand in_op{reinterpret_cast<char*>(source.data() + in.first), in.strides.data()};
  const dlnode::Operand out_op{reinterpret_cast<char*>(host.data() + out.first),
                               out.strides.data()};
  if (!dlnode::Normalize(ndim, in.shape.data(), in_type, in_op, Scalar::kFloat32, out_op,
                         mean.data(), stdev.data(), scale)) {
    return ::testing::AssertionFailure() << "the host engine refused";
  }
  for (int64_t k = 0; k < out.span; ++k) {
    uint32_t a = 0;
    uint32_t b = 0;
    std::memcpy(&a, &twin[k], sizeof a);
    std::memcpy(&b, &host[k], sizeof b);
    if (a != b) {
      return ::testing::AssertionFailure()
             << "element " << k << ": kernel " << twin[k] << ", host " << host[k];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(DeviceNormalize, ContiguousChwFrame) {
  EXPECT_TRUE(SameAsHost<uint8_t>(Contiguous({3, 5, 7}), Contiguous({3, 5, 7}), 1));
  EXPECT_TRUE(SameAsHost<float>(Contiguous({3, 5, 7}), Contiguous({3, 5, 7}), 2));
}

TEST(DeviceNormalize, PermutedHwcFramesIntoAnNchwBatch) {
  // A uint8 HWC frame read as CHW (the pipeline's case), and a batch of them.
  EXPECT_TRUE(
      SameAsHost<uint8_t>(Permuted(Contiguous({6, 9, 3}), {2, 0, 1}), Contiguous({3, 6, 9}), 3));
  EXPECT_TRUE(SameAsHost<uint8_t>(Permuted(Contiguous({4, 5, 6, 3}), {0, 3, 1, 2}),
                                  Contiguous({4, 3, 5, 6}), 4));
  EXPECT_TRUE(SameAsHost<float>(Permuted(Contiguous({2, 7, 5, 3}), {0, 3, 1, 2}),
                                Contiguous({2, 3, 7, 5}), 5));
}

TEST(DeviceNormalize, ChannelCountsUpToTheLimit) {
  for (int channels : {1, 2, 4, 31, dlnode::kDeviceNormalizeChannels}) {
    SCOPED_TRACE(channels);
    EXPECT_TRUE(SameAsHost<uint8_t>(Permuted(Contiguous({3, 4, channels}), {2, 0, 1}),
                                    Contiguous({channels, 3, 4}), 6 + channels));
    EXPECT_TRUE(SameAsHost<float>(Contiguous({2, channels, 1, 5}), Contiguous({2, channels, 1, 5}),
                                  7 + channels));
  }
}

TEST(DeviceNormalize, NegativeZeroAndBroadcastStrides) {
  // Read backwards along W and along C; the output a strided slice of a
  // larger batch (every other image); an input broadcast along the batch.
  EXPECT_TRUE(SameAsHost<uint8_t>(Flipped(Contiguous({3, 4, 5}), 2), Contiguous({3, 4, 5}), 8));
  EXPECT_TRUE(SameAsHost<float>(Flipped(Contiguous({3, 4, 5}), 0), Contiguous({3, 4, 5}), 9));
  View every_other = Contiguous({6, 3, 4, 5});
  every_other.shape[0] = 3;
  every_other.strides[0] *= 2;
  EXPECT_TRUE(SameAsHost<uint8_t>(Contiguous({3, 3, 4, 5}), every_other, 10));
  View broadcast = Contiguous({1, 3, 4, 5});
  broadcast.shape[0] = 4;
  broadcast.strides[0] = 0;
  EXPECT_TRUE(SameAsHost<float>(broadcast, Contiguous({4, 3, 4, 5}), 11));
}

TEST(DeviceNormalize, LeadingDimsAndOddSizes) {
  EXPECT_TRUE(SameAsHost<uint8_t>(Permuted(Contiguous({2, 3, 5, 7, 3}), {0, 1, 4, 2, 3}),
                                  Contiguous({2, 3, 3, 5, 7}), 12));
  EXPECT_TRUE(SameAsHost<float>(Contiguous({1, 1, 3, 1, 1}), Contiguous({1, 1, 3, 1, 1}), 13));
  EXPECT_TRUE(SameAsHost<uint8_t>(Permuted(Contiguous({37, 41, 3}), {2, 0, 1}),
                                  Contiguous({3, 37, 41}), 14));
}

TEST(DeviceNormalize, TakesOnlyTheCasesItsKernelsCompute) {
  const int64_t frame[3] = {3, 224, 224};
  EXPECT_TRUE(dlnode::DeviceNormalizes(Scalar::kUint8, Scalar::kFloat32, 3, frame));
  // A bool input is converted to uint8 first (lib/ops.js): the kernel, as
  // the host pass, would read its bytes as numbers (255 for a 0/255 mask).
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kBool, Scalar::kFloat32, 3, frame));
  EXPECT_TRUE(dlnode::DeviceNormalizes(Scalar::kFloat32, Scalar::kFloat32, 3, frame));
  // Other input dtypes, a float64 output, fewer than 3 dims: the elementwise kernels.
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kInt16, Scalar::kFloat32, 3, frame));
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kFloat64, Scalar::kFloat32, 3, frame));
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kUint8, Scalar::kFloat64, 3, frame));
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kUint8, Scalar::kFloat32, 2, frame + 1));
  // More channels than the launch carries.
  const int64_t wide[3] = {dlnode::kDeviceNormalizeChannels + 1, 2, 2};
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kUint8, Scalar::kFloat32, 3, wide));
  // 2^31 elements and more (the plan's indices are 32-bit); just under is taken.
  const int64_t huge[4] = {128, 3, 2048, 2731};
  EXPECT_FALSE(dlnode::DeviceNormalizes(Scalar::kUint8, Scalar::kFloat32, 4, huge));
  const int64_t under[4] = {127, 3, 2048, 2731};
  EXPECT_TRUE(dlnode::DeviceNormalizes(Scalar::kUint8, Scalar::kFloat32, 4, under));
  // No elements: no plan (nothing to launch).
  const int64_t empty[3] = {3, 0, 4};
  const int64_t strides[3] = {0, 4, 1};
  dlnode::NormalizePlan32 plan;
  EXPECT_FALSE(dlnode::MakeNormalizePlan32(3, empty, strides, strides, &plan));
}

}  // namespace
