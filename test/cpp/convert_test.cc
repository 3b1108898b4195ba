// src/core/convert: the element rules for every dtype pair, the 16-bit float
// rounding, strided and overlapping copies.
#include "convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using dlnode::ByteRange;
using dlnode::ConvertStrided;
using dlnode::Scalar;
using dlnode::StridedView;

// Converts a contiguous 1-D array of `n` elements.
template <class D, class S>
std::vector<D> Convert1(Scalar dt, Scalar st, const std::vector<S>& src) {
  std::vector<D> dst(src.size());
  const int64_t shape[1] = {static_cast<int64_t>(src.size())};
  const int64_t one[1] = {1};
  char* d = reinterpret_cast<char*>(dst.data());
  char* s = const_cast<char*>(reinterpret_cast<const char*>(src.data()));
  ConvertStrided(1, shape, dt, StridedView{d, one}, ByteRange{d, d + dst.size() * sizeof(D)}, st,
                 StridedView{s, one}, ByteRange{s, s + src.size() * sizeof(S)});
  return dst;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Convert, FloatToIntegerSaturatesAndTruncates) {
  const std::vector<double> in = {kNan, kInf,  -kInf, 1e300,  -1e300,
                                  2.75, -2.75, 127.9, -128.9, -129.0};
  EXPECT_EQ(Convert1<int8_t>(Scalar::kInt8, Scalar::kFloat64, in),
            (std::vector<int8_t>{0, 127, -128, 127, -128, 2, -2, 127, -128, -128}));
  EXPECT_EQ(Convert1<uint8_t>(Scalar::kUint8, Scalar::kFloat64, in),
            (std::vector<uint8_t>{0, 255, 0, 255, 0, 2, 0, 127, 0, 0}));
  const auto i64 =
      Convert1<int64_t>(Scalar::kInt64, Scalar::kFloat64,
                        std::vector<double>{9223372036854775808.0, -9223372036854775808.0, kNan});
  EXPECT_EQ(i64, (std::vector<int64_t>{INT64_MAX, INT64_MIN, 0}));
  const auto u64 = Convert1<uint64_t>(Scalar::kUint64, Scalar::kFloat32,
                                      std::vector<float>{1.8446744e19f, -0.5f, 4294967296.0f});
  EXPECT_EQ(u64, (std::vector<uint64_t>{UINT64_MAX, 0, 4294967296ull}));
  const auto i32 = Convert1<int32_t>(Scalar::kInt32, Scalar::kFloat32,
                                     std::vector<float>{2147483648.0f, -2147483904.0f});
  EXPECT_EQ(i32, (std::vector<int32_t>{INT32_MAX, INT32_MIN}));
}

TEST(Convert, IntegerToIntegerWraps) {
  EXPECT_EQ(Convert1<uint8_t>(Scalar::kUint8, Scalar::kInt32, std::vector<int32_t>{300, -1, 128}),
            (std::vector<uint8_t>{44, 255, 128}));
  EXPECT_EQ(Convert1<int64_t>(Scalar::kInt64, Scalar::kUint64, std::vector<uint64_t>{UINT64_MAX}),
            (std::vector<int64_t>{-1}));
}

TEST(Convert, BoolComplexAndHalf) {
  EXPECT_EQ(Convert1<uint8_t>(Scalar::kBool, Scalar::kFloat32,
                              std::vector<float>{0.0f, -0.0f, NAN, 0.5f}),
            (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(Convert1<int32_t>(Scalar::kInt32, Scalar::kBool, std::vector<uint8_t>{0, 2, 255}),
            (std::vector<int32_t>{0, 1, 1}));
  // complex -> real takes the real part; real -> complex has im 0.
  const std::vector<float> c = {1.5f, 2.0f, -3.25f, 7.0f};
  const std::vector<float>& c_src = c;
  std::vector<double> re(2);
  {
    const int64_t shape[1] = {2};
    const int64_t one[1] = {1};
    char* d = reinterpret_cast<char*>(re.data());
    char* s = const_cast<char*>(reinterpret_cast<const char*>(c_src.data()));
    ConvertStrided(1, shape, Scalar::kFloat64, StridedView{d, one}, ByteRange{d, d + 16},
                   Scalar::kComplex64, StridedView{s, one}, ByteRange{s, s + 16});
  }
  EXPECT_EQ(re, (std::vector<double>{1.5, -3.25}));
  // float16: ties to even, overflow to infinity, NaN stays NaN.
  EXPECT_EQ(dlnode::FloatToHalf(2049.0f), dlnode::FloatToHalf(2048.0f));
  EXPECT_EQ(dlnode::HalfToFloat(dlnode::FloatToHalf(2051.0f)), 2052.0f);
  EXPECT_EQ(dlnode::HalfToFloat(dlnode::FloatToHalf(65520.0f)), INFINITY);
  EXPECT_TRUE(std::isnan(dlnode::HalfToFloat(dlnode::FloatToHalf(NAN))));
  EXPECT_EQ(dlnode::HalfToFloat(1), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(dlnode::Bfloat16ToFloat(dlnode::FloatToBfloat16(257.0f)), 256.0f);
  EXPECT_EQ(dlnode::Bfloat16ToFloat(dlnode::FloatToBfloat16(259.0f)), 260.0f);
  // Every float16 bit pattern survives half -> float -> half.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = dlnode::HalfToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(dlnode::FloatToHalf(f), bits) << bits;
  }
}

TEST(Convert, EveryPairRunsOnEveryLayout) {
  // All 225 loops on a strided 2-D source with a negative stride: uint8
  // 1..6 -> S (contiguous), S -> D (strided), D -> float64; small integers
  // are exact in every dtype, and bool turns them all into 1.
  const std::vector<uint8_t> seed = {1, 2, 3, 4, 5, 6};
  const int64_t one[1] = {1};
  const int64_t six[1] = {6};
  for (int di = 0; di < dlnode::kScalarCount; ++di) {
    for (int si = 0; si < dlnode::kScalarCount; ++si) {
      const auto dt = static_cast<Scalar>(di);
      const auto st = static_cast<Scalar>(si);
      std::vector<char> src(6 * dlnode::ScalarSize(st));
      std::vector<char> dst(6 * dlnode::ScalarSize(dt));
      char* seed_p = const_cast<char*>(reinterpret_cast<const char*>(seed.data()));
      ConvertStrided(1, six, st, StridedView{src.data(), one},
                     ByteRange{src.data(), src.data() + src.size()}, Scalar::kUint8,
                     StridedView{seed_p, one}, ByteRange{seed_p, seed_p + 6});
      const int64_t shape[2] = {2, 3};
      const int64_t sstr[2] = {1, -2};  // src[i][j] is element 4 - 2j + i
      const int64_t dstr[2] = {3, 1};
      ConvertStrided(2, shape, dt, StridedView{dst.data(), dstr},
                     ByteRange{dst.data(), dst.data() + dst.size()}, st,
                     StridedView{src.data() + 4 * dlnode::ScalarSize(st), sstr},
                     ByteRange{src.data(), src.data() + src.size()});
      std::vector<double> out(6);
      char* o = reinterpret_cast<char*>(out.data());
      ConvertStrided(1, six, Scalar::kFloat64, StridedView{o, one}, ByteRange{o, o + 48}, dt,
                     StridedView{dst.data(), one}, ByteRange{dst.data(), dst.data() + dst.size()});
      const bool to_bool = dt == Scalar::kBool || st == Scalar::kBool;
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          const double want = to_bool ? 1.0 : static_cast<double>(seed[4 - 2 * j + i]);
          ASSERT_EQ(out[i * 3 + j], want) << di << " <- " << si << " at " << i << "," << j;
        }
      }
    }
  }
}

TEST(Convert, OverlappingRangesReadEverySourceElementFirst) {
  std::vector<int32_t> buf = {0, 1, 2, 3, 4, 5, 6, 7};
  char* base = reinterpret_cast<char*>(buf.data());
  const int64_t shape[1] = {7};
  const int64_t one[1] = {1};
  // Shift right by one in place: a naive forward loop would smear element 0.
  ConvertStrided(1, shape, Scalar::kInt32, StridedView{base + 4, one},
                 ByteRange{base + 4, base + 32}, Scalar::kInt32, StridedView{base, one},
                 ByteRange{base, base + 28});
  EXPECT_EQ(buf, (std::vector<int32_t>{0, 0, 1, 2, 3, 4, 5, 6}));
  // Reversing int32 into float32 over the same bytes.
  std::vector<int32_t> ints = {1, 2, 3, 4};
  char* p = reinterpret_cast<char*>(ints.data());
  const int64_t four[1] = {4};
  const int64_t back[1] = {-1};
  ConvertStrided(1, four, Scalar::kFloat32, StridedView{p, one}, ByteRange{p, p + 16},
                 Scalar::kInt32, StridedView{p + 12, back}, ByteRange{p, p + 16});
  float f[4];
  std::memcpy(f, p, 16);
  EXPECT_EQ(f[0], 4.0f);
  EXPECT_EQ(f[3], 1.0f);
}

}  // namespace
