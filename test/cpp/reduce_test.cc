// src/core/compute/reduce*: result dtypes, pairwise sums (accuracy, and the same bits
// for any thread count), strided and negative-stride inputs, NaN rules,
// first-index ties, softmax stability and topk order.
#include "compute/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "parallel.h"
#include "strided_loop.h"

namespace {

using dlnode::ReduceOp;
using dlnode::Scalar;
using dlnode::StridedInput;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

template <class T>
StridedInput Input(const T* first, Scalar type, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& strides) {
  return StridedInput{reinterpret_cast<const char*>(first), type, static_cast<int>(shape.size()),
                      shape.data(), strides.data()};
}

template <class O, class T>
std::vector<O> Reduce(ReduceOp op, const T* first, Scalar type, const std::vector<int64_t>& shape,
                      const std::vector<int64_t>& strides, int reduced, size_t results) {
  std::vector<O> out(results);
  dlnode::Reduce(op, Input(first, type, shape, strides), reduced,
                 reinterpret_cast<char*>(out.data()));
  return out;
}

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

class ReduceTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = dlnode::GetNumThreads(); }
  void TearDown() override { dlnode::SetNumThreads(saved_); }
  int saved_ = 1;
};

TEST_F(ReduceTest, ResultTypesFollowTorch) {
  Scalar out;
  ASSERT_TRUE(dlnode::ResultType(ReduceOp::kSum, Scalar::kBool, &out));
  EXPECT_EQ(out, Scalar::kInt64);
  ASSERT_TRUE(dlnode::ResultType(ReduceOp::kSum, Scalar::kUint8, &out));
  EXPECT_EQ(out, Scalar::kInt64);
  ASSERT_TRUE(dlnode::ResultType(ReduceOp::kSum, Scalar::kFloat16, &out));
  EXPECT_EQ(out, Scalar::kFloat16);
  EXPECT_FALSE(dlnode::ResultType(ReduceOp::kMean, Scalar::kInt32, &out));
  EXPECT_TRUE(dlnode::ResultType(ReduceOp::kMean, Scalar::kComplex64, &out));
  EXPECT_FALSE(dlnode::ResultType(ReduceOp::kAmax, Scalar::kComplex64, &out));
  EXPECT_FALSE(dlnode::ResultType(ReduceOp::kSoftmax, Scalar::kInt64, &out));
  EXPECT_TRUE(dlnode::ResultType(ReduceOp::kSoftmax, Scalar::kBfloat16, &out));
  EXPECT_TRUE(dlnode::ResultType(ReduceOp::kTopk, Scalar::kBool, &out));
}

TEST_F(ReduceTest, Float32SumIsPairwiseAccurate) {
  // 10^7 copies of 0.1f: a running float sum drifts by about 10%; pairwise
  // summation stays within a few ulps of the exact value.
  const size_t n = 10000000;
  std::vector<float> v(n, 0.1f);
  const double exact = static_cast<double>(0.1f) * static_cast<double>(n);
  float naive = 0;
  for (float x : v) naive += x;
  const auto got = Reduce<float>(ReduceOp::kSum, v.data(), Scalar::kFloat32,
                                 {static_cast<int64_t>(n)}, {1}, 1, 1);
  EXPECT_GT(std::fabs(naive - exact) / exact, 1e-2);
  EXPECT_LT(std::fabs(got[0] - exact) / exact, 1e-6);
}

TEST_F(ReduceTest, SameBitsForAnyThreadCount) {
  const std::vector<float> v = Random(3 * 200003, 7);
  // A full reduction (blocked), rows (one per thread chunk), columns (strided).
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    int reduced;
    size_t results;
  };
  const Case cases[] = {
      {{3 * 200003}, {1}, 1, 1},
      {{3, 200003}, {200003, 1}, 1, 3},
      {{200003, 3}, {1, 200003}, 1, 200003},
      {{3, 200003}, {200003, 1}, 2, 1},
  };
  for (const Case& c : cases) {
    std::vector<std::vector<float>> results;
    for (int threads : {1, 2, 3, 4}) {
      ASSERT_TRUE(dlnode::SetNumThreads(threads));
      results.push_back(Reduce<float>(ReduceOp::kSum, v.data(), Scalar::kFloat32, c.shape,
                                      c.strides, c.reduced, c.results));
    }
    for (size_t t = 1; t < results.size(); ++t) {
      for (size_t i = 0; i < c.results; ++i)
        ASSERT_EQ(Bits(results[t][i]), Bits(results[0][i])) << i;
    }
  }
}

TEST_F(ReduceTest, SameBitsForAnyLayoutOfTheSameSequence) {
  // 1000 values dense, every other element of a 2000-element buffer, and as
  // a [10, 100] block read through a transposed view (two reduced dims, the
  // walker): the order is fixed by the count, so the bits agree.
  const std::vector<float> v = Random(1000, 3);
  std::vector<float> spaced(2000);
  std::vector<float> transposed(1000);
  for (size_t i = 0; i < 1000; ++i) {
    spaced[2 * i] = v[i];
    transposed[(i % 100) * 10 + i / 100] = v[i];  // element (r, c) = v[r * 100 + c] at [c][r]
  }
  const float dense =
      Reduce<float>(ReduceOp::kSum, v.data(), Scalar::kFloat32, {1000}, {1}, 1, 1)[0];
  const float strided =
      Reduce<float>(ReduceOp::kSum, spaced.data(), Scalar::kFloat32, {1000}, {2}, 1, 1)[0];
  const float walked = Reduce<float>(ReduceOp::kSum, transposed.data(), Scalar::kFloat32, {10, 100},
                                     {1, 10}, 2, 1)[0];
  EXPECT_EQ(Bits(strided), Bits(dense));
  EXPECT_EQ(Bits(walked), Bits(dense));
  // Every shape of Ordered()'s tree (one leaf, two, four side by side with
  // equal and unequal counts, deeper trees, a tail), float32 and float64,
  // sum, amax and amin: the dense loops give the strided walk's bits.
  for (const int64_t n :
       {7, 8, 200, 256, 264, 520, 536, 777, 792, 1000, 1016, 1019, 1024, 4096, 100003}) {
    const std::vector<float> f = Random(static_cast<size_t>(n), 11);
    std::vector<float> f2(2 * f.size());
    std::vector<double> d(f.begin(), f.end());
    std::vector<double> d2(2 * d.size());
    for (size_t i = 0; i < f.size(); ++i) {
      f2[2 * i] = f[i];
      d2[2 * i] = d[i] * 1.000000001;
      d[i] = d2[2 * i];
    }
    for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kAmax, ReduceOp::kAmin}) {
      EXPECT_EQ(Bits(Reduce<float>(op, f.data(), Scalar::kFloat32, {n}, {1}, 1, 1)[0]),
                Bits(Reduce<float>(op, f2.data(), Scalar::kFloat32, {n}, {2}, 1, 1)[0]))
          << n;
      const double dense = Reduce<double>(op, d.data(), Scalar::kFloat64, {n}, {1}, 1, 1)[0];
      const double walked = Reduce<double>(op, d2.data(), Scalar::kFloat64, {n}, {2}, 1, 1)[0];
      EXPECT_EQ(Bits(dense), Bits(walked)) << n;
    }
  }
  const float top =
      Reduce<float>(ReduceOp::kAmax, spaced.data(), Scalar::kFloat32, {1000}, {2}, 1, 1)[0];
  EXPECT_EQ(top,
            (Reduce<float>(ReduceOp::kAmax, v.data(), Scalar::kFloat32, {1000}, {1}, 1, 1)[0]));
}

// Sums over a dim that is not the inner one, whose outputs are neighbours
// (sum(0) of a row-major matrix, and of a [2, n, 5] block over its middle
// dim): computed a run of columns at a time, each output with the bits of its
// column summed alone, for 1 to 130 columns (several runs), 1 and 3 threads,
// float32 and float64, sum and mean.
TEST_F(ReduceTest, ColumnSumsHaveTheBitsOfEachColumnAlone) {
  for (const int64_t n : {3, 8, 300, 1000, 4097}) {
    for (const int64_t columns : {1, 5, 64, 70, 130}) {
      const std::vector<float> v = Random(static_cast<size_t>(n * columns), 5);
      const std::vector<double> d(v.begin(), v.end());
      for (const int threads : {1, 3}) {
        ASSERT_TRUE(dlnode::SetNumThreads(threads));
        for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean}) {
          const auto sums = Reduce<float>(op, v.data(), Scalar::kFloat32, {columns, n},
                                          {1, columns}, 1, static_cast<size_t>(columns));
          const auto dsums = Reduce<double>(op, d.data(), Scalar::kFloat64, {columns, n},
                                            {1, columns}, 1, static_cast<size_t>(columns));
          for (int64_t c = 0; c < columns; ++c) {
            std::vector<float> column(static_cast<size_t>(n));
            std::vector<double> dcolumn(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) {
              column[static_cast<size_t>(i)] = v[static_cast<size_t>(i * columns + c)];
              dcolumn[static_cast<size_t>(i)] = d[static_cast<size_t>(i * columns + c)];
            }
            const float alone =
                Reduce<float>(op, column.data(), Scalar::kFloat32, {n}, {1}, 1, 1)[0];
            const double dalone =
                Reduce<double>(op, dcolumn.data(), Scalar::kFloat64, {n}, {1}, 1, 1)[0];
            ASSERT_EQ(Bits(sums[static_cast<size_t>(c)]), Bits(alone)) << n << " " << c;
            ASSERT_EQ(Bits(dsums[static_cast<size_t>(c)]), Bits(dalone));
          }
        }
      }
    }
  }
  // [2, n, 5] over its middle dim: outputs [2, 5], runs of 5 columns.
  const int64_t n = 777;
  const std::vector<float> v = Random(static_cast<size_t>(2 * n * 5), 9);
  const auto sums =
      Reduce<float>(ReduceOp::kSum, v.data(), Scalar::kFloat32, {2, 5, n}, {n * 5, 1, 5}, 1, 10);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t c = 0; c < 5; ++c) {
      std::vector<float> column(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        column[static_cast<size_t>(i)] = v[static_cast<size_t>(b * n * 5 + i * 5 + c)];
      }
      ASSERT_EQ(
          Bits(sums[static_cast<size_t>(b * 5 + c)]),
          Bits(Reduce<float>(ReduceOp::kSum, column.data(), Scalar::kFloat32, {n}, {1}, 1, 1)[0]));
    }
  }
}

TEST_F(ReduceTest, StridedAndNegativeStridesMatchAPlainLoop) {
  std::vector<double> v(120);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) * 0.5 - 7;
  // The view [i][j][k] = v[(3 - i) * 30 + k * 6 + j] over shape [4, 6, 5],
  // kept dim j (6), reduced i (4) and k (5): shape [6, 4, 5], strides [1, -30, 6].
  const double* first = v.data() + 3 * 30;
  const auto got =
      Reduce<double>(ReduceOp::kSum, first, Scalar::kFloat64, {6, 4, 5}, {1, -30, 6}, 2, 6);
  for (int j = 0; j < 6; ++j) {
    double want = 0;
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 5; ++k)
        want +=
            v[static_cast<size_t>(i) * 30 + static_cast<size_t>(k) * 6 + static_cast<size_t>(j)];
    }
    EXPECT_DOUBLE_EQ(got[static_cast<size_t>(j)], want) << j;
  }
  const auto top =
      Reduce<double>(ReduceOp::kAmax, first, Scalar::kFloat64, {6, 4, 5}, {1, -30, 6}, 2, 6);
  for (int j = 0; j < 6; ++j)
    EXPECT_EQ(top[static_cast<size_t>(j)], v[static_cast<size_t>(j) + 3 * 30 + 4 * 6]);
}

TEST_F(ReduceTest, IntegerSumsAreInt64AndWrap) {
  const std::vector<int8_t> small = {-128, -128, 127, 5};
  EXPECT_EQ((Reduce<int64_t>(ReduceOp::kSum, small.data(), Scalar::kInt8, {4}, {1}, 1, 1)[0]),
            -124);
  const std::vector<int64_t> big = {std::numeric_limits<int64_t>::max(), 1};
  EXPECT_EQ((Reduce<int64_t>(ReduceOp::kSum, big.data(), Scalar::kInt64, {2}, {1}, 1, 1)[0]),
            std::numeric_limits<int64_t>::min());
  const std::vector<uint8_t> flags = {1, 0, 2, 1};  // a bool byte other than 1 counts once
  EXPECT_EQ((Reduce<int64_t>(ReduceOp::kSum, flags.data(), Scalar::kBool, {4}, {1}, 1, 1)[0]), 3);
}

TEST_F(ReduceTest, EmptyReductions) {
  const float none = 0;
  EXPECT_EQ((Reduce<float>(ReduceOp::kSum, &none, Scalar::kFloat32, {2, 0}, {0, 1}, 1, 2)),
            (std::vector<float>{0, 0}));
  const auto mean = Reduce<float>(ReduceOp::kMean, &none, Scalar::kFloat32, {2, 0}, {0, 1}, 1, 2);
  EXPECT_TRUE(std::isnan(mean[0]) && std::isnan(mean[1]));
}

TEST_F(ReduceTest, NanPropagatesThroughAmaxAndAmin) {
  const std::vector<float> v = {1, kNan, 3, -2, 5, 0};
  const auto top = Reduce<float>(ReduceOp::kAmax, v.data(), Scalar::kFloat32, {2, 3}, {3, 1}, 1, 2);
  EXPECT_TRUE(std::isnan(top[0]));
  EXPECT_EQ(top[1], 5);
  const auto low = Reduce<float>(ReduceOp::kAmin, v.data(), Scalar::kFloat32, {3, 2}, {1, 3}, 1, 3);
  EXPECT_EQ(low[0], -2);
  EXPECT_TRUE(std::isnan(low[1]));
  EXPECT_EQ(low[2], 0);
}

TEST_F(ReduceTest, HalfMeanRoundsTheSumThenTheQuotient) {
  // torch: mean = (sum rounded to float16) / n, rounded. 2048 + 1 + 0 is
  // 2049 in float32 and 2048 in float16 (spacing 2, ties to even): the mean
  // is float16(2048 / 3) = 682.5, where one rounding of 2049 / 3 gives 683.
  const std::vector<uint16_t> h = {dlnode::FloatToHalf(2048), dlnode::FloatToHalf(1),
                                   dlnode::FloatToHalf(0)};
  const auto got = Reduce<uint16_t>(ReduceOp::kMean, h.data(), Scalar::kFloat16, {3}, {1}, 1, 1);
  EXPECT_EQ(dlnode::HalfToFloat(got[0]), 682.5f);
}

TEST_F(ReduceTest, ArgExtremeTakesTheFirstIndexAndTheFirstNan) {
  const std::vector<float> v = {1, 3, 3, kNan, 2, kNan, 5, 5, 1, 1, 0, 5};
  std::vector<float> values(2);
  std::vector<int64_t> indices(2);
  const int64_t out_strides[2] = {1, 0};
  dlnode::ArgExtreme(ReduceOp::kMax, Input(v.data(), Scalar::kFloat32, {2, 6}, {6, 1}), 1,
                     reinterpret_cast<char*>(values.data()), indices.data(), out_strides);
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_EQ(indices, (std::vector<int64_t>{3, 0}));
  dlnode::ArgExtreme(ReduceOp::kMin, Input(v.data(), Scalar::kFloat32, {2, 6}, {6, 1}), 1, nullptr,
                     indices.data(), out_strides);
  EXPECT_EQ(indices, (std::vector<int64_t>{3, 4}));
}

TEST_F(ReduceTest, SoftmaxIsStableAndLogSoftmaxAgrees) {
  const std::vector<float> v = {1000, 1001, 1002, -5, 0, 5};
  std::vector<float> p(6);
  std::vector<float> lp(6);
  const int64_t strides[2] = {3, 1};
  dlnode::Softmax(ReduceOp::kSoftmax, Input(v.data(), Scalar::kFloat32, {2, 3}, {3, 1}), 1,
                  reinterpret_cast<char*>(p.data()), strides);
  dlnode::Softmax(ReduceOp::kLogSoftmax, Input(v.data(), Scalar::kFloat32, {2, 3}, {3, 1}), 1,
                  reinterpret_cast<char*>(lp.data()), strides);
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  EXPECT_NEAR(p[2], 1 / z, 1e-7);
  EXPECT_NEAR(p[0], std::exp(-2.0) / z, 1e-7);
  for (size_t i = 0; i < 6; ++i) {
    ASSERT_TRUE(std::isfinite(p[i]));
    EXPECT_NEAR(std::exp(lp[i]), p[i], 1e-6);
  }
  EXPECT_NEAR(lp[5], -std::log(1 + std::exp(-5.0) + std::exp(-10.0)), 1e-6);
}

TEST_F(ReduceTest, Float32SoftmaxIsWithinAFewUlpsAndKeepsNan) {
  // One lane of 2000 values from 0 down to -80 (exp from 1 to 1.8e-35).
  std::vector<float> v(2000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = -0.04f * static_cast<float>(i);
  std::vector<float> p(v.size());
  const int64_t strides[1] = {1};
  dlnode::Softmax(ReduceOp::kSoftmax, Input(v.data(), Scalar::kFloat32, {2000}, {1}), 0,
                  reinterpret_cast<char*>(p.data()), strides);
  double total = 0;
  for (float x : v) total += std::exp(static_cast<double>(x));
  for (size_t i = 0; i < v.size(); ++i) {
    const double want = std::exp(static_cast<double>(v[i])) / total;
    ASSERT_NEAR(p[i], want, 4e-7 * want) << i;
  }
  const std::vector<float> bad = {1, kNan, 2, -std::numeric_limits<float>::infinity()};
  std::vector<float> q(4);
  dlnode::Softmax(ReduceOp::kSoftmax, Input(bad.data(), Scalar::kFloat32, {4}, {1}), 0,
                  reinterpret_cast<char*>(q.data()), strides);
  for (float x : q) EXPECT_TRUE(std::isnan(x));
  const std::vector<float> inf = {0, -std::numeric_limits<float>::infinity()};
  dlnode::Softmax(ReduceOp::kSoftmax, Input(inf.data(), Scalar::kFloat32, {2}, {1}), 0,
                  reinterpret_cast<char*>(q.data()), strides);
  EXPECT_EQ(q[0], 1);
  EXPECT_EQ(q[1], 0);
}

// The dense float32 lane (contiguous in and out) against the general path
// (the same values read through a transposed layout): the same bits, for
// lanes shorter than, equal to and longer than one row of eight, one leaf of
// rows and several; NaN in a lane's rows (not only its tail) and at its
// first element, and -inf, included.
TEST_F(ReduceTest, DenseFloat32SoftmaxLaneMatchesTheStridedPath) {
  constexpr int64_t kRows = 5;
  for (const int64_t len : {1, 3, 8, 9, 256, 257, 1003}) {
    std::vector<float> dense = Random(kRows * len, 7);
    for (float& x : dense) x *= 30;
    dense[1 * len + len / 2] = kNan;
    dense[3 * len] = kNan;
    dense[2 * len + len - 1] = -std::numeric_limits<float>::infinity();
    std::vector<float> columns(dense.size());  // [len, kRows], read as its transpose
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t i = 0; i < len; ++i) columns[i * kRows + r] = dense[r * len + i];
    }
    for (ReduceOp op : {ReduceOp::kSoftmax, ReduceOp::kLogSoftmax}) {
      std::vector<float> a(dense.size());
      std::vector<float> b(dense.size());
      const int64_t out_strides[2] = {len, 1};
      dlnode::Softmax(op, Input(dense.data(), Scalar::kFloat32, {kRows, len}, {len, 1}), 1,
                      reinterpret_cast<char*>(a.data()), out_strides);
      dlnode::Softmax(op, Input(columns.data(), Scalar::kFloat32, {kRows, len}, {1, kRows}), 1,
                      reinterpret_cast<char*>(b.data()), out_strides);
      for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(Bits(a[i]), Bits(b[i])) << len << " " << i;
      for (int64_t i = 0; i < len; ++i) {
        ASSERT_TRUE(std::isnan(a[len + i])) << i;
        ASSERT_TRUE(std::isnan(a[3 * len + i])) << i;
      }
      if (len > 1) {
        EXPECT_EQ(a[2 * len + len - 1],
                  op == ReduceOp::kSoftmax ? 0.0F : -std::numeric_limits<float>::infinity());
        EXPECT_TRUE(std::isfinite(a[2 * len]));
      }
    }
  }
}

// The dense lane's maximum is taken in four running maxima of eight lanes and
// a scalar tail: the largest element at every position of lanes around those
// widths gives the strided path's bits (a maximum missed by one accumulator or
// the tail shifts every exp, and these values would overflow).
TEST_F(ReduceTest, DenseFloat32SoftmaxFindsTheMaximumAnywhere) {
  for (const int64_t len : {7, 8, 31, 32, 33, 40, 63, 64, 65, 100}) {
    for (int64_t at = 0; at < len; ++at) {
      std::vector<float> x = Random(len, 11);
      x[at] = 100;
      std::vector<float> dense(len);
      std::vector<float> strided(len);
      const int64_t out_strides[1] = {1};
      dlnode::Softmax(ReduceOp::kSoftmax, Input(x.data(), Scalar::kFloat32, {len}, {1}), 0,
                      reinterpret_cast<char*>(dense.data()), out_strides);
      std::vector<float> spaced(2 * len);  // every other element: not the dense lane
      for (int64_t i = 0; i < len; ++i) spaced[2 * i] = x[i];
      dlnode::Softmax(ReduceOp::kSoftmax, Input(spaced.data(), Scalar::kFloat32, {len}, {2}), 0,
                      reinterpret_cast<char*>(strided.data()), out_strides);
      for (int64_t i = 0; i < len; ++i)
        ASSERT_EQ(Bits(dense[i]), Bits(strided[i])) << len << " " << at;
      ASSERT_GT(dense[at], 0.99F) << len << " " << at;
    }
  }
}

TEST_F(ReduceTest, TopKOrdersNanFirstAndTiesByIndex) {
  const std::vector<float> v = {1, 3, 3, kNan, 2, kNan};
  std::vector<float> values(3);
  std::vector<int64_t> indices(3);
  const int64_t strides[1] = {1};
  dlnode::TopK(Input(v.data(), Scalar::kFloat32, {6}, {1}), 0, 3, true, true,
               reinterpret_cast<char*>(values.data()), indices.data(), strides);
  EXPECT_EQ(indices, (std::vector<int64_t>{3, 5, 1}));
  EXPECT_EQ(values[2], 3);
  dlnode::TopK(Input(v.data(), Scalar::kFloat32, {6}, {1}), 0, 3, false, true,
               reinterpret_cast<char*>(values.data()), indices.data(), strides);
  EXPECT_EQ(indices, (std::vector<int64_t>{0, 4, 1}));
  EXPECT_EQ(values, (std::vector<float>{1, 2, 3}));
  // Reversed: the same lane read backwards.
  dlnode::TopK(Input(v.data() + 5, Scalar::kFloat32, {6}, {-1}), 0, 2, false, true,
               reinterpret_cast<char*>(values.data()), indices.data(), strides);
  EXPECT_EQ((std::vector<int64_t>{indices[0], indices[1]}), (std::vector<int64_t>{5, 1}));
}

// The walk's reorder (reduce_walk.h, strided_loop.h): strides shrink from the
// outside in, decided by the first operand that tells two dims apart (a zero
// stride tells nothing), ties keeping their order.
TEST(ReduceWalk, ReorderByStrideSortsByTheFirstOperandThatDiffers) {
  dlnode::strided::Plan p;
  p.ndim = 3;
  p.n = 2;
  const int64_t shape[3] = {2, 3, 4};
  const int64_t s0[3] = {1, 0, 2};     // the output: dim 1 broadcast
  const int64_t s1[3] = {-12, 4, 12};  // the input decides dim 1 against the others
  for (int d = 0; d < 3; ++d) {
    p.shape[d] = shape[d];
    p.strides[0][d] = s0[d];
    p.strides[1][d] = s1[d];
  }
  dlnode::strided::ReorderByStride(&p);
  EXPECT_EQ(std::vector<int64_t>(p.shape, p.shape + 3), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(std::vector<int64_t>(p.strides[0], p.strides[0] + 3), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(std::vector<int64_t>(p.strides[1], p.strides[1] + 3),
            (std::vector<int64_t>{12, -12, 4}));
}

TEST(ReduceWalk, UnravelGivesEachOperandsOffset) {
  dlnode::strided::Plan p;
  p.ndim = 2;
  p.n = 2;
  p.shape[0] = 3;
  p.shape[1] = 5;
  p.strides[0][0] = 5;
  p.strides[0][1] = 1;
  p.strides[1][0] = -1;
  p.strides[1][1] = 3;
  int64_t index[2];
  int64_t offsets[2];
  dlnode::strided::Unravel(p, 13, index, offsets);  // row 2, column 3
  EXPECT_EQ(index[0], 2);
  EXPECT_EQ(index[1], 3);
  EXPECT_EQ(offsets[0], 13);
  EXPECT_EQ(offsets[1], -2 + 9);
}

// The lanes are walked in the output's stride order, then coalesced: every
// output layout gets the same values at the same logical places, at any
// thread count.
TEST_F(ReduceTest, LanesGiveTheSameResultsInAnyOutputLayout) {
  const std::vector<float> v = Random(4 * 6 * 50, 11);
  const std::vector<int64_t> shape = {4, 6, 50};
  const std::vector<int64_t> strides = {300, 50, 1};
  for (int threads : {1, 3}) {
    dlnode::SetNumThreads(threads);
    std::vector<float> row_major(v.size());
    std::vector<float> transposed(v.size());
    const int64_t rm[3] = {300, 50, 1};
    const int64_t tr[3] = {50, 200, 1};  // dims 0 and 1 swapped in memory
    for (ReduceOp op : {ReduceOp::kSoftmax, ReduceOp::kLogSoftmax}) {
      dlnode::Softmax(op, Input(v.data(), Scalar::kFloat32, shape, strides), 2,
                      reinterpret_cast<char*>(row_major.data()), rm);
      dlnode::Softmax(op, Input(v.data(), Scalar::kFloat32, shape, strides), 2,
                      reinterpret_cast<char*>(transposed.data()), tr);
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t j = 0; j < 6; ++j) {
          for (int64_t x = 0; x < 50; ++x) {
            ASSERT_EQ(Bits(row_major[i * 300 + j * 50 + x]),
                      Bits(transposed[i * 50 + j * 200 + x]));
          }
        }
      }
    }
    std::vector<float> values_rm(24 * 3);
    std::vector<float> values_tr(24 * 3);
    std::vector<int64_t> indices_rm(24 * 3);
    std::vector<int64_t> indices_tr(24 * 3);
    const int64_t krm[3] = {18, 3, 1};
    const int64_t ktr[3] = {3, 12, 1};
    dlnode::TopK(Input(v.data(), Scalar::kFloat32, shape, strides), 2, 3, true, true,
                 reinterpret_cast<char*>(values_rm.data()), indices_rm.data(), krm);
    dlnode::TopK(Input(v.data(), Scalar::kFloat32, shape, strides), 2, 3, true, true,
                 reinterpret_cast<char*>(values_tr.data()), indices_tr.data(), ktr);
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 6; ++j) {
        for (int64_t x = 0; x < 3; ++x) {
          ASSERT_EQ(values_rm[i * 18 + j * 3 + x], values_tr[i * 3 + j * 12 + x]);
          ASSERT_EQ(indices_rm[i * 18 + j * 3 + x], indices_tr[i * 3 + j * 12 + x]);
        }
      }
    }
  }
}

}  // namespace
