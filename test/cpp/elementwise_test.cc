// The elementwise engine (src/core/compute/elementwise.h): broadcasting through stride
// 0, coalescing, the in-place and strided loops, integer wrapping, bool
// handling, the refusals, and the same result for any thread count. The
// differential suite against torch is test/ops.test.js.
#include "compute/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "compute/fast_math.h"
#include "parallel.h"

namespace dlnode {
namespace {

template <typename T>
Operand Of(std::vector<T>& v, const int64_t* strides, int64_t offset = 0) {
  return Operand{reinterpret_cast<char*>(v.data() + offset), strides};
}

TEST(ElementwiseTest, BroadcastsAStrideZeroRowAndColumn) {
  // out[i][j] = a[i] + b[j], a as a [3, 1] column, b as a [4] row.
  std::vector<float> a = {1, 2, 3};
  std::vector<float> b = {10, 20, 30, 40};
  std::vector<float> out(12);
  const int64_t shape[] = {3, 4};
  const int64_t so[] = {4, 1};
  const int64_t sa[] = {1, 0};
  const int64_t sb[] = {0, 1};
  const Operand in[] = {Of(a, sa), Of(b, sb)};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kAdd, Scalar::kFloat32, 2, shape, Of(out, so), in));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[i * 4 + j], a[i] + b[j]);
  }
}

TEST(ElementwiseTest, InPlaceNegativeStridesAndTransposes) {
  std::vector<double> x = {1, 2, 3, 4, 5, 6};
  std::vector<double> y = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  const int64_t sx[] = {3, 1};
  const int64_t flipped[] = {3, -1};  // y's rows read backwards
  const Operand in[] = {Of(x, sx), Of(y, flipped, 2)};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kMul, Scalar::kFloat64, 2, shape, Of(x, sx), in));
  EXPECT_EQ(x, (std::vector<double>{3, 4, 3, 24, 25, 24}));
  std::vector<double> t(6);
  const int64_t transposed[] = {1, 2};  // t is [3, 2] stored, written as [2, 3]
  const Operand neg[] = {Of(y, sx)};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kNeg, Scalar::kFloat64, 2, shape, Of(t, transposed), neg));
  EXPECT_EQ(t, (std::vector<double>{-1, -4, -2, -5, -3, -6}));
}

TEST(ElementwiseTest, IntegersWrapAndScalarsWrapIn) {
  std::vector<uint8_t> a = {250, 3};
  std::vector<uint8_t> out(2);
  alignas(16) char ten[16];
  StoreScalar(Scalar::kUint8, 10, ten);
  const int64_t shape[] = {2};
  const int64_t s1[] = {1};
  const int64_t s0[] = {0};
  const Operand in[] = {Of(a, s1), Operand{ten, s0}};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kAdd, Scalar::kUint8, 1, shape, Of(out, s1), in));
  EXPECT_EQ(out, (std::vector<uint8_t>{4, 13}));
  alignas(16) char minus_two[16];
  StoreScalar(Scalar::kUint8, -2, minus_two);  // a Python int wraps: 254
  EXPECT_EQ(static_cast<uint8_t>(minus_two[0]), 254);
  std::vector<int32_t> big = {1 << 30};
  std::vector<int32_t> r(1);
  alignas(16) char four[16];
  StoreScalar(Scalar::kInt32, 4, four);
  const Operand in32[] = {Of(big, s1), Operand{four, s0}};
  const int64_t one[] = {1};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kMul, Scalar::kInt32, 1, one, Of(r, s1), in32));
  EXPECT_EQ(r[0], 0);
}

// Integer-valued scalars wrap exactly over [-2^63, 2^64) (torch casts a
// Python int; 2^64 - 1 is uint64's max, not saturation), and past that they
// convert as doubles (saturating: lib/scalars.js refuses them before).
TEST(ElementwiseTest, IntegerScalarsWrapExactlyUpTo2To64) {
  const auto stored = [](Scalar type, double value) {
    alignas(16) char bytes[16] = {};
    StoreScalar(type, value, bytes);
    uint64_t out = 0;
    std::memcpy(&out, bytes, ScalarSize(type));
    return out;
  };
  EXPECT_EQ(stored(Scalar::kUint8, 300), 44u);
  EXPECT_EQ(stored(Scalar::kUint8, 9223372036854775808.0), 0u);          // 2^63: through uint64
  EXPECT_EQ(stored(Scalar::kUint8, 18446744073709549568.0), 0u);         // 2^64 - 2^11
  EXPECT_EQ(stored(Scalar::kInt64, 9223372036854775808.0), 1ull << 63);  // 2^63 wraps to INT64_MIN
  EXPECT_EQ(stored(Scalar::kUint64, -1), ~0ull);
  EXPECT_EQ(stored(Scalar::kInt16, -9223372036854775808.0), 0u);  // -2^63
  // Not integers in range: a double's conversion (saturation).
  EXPECT_EQ(stored(Scalar::kUint8, 18446744073709551616.0), 255u);  // 2^64
  EXPECT_EQ(stored(Scalar::kUint8, 2.5), 2u);
}

TEST(ElementwiseTest, BoolsAreLogicalAndComparisonsWriteBool) {
  std::vector<uint8_t> a = {0, 1, 2, 0};  // 2 reads as true
  std::vector<uint8_t> b = {0, 0, 1, 1};
  std::vector<uint8_t> out(4);
  const int64_t shape[] = {4};
  const int64_t s1[] = {1};
  const Operand in[] = {Of(a, s1), Of(b, s1)};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kAdd, Scalar::kBool, 1, shape, Of(out, s1), in));
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 1, 1, 1}));
  ASSERT_TRUE(Elementwise(ElementwiseOp::kEq, Scalar::kBool, 1, shape, Of(out, s1), in));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 1, 0}));
  std::vector<float> f = {1, NAN, 3, -1};
  std::vector<float> g = {2, 0, 3, -2};
  const Operand fin[] = {Of(f, s1), Of(g, s1)};
  ASSERT_TRUE(Elementwise(ElementwiseOp::kLe, Scalar::kFloat32, 1, shape, Of(out, s1), fin));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 1, 0}));
  std::vector<float> m(4);
  ASSERT_TRUE(Elementwise(ElementwiseOp::kMaximum, Scalar::kFloat32, 1, shape, Of(m, s1), fin));
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_EQ(m[3], -1);
}

TEST(ElementwiseTest, RefusesTypesAnOpDoesNotComputeIn) {
  std::vector<uint8_t> a = {1};
  std::vector<uint8_t> out(1);
  const int64_t shape[] = {1};
  const int64_t s1[] = {1};
  const Operand in[] = {Of(a, s1), Of(a, s1)};
  EXPECT_FALSE(Elementwise(ElementwiseOp::kSub, Scalar::kBool, 1, shape, Of(out, s1), in));
  EXPECT_FALSE(Elementwise(ElementwiseOp::kDiv, Scalar::kUint8, 1, shape, Of(out, s1), in));
  EXPECT_FALSE(Elementwise(ElementwiseOp::kExp, Scalar::kInt32, 1, shape, Of(out, s1), in));
  EXPECT_FALSE(Elementwise(ElementwiseOp::kAdd, Scalar::kFloat16, 1, shape, Of(out, s1), in));
  EXPECT_FALSE(Elementwise(ElementwiseOp::kAdd, Scalar::kComplex64, 1, shape, Of(out, s1), in));
  EXPECT_EQ(out[0], 0);
}

uint32_t BitsOf(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The engine's dense float32 exp, sigmoid and tanh run in a vector clone
// chosen at load (AVX2 on a machine that has it); this file's FastExp is
// compiled for the baseline. Both must give the same bits (docs/API.md), so
// no FMA may creep into either: every 65537th bit pattern, both signs, the
// edges, out of place and in place.
TEST(ElementwiseTest, VectorLoopsGiveTheScalarBits) {
  std::vector<float> x;
  for (uint64_t b = 0; b <= 0xFFFFFFFFULL; b += 65537) {
    const auto bits = static_cast<uint32_t>(b);
    float v;
    std::memcpy(&v, &bits, sizeof v);
    x.push_back(v);
  }
  for (float v = -110.0F; v <= 110.0F; v += 0.013F) x.push_back(v);
  const int64_t shape[] = {static_cast<int64_t>(x.size())};
  const int64_t s1[] = {1};
  const struct {
    ElementwiseOp op;
    float (*scalar)(float);
  } ops[] = {{ElementwiseOp::kExp, FastExp},
             {ElementwiseOp::kSigmoid, FastSigmoid},
             {ElementwiseOp::kTanh, FastTanh}};
  for (const auto& o : ops) {
    std::vector<float> out(x.size());
    std::vector<float> in_place = x;
    const Operand in[] = {Of(x, s1)};
    const Operand self[] = {Of(in_place, s1)};
    ASSERT_TRUE(Elementwise(o.op, Scalar::kFloat32, 1, shape, Of(out, s1), in));
    ASSERT_TRUE(Elementwise(o.op, Scalar::kFloat32, 1, shape, Of(in_place, s1), self));
    int64_t differ = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = o.scalar(x[i]);
      for (const float got : {out[i], in_place[i]}) {
        const bool same = std::isnan(want) ? std::isnan(got) : BitsOf(got) == BitsOf(want);
        if (!same && differ++ < 5)
          ADD_FAILURE() << "op " << static_cast<int>(o.op) << " at " << x[i];
      }
    }
    EXPECT_EQ(differ, 0);
  }
}

// The dense float32 add/sub/mul/div loops run the elements before the
// output's first 32-byte boundary on their own: every start offset and
// length around that boundary (n shorter than the head included), in place,
// tensor with tensor and with a scalar either side, gives each element's
// own IEEE result and writes nothing outside the output.
TEST(ElementwiseTest, DenseLoopsAtEveryAlignment) {
  const ElementwiseOp ops[] = {ElementwiseOp::kAdd, ElementwiseOp::kSub, ElementwiseOp::kMul,
                               ElementwiseOp::kDiv};
  auto apply = [](ElementwiseOp op, float a, float b) {
    switch (op) {
      case ElementwiseOp::kAdd:
        return a + b;
      case ElementwiseOp::kSub:
        return a - b;
      case ElementwiseOp::kMul:
        return a * b;
      default:
        return a / b;
    }
  };
  const float sentinel = -12345.0F;
  for (const ElementwiseOp op : ops) {
    for (int64_t start = 0; start < 9; ++start) {
      for (int64_t n = 1; n < 41; ++n) {
        std::vector<float> a(64);
        std::vector<float> b(64);
        for (int i = 0; i < 64; ++i) {
          a[i] = 1.0F + 0.37F * static_cast<float>(i);
          b[i] = 3.0F - 0.11F * static_cast<float>(i);
        }
        const int64_t shape[] = {n};
        const int64_t s1[] = {1};
        const int64_t s0[] = {0};
        // out = a op b, a op scalar, scalar op b; then a op= b, a op= scalar.
        const struct {
          const int64_t* sa;
          const int64_t* sb;
        } forms[] = {{s1, s1}, {s1, s0}, {s0, s1}};
        for (const auto& f : forms) {
          std::vector<float> out(64, sentinel);
          const Operand in[] = {Of(a, f.sa, start), Of(b, f.sb, start)};
          ASSERT_TRUE(Elementwise(op, Scalar::kFloat32, 1, shape, Of(out, s1, start), in));
          for (int64_t i = 0; i < 64; ++i) {
            const bool inside = i >= start && i < start + n;
            const float want =
                inside ? apply(op, a[f.sa == s1 ? i : start], b[f.sb == s1 ? i : start]) : sentinel;
            ASSERT_EQ(out[i], want) << "start " << start << " n " << n << " i " << i;
          }
        }
        for (const int64_t* sb : {s1, s0}) {
          std::vector<float> x = a;
          const Operand in[] = {Of(x, s1, start), Of(b, sb, start)};
          ASSERT_TRUE(Elementwise(op, Scalar::kFloat32, 1, shape, Of(x, s1, start), in));
          for (int64_t i = 0; i < 64; ++i) {
            const bool inside = i >= start && i < start + n;
            const float want = inside ? apply(op, a[i], b[sb == s1 ? i : start]) : a[i];
            ASSERT_EQ(x[i], want) << "in place, start " << start << " n " << n << " i " << i;
          }
        }
      }
    }
  }
}

TEST(ElementwiseTest, SameBitsForAnyThreadCount) {
  const int saved = GetNumThreads();
  const int64_t rows = 301;
  const int64_t cols = 1001;  // 301k elements: several grains
  std::vector<float> a(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(static_cast<float>(i));
  std::vector<float> col(static_cast<size_t>(rows));
  for (size_t i = 0; i < col.size(); ++i) col[i] = static_cast<float>(i) * 0.5f;
  const int64_t shape[] = {rows, cols};
  const int64_t sa[] = {cols, 1};
  const int64_t sc[] = {1, 0};
  const int64_t transposed[] = {1, rows};
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3, 8}) {
    ASSERT_TRUE(SetNumThreads(threads));
    std::vector<float> out(a.size());
    const Operand in[] = {Of(a, sa), Of(col, sc)};
    ASSERT_TRUE(
        Elementwise(ElementwiseOp::kPow, Scalar::kFloat32, 2, shape, Of(out, transposed), in));
    results.push_back(out);
  }
  SetNumThreads(saved);
  for (size_t k = 1; k < results.size(); ++k) {
    EXPECT_EQ(std::memcmp(results[k].data(), results[0].data(), results[0].size() * sizeof(float)),
              0);
  }
}

}  // namespace
}  // namespace dlnode
