// src/core/compute/philox and random: Random123's known answers for
// Philox4x32-10; the same values at 1 and 2 threads and for a strided out;
// consecutive draws (offset moved by what a draw used) never repeat; rand's
// range, and moments of rand, randn and randint; multinomial with and without
// replacement (frequencies, no repeats, zero weights never drawn) and its
// refusals naming the row.
#include "compute/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "compute/philox.h"
#include "compute_test_util.h"

namespace {

using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::ThreadCount;
using compute_test::ViewOf;
using dlnode::Scalar;
using namespace dlnode::compute;  // NOLINT(google-build-using-namespace): the unit under test

// Random123 1.09, kat_vectors: philox4x32 10 rounds.
TEST(PhiloxTest, KnownAnswers) {
  struct Kat {
    uint32_t ctr[4];
    uint32_t key[2];
    uint32_t out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    const Philox4x32 r = Philox({{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}}, k.key[0], k.key[1]);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(r.v[i], k.out[i]) << std::hex << k.ctr[0] << " word " << i;
  }
}

template <class T>
std::vector<T> Draw(RandomOp op, Scalar type, int64_t n, uint64_t seed, uint64_t offset,
                    uint64_t* used, int64_t low = 0, int64_t high = 1) {
  std::vector<T> out(n);
  Dims d{{n}, {1}};
  RandomArgs args;
  args.op = op;
  args.seed = seed;
  args.offset = offset;
  args.low = low;
  args.high = high;
  args.out = ViewOf(out.data(), type, d);
  EXPECT_TRUE(Random(args, used).ok());
  return out;
}

TEST(RandomTest, TheSameValuesAtAnyThreadCountAndLayout) {
  ThreadCount restore;
  uint64_t used = 0;
  const int64_t n = 200001;
  for (const RandomOp op : {RandomOp::kRand, RandomOp::kRandn}) {
    dlnode::SetNumThreads(1);
    const auto one = Draw<float>(op, Scalar::kFloat32, n, 42, 7, &used);
    EXPECT_EQ(used, static_cast<uint64_t>((n + 3) / 4));
    dlnode::SetNumThreads(2);
    const auto two = Draw<float>(op, Scalar::kFloat32, n, 42, 7, &used);
    EXPECT_EQ(one, two);
    // The same draw into a transposed [3, n / 3] view: element i (row-major) alike.
    std::vector<float> t(n);
    const int64_t cols = n / 3;
    Dims d{{3, cols}, {1, 3}};
    RandomArgs args;
    args.op = op;
    args.seed = 42;
    args.offset = 7;
    args.out = ViewOf(t.data(), Scalar::kFloat32, d);
    ASSERT_TRUE(Random(args, &used).ok());
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_EQ(t[r + 3 * c], one[r * cols + c]) << r << "," << c;
  }
}

TEST(RandomTest, ConsecutiveDrawsDoNotRepeat) {
  uint64_t used = 0;
  const auto first = Draw<double>(RandomOp::kRand, Scalar::kFloat64, 10, 1, 0, &used);
  EXPECT_EQ(used, 5U);  // two float64 a counter
  const auto second = Draw<double>(RandomOp::kRand, Scalar::kFloat64, 10, 1, used, &used);
  std::set<double> seen(first.begin(), first.end());
  for (const double v : second) EXPECT_EQ(seen.count(v), 0U);
  // Another seed, other values.
  const auto other = Draw<double>(RandomOp::kRand, Scalar::kFloat64, 10, 2, 0, &used);
  EXPECT_NE(first, other);
}

TEST(RandomTest, RangesAndMoments) {
  uint64_t used = 0;
  const int64_t n = 400000;
  const auto u = Draw<float>(RandomOp::kRand, Scalar::kFloat32, n, 3, 0, &used);
  double mean = 0;
  for (const float v : u) {
    ASSERT_GE(v, 0.0F);
    ASSERT_LT(v, 1.0F);
    mean += v;
  }
  EXPECT_NEAR(mean / n, 0.5, 0.003);
  std::vector<uint16_t> h = Draw<uint16_t>(RandomOp::kRand, Scalar::kFloat16, 5000, 3, 0, &used);
  for (const uint16_t v : h) ASSERT_LT(dlnode::HalfToFloat(v), 1.0F);  // never rounds up to 1
  const auto z = Draw<double>(RandomOp::kRandn, Scalar::kFloat64, n, 4, 0, &used);
  double m1 = 0, m2 = 0;
  for (const double v : z) {
    m1 += v;
    m2 += v * v;
  }
  EXPECT_NEAR(m1 / n, 0.0, 0.01);
  EXPECT_NEAR(m2 / n, 1.0, 0.01);
  const auto r = Draw<int64_t>(RandomOp::kRandint, Scalar::kInt64, n, 5, 0, &used, -3, 4);
  std::vector<int64_t> counts(7);
  for (const int64_t v : r) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    ++counts[v + 3];
  }
  for (const int64_t c : counts) EXPECT_NEAR(static_cast<double>(c) / n, 1.0 / 7, 0.005);
  // The whole int64 range.
  Draw<int64_t>(RandomOp::kRandint, Scalar::kInt64, 100, 5, 0, &used, INT64_MIN, INT64_MAX);
}

std::vector<int64_t> Sample(std::vector<float> probs, int64_t rows, int64_t k, int64_t samples,
                            bool replacement, dlnode::compute::ComputeResult* result = nullptr) {
  std::vector<int64_t> out(rows * samples, -1);
  Dims dp{{rows, k}, Contiguous({rows, k})};
  Dims dout{{rows, samples}, Contiguous({rows, samples})};
  MultinomialArgs args;
  args.probs = ViewOf(probs.data(), Scalar::kFloat32, dp);
  args.samples = samples;
  args.replacement = replacement;
  args.seed = 9;
  args.out = ViewOf(out.data(), Scalar::kInt64, dout);
  uint64_t used = 0;
  const auto r = Multinomial(args, &used);
  if (result != nullptr)
    *result = r;
  else
    EXPECT_TRUE(r.ok()) << r.message;
  return out;
}

TEST(MultinomialTest, FrequenciesFollowTheWeights) {
  const int64_t samples = 200000;
  const auto out = Sample({1.0F, 0.0F, 3.0F, 4.0F}, 1, 4, samples, true);
  std::vector<int64_t> counts(4);
  for (const int64_t v : out) ++counts[v];
  EXPECT_EQ(counts[1], 0);  // a zero weight is never drawn
  EXPECT_NEAR(counts[0] / double(samples), 0.125, 0.005);
  EXPECT_NEAR(counts[2] / double(samples), 0.375, 0.005);
  EXPECT_NEAR(counts[3] / double(samples), 0.5, 0.005);
}

TEST(MultinomialTest, WithoutReplacementNoRepeatsAndHeavyFirst) {
  const int64_t rows = 2000, k = 5;
  std::vector<float> probs;
  for (int64_t r = 0; r < rows; ++r) probs.insert(probs.end(), {0.0F, 10.0F, 1.0F, 1.0F, 0.0F});
  const auto out = Sample(probs, rows, k, 3, false);
  int64_t heavy_first = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const std::set<int64_t> row(out.begin() + r * 3, out.begin() + r * 3 + 3);
    EXPECT_EQ(row, (std::set<int64_t>{1, 2, 3})) << r;  // the three nonzero, once each
    heavy_first += out[r * 3] == 1;
  }
  EXPECT_NEAR(heavy_first / double(rows), 10.0 / 12.0, 0.03);
}

TEST(MultinomialTest, BadRowsAreRefusedByRow) {
  ComputeResult r;
  Sample({0.5F, -0.1F, 1.0F, 1.0F}, 2, 2, 1, true, &r);
  EXPECT_EQ(r.failure, ComputeFailure::kProbability);
  EXPECT_STREQ(r.code(), "ERR_OUT_OF_RANGE");
  EXPECT_NE(r.message.find("[0, 1]"), std::string::npos) << r.message;
  Sample({1.0F, 1.0F, std::nanf(""), 1.0F}, 2, 2, 1, true, &r);
  EXPECT_EQ(r.failure, ComputeFailure::kProbability);
  Sample({1.0F, 1.0F, 0.0F, 0.0F}, 2, 2, 1, true, &r);
  EXPECT_EQ(r.failure, ComputeFailure::kDistribution);
  EXPECT_STREQ(r.code(), "ERR_INVALID_ARG_VALUE");
  EXPECT_NE(r.message.find("row 1"), std::string::npos) << r.message;
  Sample({1.0F, 0.0F, 0.0F}, 1, 3, 2, false, &r);
  EXPECT_EQ(r.failure, ComputeFailure::kDistribution);
  EXPECT_NE(r.message.find("received 1"), std::string::npos) << r.message;
  const auto untouched = Sample({1.0F, -1.0F}, 1, 2, 2, true, &r);
  EXPECT_EQ(untouched, (std::vector<int64_t>{-1, -1}));  // nothing written
}

}  // namespace
