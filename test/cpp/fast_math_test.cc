// The vectorisable float32 exp, tanh and sigmoid (src/core/compute/fast_math.h)
// against libm in double, rounded to float: the edges (overflow, underflow,
// infinities, NaN, signed zeros, saturation) exactly, and a sweep over the
// whole float range plus a dense range within an ulp bound.
#include "compute/fast_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dlnode {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kTiny = std::numeric_limits<float>::denorm_min();

float ExactExp(float x) { return static_cast<float>(std::exp(static_cast<double>(x))); }
float ExactTanh(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }
float ExactSigmoid(float x) {
  return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x))));
}

// Floats in one ordered line of integers (-0 and +0 next to each other, one apart).
int64_t Ordinal(float x) {
  int32_t i;
  std::memcpy(&i, &x, sizeof i);
  return i < 0 ? -static_cast<int64_t>(i & 0x7FFFFFFF) - 1 : i;
}

// The ulps between got and want: 0 when both are NaN or equal, huge when one is NaN.
int64_t Ulps(float got, float want) {
  if (std::isnan(got) || std::isnan(want))
    return std::isnan(got) == std::isnan(want) ? 0 : 1LL << 40;
  if (got == want) return 0;
  const int64_t d = Ordinal(got) - Ordinal(want);
  return d < 0 ? -d : d;
}

float FromBits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

struct Worst {
  int64_t ulps = 0;
  float at = 0;
};

// Every `stride`-th bit pattern from `first` to `last` (inclusive).
template <class Got, class Want>
Worst Sweep(uint32_t first, uint32_t last, uint32_t stride, const Got& got, const Want& want) {
  Worst w;
  for (uint64_t b = first; b <= last; b += stride) {
    const float x = FromBits(static_cast<uint32_t>(b));
    const int64_t u = Ulps(got(x), want(x));
    if (u > w.ulps) w = {u, x};
  }
  return w;
}

// The whole range (both signs, every 257th pattern), then every float of
// [0.5, 1) and (-1, -0.5] (exp's reduced range, tanh's switch at 0.625).
template <class Got, class Want>
void ExpectWithin(int64_t bound, const Got& got, const Want& want) {
  const Worst all = Sweep(0, 0xFFFFFFFFU, 257, got, want);
  EXPECT_LE(all.ulps, bound) << "at " << all.at;
  const Worst pos = Sweep(0x3F000000U, 0x3F7FFFFFU, 1, got, want);
  EXPECT_LE(pos.ulps, bound) << "at " << pos.at;
  const Worst neg = Sweep(0xBF000000U, 0xBF7FFFFFU, 1, got, want);
  EXPECT_LE(neg.ulps, bound) << "at " << neg.at;
}

TEST(FastMathTest, ExpWithinOneUlpEverywhere) { ExpectWithin(1, FastExp, ExactExp); }

TEST(FastMathTest, ExpEdges) {
  EXPECT_EQ(FastExp(kInf), kInf);
  EXPECT_EQ(FastExp(kMax), kInf);
  EXPECT_EQ(FastExp(88.73F), kInf);
  EXPECT_EQ(FastExp(88.72F), ExactExp(88.72F));  // below FLT_MAX's log: finite
  EXPECT_TRUE(std::isfinite(FastExp(88.72F)));
  EXPECT_EQ(FastExp(-kInf), 0.0F);
  EXPECT_EQ(FastExp(-kMax), 0.0F);
  EXPECT_EQ(FastExp(-104.0F), 0.0F);
  EXPECT_EQ(FastExp(-103.9F), ExactExp(-103.9F));  // the least subnormal
  EXPECT_GT(FastExp(-103.9F), 0.0F);
  EXPECT_LE(Ulps(FastExp(-100.0F), ExactExp(-100.0F)), 1);  // subnormal
  EXPECT_TRUE(std::isnan(FastExp(kNaN)));
  EXPECT_TRUE(std::isnan(FastExp(-kNaN)));
  EXPECT_EQ(FastExp(0.0F), 1.0F);
  EXPECT_EQ(FastExp(-0.0F), 1.0F);
  EXPECT_EQ(FastExp(kTiny), 1.0F);
  EXPECT_EQ(FastExp(1.0F), ExactExp(1.0F));
}

TEST(FastMathTest, TanhWithinTwoUlpsEverywhere) { ExpectWithin(2, FastTanh, ExactTanh); }

TEST(FastMathTest, TanhEdges) {
  EXPECT_EQ(FastTanh(kInf), 1.0F);
  EXPECT_EQ(FastTanh(-kInf), -1.0F);
  EXPECT_EQ(FastTanh(kMax), 1.0F);
  EXPECT_EQ(FastTanh(-kMax), -1.0F);
  for (float x = 9.5F; x < 100.0F; x += 0.5F) {  // saturated (from 9.01), and stays there
    EXPECT_EQ(FastTanh(x), 1.0F) << x;
    EXPECT_EQ(FastTanh(-x), -1.0F) << -x;
  }
  EXPECT_EQ(FastTanh(0.0F), 0.0F);
  EXPECT_FALSE(std::signbit(FastTanh(0.0F)));
  EXPECT_EQ(FastTanh(-0.0F), 0.0F);
  EXPECT_TRUE(std::signbit(FastTanh(-0.0F)));
  EXPECT_EQ(FastTanh(kTiny), kTiny);
  EXPECT_EQ(FastTanh(-kTiny), -kTiny);
  EXPECT_EQ(FastTanh(1e-20F), 1e-20F);
  EXPECT_TRUE(std::isnan(FastTanh(kNaN)));
  EXPECT_TRUE(std::isnan(FastTanh(-kNaN)));
}

TEST(FastMathTest, SigmoidWithinTwoUlpsEverywhere) { ExpectWithin(2, FastSigmoid, ExactSigmoid); }

TEST(FastMathTest, SigmoidEdges) {
  EXPECT_EQ(FastSigmoid(-kInf), 0.0F);
  EXPECT_EQ(FastSigmoid(kInf), 1.0F);
  EXPECT_EQ(FastSigmoid(-kMax), 0.0F);
  EXPECT_EQ(FastSigmoid(kMax), 1.0F);
  EXPECT_EQ(FastSigmoid(0.0F), 0.5F);
  EXPECT_EQ(FastSigmoid(-0.0F), 0.5F);
  EXPECT_EQ(FastSigmoid(20.0F), ExactSigmoid(20.0F));
  // e^x would overflow in 1 / (1 + e^-x): subnormal results still come out.
  EXPECT_GT(FastSigmoid(-95.0F), 0.0F);
  EXPECT_LE(Ulps(FastSigmoid(-95.0F), ExactSigmoid(-95.0F)), 1);
  EXPECT_TRUE(std::isnan(FastSigmoid(kNaN)));
}

}  // namespace
}  // namespace dlnode
