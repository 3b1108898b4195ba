// src/core/compute/sort and scan: torch 2.13's order (NaN as the largest,
// -0 equal to 0, stable in both directions; test/cpp/data/
// make_vision_values.py), every real dtype against std::stable_sort of the
// values, strided lanes and values written over the input, int32 indices;
// cumsum and cumprod with torch's result types (int64 wrapping for
// integers, double accumulation rounded once for floats), in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "compute/scan.h"
#include "compute/sort.h"
#include "compute_test_util.h"

namespace {

using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::RandomFloats;
using compute_test::ViewOf;
using dlnode::Scalar;
using namespace dlnode::compute;  // NOLINT(google-build-using-namespace): the unit under test

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<int64_t> SortIndices(std::vector<float> v, bool descending,
                                 std::vector<float>* values) {
  const auto n = static_cast<int64_t>(v.size());
  std::vector<int64_t> idx(v.size());
  values->assign(v.size(), 0);
  Dims d{{n}, {1}};
  SortArgs args;
  args.in = ViewOf(v.data(), Scalar::kFloat32, d);
  args.descending = descending;
  args.values = ViewOf(values->data(), Scalar::kFloat32, d);
  args.indices = ViewOf(idx.data(), Scalar::kInt64, d);
  EXPECT_TRUE(Sort(args).ok());
  return idx;
}

TEST(SortTest, TorchOrder) {
  const std::vector<float> v = {3.0F, kNaN, -1.0F, 3.0F, 0.0F, -0.0F, kInf, 2.0F, kNaN, -kInf};
  std::vector<float> values;
  EXPECT_EQ(SortIndices(v, false, &values), (std::vector<int64_t>{9, 2, 4, 5, 7, 0, 3, 6, 1, 8}));
  EXPECT_TRUE(std::isnan(values[8]) && std::isnan(values[9]));
  EXPECT_EQ(values[0], -kInf);
  EXPECT_TRUE(std::signbit(values[3]));  // -0 kept where it was among the zeros
  EXPECT_EQ(SortIndices(v, true, &values), (std::vector<int64_t>{1, 8, 6, 0, 3, 7, 4, 5, 2, 9}));
}

template <class T>
void CheckAgainstStableSort(Scalar type, const std::vector<T>& data, int64_t rows, int64_t n) {
  for (const bool descending : {false, true}) {
    std::vector<T> in = data, values(data.size());
    std::vector<int32_t> idx(data.size());
    // Lanes are columns: a strided last dim.
    Dims din{{n, rows}, {1, n}};
    Dims dout{{n, rows}, {1, n}};
    SortArgs args;
    args.in = ViewOf(in.data(), type, din);
    args.descending = descending;
    args.values = ViewOf(values.data(), type, dout);
    args.indices = ViewOf(idx.data(), Scalar::kInt32, dout);
    ASSERT_TRUE(Sort(args).ok());
    for (int64_t lane = 0; lane < n; ++lane) {
      std::vector<int32_t> want(rows);
      std::iota(want.begin(), want.end(), 0);
      std::stable_sort(want.begin(), want.end(), [&](int32_t a, int32_t b) {
        const T x = data[lane + a * n], y = data[lane + b * n];
        return descending ? y < x : x < y;
      });
      for (int64_t i = 0; i < rows; ++i) {
        ASSERT_EQ(idx[lane + i * n], want[i]) << descending << " lane " << lane << " i " << i;
        ASSERT_EQ(values[lane + i * n], data[lane + want[i] * n]);
      }
    }
  }
}

TEST(SortTest, EveryRealTypeAgreesWithStableSort) {
  const int64_t rows = 300, n = 3;
  std::vector<int64_t> i64(rows * n);
  std::vector<uint8_t> u8(rows * n);
  std::vector<double> f64(rows * n);
  const auto f = RandomFloats(rows * n, 1, -50.0F, 50.0F);
  for (size_t i = 0; i < f.size(); ++i) {
    i64[i] = static_cast<int64_t>(f[i]) * 1000000007LL;
    u8[i] = static_cast<uint8_t>(static_cast<int>(f[i]) & 7);  // many ties
    f64[i] = std::round(f[i]);                                 // ties
  }
  CheckAgainstStableSort(Scalar::kInt64, i64, rows, n);
  CheckAgainstStableSort(Scalar::kUint8, u8, rows, n);
  CheckAgainstStableSort(Scalar::kFloat64, f64, rows, n);
}

TEST(SortTest, ValuesMayOverwriteTheInput) {
  std::vector<float> v = {5.0F, 1.0F, 4.0F, 2.0F, 3.0F};
  std::vector<int64_t> idx(5);
  Dims d{{5}, {1}};
  SortArgs args;
  args.in = ViewOf(v.data(), Scalar::kFloat32, d);
  args.values = args.in;
  args.indices = ViewOf(idx.data(), Scalar::kInt64, d);
  ASSERT_TRUE(Sort(args).ok());
  EXPECT_EQ(v, (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(idx, (std::vector<int64_t>{1, 3, 4, 2, 0}));
}

TEST(ScanTest, TorchValuesAndTypes) {
  std::vector<int8_t> in = {100, 100, 100, -50, 7, 1};
  std::vector<int64_t> out(6);
  Dims d{{6}, {1}};
  ASSERT_TRUE(
      Scan({false, ViewOf(in.data(), Scalar::kInt8, d), ViewOf(out.data(), Scalar::kInt64, d), {}})
          .ok());
  EXPECT_EQ(out, (std::vector<int64_t>{100, 200, 300, 250, 257, 258}));
  std::vector<float> f = {0.1F, 3.0F, 7.0F, 1e-3F, 2.5F, 1.1F};
  std::vector<float> fo(6);
  ASSERT_TRUE(
      Scan(
          {true, ViewOf(f.data(), Scalar::kFloat32, d), ViewOf(fo.data(), Scalar::kFloat32, d), {}})
          .ok());
  const std::vector<float> torch = {0.100000001F,   0.300000012F,   2.10000014F,
                                    0.00210000016F, 0.00525000039F, 0.00577500043F};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(fo[i], torch[i]) << i;
  // An int8 out (dtype=int8) wraps as torch's does.
  std::vector<int8_t> small(6);
  ASSERT_TRUE(
      Scan({false, ViewOf(in.data(), Scalar::kInt8, d), ViewOf(small.data(), Scalar::kInt8, d), {}})
          .ok());
  EXPECT_EQ(small, (std::vector<int8_t>{100, -56, 44, -6, 1, 2}));
  // bool counts.
  std::vector<uint8_t> flags = {1, 0, 1, 1, 0, 1};
  ASSERT_TRUE(Scan({false,
                    ViewOf(flags.data(), Scalar::kBool, d),
                    ViewOf(out.data(), Scalar::kInt64, d),
                    {}})
                  .ok());
  EXPECT_EQ(out, (std::vector<int64_t>{1, 1, 2, 3, 3, 4}));
}

// A float32 cumsum accumulates in double: 1 + 1e-8 * k is exact there and
// rounds once per output (a float accumulator would stay at 1 forever).
TEST(ScanTest, FloatsAccumulateInDoubleAndMayRunInPlace) {
  const int64_t rows = 3, n = 1000;
  std::vector<float> x(rows * n, 1e-8F);
  for (int64_t r = 0; r < rows; ++r) x[r * n] = 1.0F;
  Dims d{{rows, n}, Contiguous({rows, n})};
  ASSERT_TRUE(
      Scan(
          {false, ViewOf(x.data(), Scalar::kFloat32, d), ViewOf(x.data(), Scalar::kFloat32, d), {}})
          .ok());
  for (int64_t r = 0; r < rows; ++r) {
    double acc = 1.0;
    for (int64_t i = 1; i < n; ++i) {
      acc += static_cast<double>(1e-8F);
      ASSERT_EQ(x[r * n + i], static_cast<float>(acc)) << i;
    }
  }
}

}  // namespace
