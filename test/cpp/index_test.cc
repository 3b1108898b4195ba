// src/core/compute/index: gather, indexSelect and take against reference
// loops (any dtype, as bytes; int64 and int32 indices; strided operands;
// take's negative indices counting from the end), an index out of range
// refused before anything is written with a message naming the index and
// where it was, and nonzero's count and row-major indices the same at 1 and
// 2 threads across its fixed blocks (NaN is nonzero, -0 is not).
#include "compute/index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compute_test_util.h"

namespace {

using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::ThreadCount;
using compute_test::ViewOf;
using dlnode::Scalar;
using namespace dlnode::compute;  // NOLINT(google-build-using-namespace): the unit under test

TEST(IndexTest, GatherAlongEachDim) {
  // in [3, 4] = 10 * row + col.
  std::vector<int16_t> in(12);
  for (int i = 0; i < 12; ++i) in[i] = static_cast<int16_t>(10 * (i / 4) + i % 4);
  Dims din{{3, 4}, {4, 1}};
  // dim 1: index [3, 2]
  std::vector<int64_t> idx = {3, 0, 1, 1, 0, 2};
  Dims didx{{3, 2}, {2, 1}};
  std::vector<int16_t> out(6);
  ASSERT_TRUE(Gather({ViewOf(in.data(), Scalar::kInt16, din),
                      1,
                      ViewOf(idx.data(), Scalar::kInt64, didx),
                      ViewOf(out.data(), Scalar::kInt16, didx),
                      {}})
                  .ok());
  EXPECT_EQ(out, (std::vector<int16_t>{3, 0, 11, 11, 20, 22}));
  // dim 0 with int32 indices of a smaller shape [2, 3], out transposed.
  std::vector<int32_t> idx32 = {2, 0, 1, 1, 2, 0};
  Dims didx32{{2, 3}, {3, 1}};
  std::vector<int16_t> out_t(6);
  Dims dout_t{{2, 3}, {1, 2}};
  ASSERT_TRUE(Gather({ViewOf(in.data(), Scalar::kInt16, din),
                      0,
                      ViewOf(idx32.data(), Scalar::kInt32, didx32),
                      ViewOf(out_t.data(), Scalar::kInt16, dout_t),
                      {}})
                  .ok());
  // out[i][j] = in[idx[i][j]][j]: [[20, 1, 12], [10, 21, 2]], stored column-major.
  EXPECT_EQ(out_t, (std::vector<int16_t>{20, 10, 1, 21, 12, 2}));
}

TEST(IndexTest, AnIndexOutOfRangeIsNamedAndNothingIsWritten) {
  std::vector<float> in = {1, 2, 3, 4, 5, 6};
  Dims din{{2, 3}, {3, 1}};
  std::vector<int64_t> idx = {0, 2, 1, 3};
  Dims didx{{2, 2}, {2, 1}};
  std::vector<float> out(4, -1.0F);
  const auto r = Gather({ViewOf(in.data(), Scalar::kFloat32, din),
                         1,
                         ViewOf(idx.data(), Scalar::kInt64, didx),
                         ViewOf(out.data(), Scalar::kFloat32, didx),
                         {}});
  EXPECT_EQ(r.failure, ComputeFailure::kIndex);
  EXPECT_STREQ(r.code(), "ERR_OUT_OF_RANGE");
  EXPECT_NE(r.message.find("received 3 at [1, 1]"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("[0, 3)"), std::string::npos) << r.message;
  EXPECT_EQ(out, (std::vector<float>(4, -1.0F)));
  idx = {0, -1, 0, 0};  // negative: refused (torch's gather and index_select refuse them)
  EXPECT_EQ(Gather({ViewOf(in.data(), Scalar::kFloat32, din),
                    1,
                    ViewOf(idx.data(), Scalar::kInt64, didx),
                    ViewOf(out.data(), Scalar::kFloat32, didx),
                    {}})
                .failure,
            ComputeFailure::kIndex);
  std::vector<int64_t> sel = {1, 2};
  Dims dsel{{2}, {1}};
  EXPECT_EQ(IndexSelect({ViewOf(in.data(), Scalar::kFloat32, din),
                         0,
                         ViewOf(sel.data(), Scalar::kInt64, dsel),
                         ViewOf(out.data(), Scalar::kFloat32, didx),
                         {}})
                .failure,
            ComputeFailure::kIndex);
}

TEST(IndexTest, IndexSelectAndTake) {
  std::vector<double> in(12);
  for (int i = 0; i < 12; ++i) in[i] = i;
  Dims din{{3, 4}, {1, 3}};  // a transposed view: in[r][c] = c * 3 + r
  std::vector<int64_t> sel = {3, 0, 3};
  Dims dsel{{3}, {1}};
  std::vector<double> out(9);
  Dims dout{{3, 3}, {3, 1}};
  ASSERT_TRUE(IndexSelect({ViewOf(in.data(), Scalar::kFloat64, din),
                           1,
                           ViewOf(sel.data(), Scalar::kInt64, dsel),
                           ViewOf(out.data(), Scalar::kFloat64, dout),
                           {}})
                  .ok());
  EXPECT_EQ(out, (std::vector<double>{9, 0, 9, 10, 1, 10, 11, 2, 11}));
  // take reads the transposed view in its own row-major order: 0, 3, 6, 9, 1, ...
  std::vector<int32_t> take = {1, -1, -12, 4};
  Dims dtake{{2, 2}, {2, 1}};
  std::vector<double> taken(4);
  ASSERT_TRUE(Take({ViewOf(in.data(), Scalar::kFloat64, din),
                    ViewOf(take.data(), Scalar::kInt32, dtake),
                    ViewOf(taken.data(), Scalar::kFloat64, dtake),
                    {}})
                  .ok());
  EXPECT_EQ(taken, (std::vector<double>{3, 11, 0, 1}));
  take[2] = -13;
  const auto r = Take({ViewOf(in.data(), Scalar::kFloat64, din),
                       ViewOf(take.data(), Scalar::kInt32, dtake),
                       ViewOf(taken.data(), Scalar::kFloat64, dtake),
                       {}});
  EXPECT_EQ(r.failure, ComputeFailure::kIndex);
  EXPECT_NE(r.message.find("[-12, 12)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("-13 at [1, 0]"), std::string::npos) << r.message;
}

TEST(IndexTest, NonzeroAtAnyThreadCount) {
  ThreadCount restore;
  const int64_t a = 70, b = 1000;  // spans several blocks
  std::vector<float> x(a * b, 0.0F);
  for (int64_t i = 0; i < a * b; i += 7) x[i] = 1.0F;
  x[5] = std::numeric_limits<float>::quiet_NaN();
  x[6] = -0.0F;
  Dims d{{a, b}, Contiguous({a, b})};
  std::vector<std::vector<int64_t>> runs;
  for (const int threads : {1, 2}) {
    dlnode::SetNumThreads(threads);
    int64_t count = 0;
    ASSERT_TRUE(NonzeroCount(ViewOf(x.data(), Scalar::kFloat32, d), {}, &count).ok());
    EXPECT_EQ(count, (a * b + 6) / 7 + 1);
    std::vector<int64_t> out(count * 2);
    Dims dout{{count, 2}, {2, 1}};
    ASSERT_TRUE(
        Nonzero(ViewOf(x.data(), Scalar::kFloat32, d), ViewOf(out.data(), Scalar::kInt64, dout), {})
            .ok());
    runs.push_back(out);
  }
  EXPECT_EQ(runs[0], runs[1]);
  // Row-major: [0, 0], [0, 5] (NaN), [0, 7], ...
  EXPECT_EQ(runs[0][0], 0);
  EXPECT_EQ(runs[0][1], 0);
  EXPECT_EQ(runs[0][3], 5);
  EXPECT_EQ(runs[0][5], 7);
  for (size_t i = 2; i < runs[0].size(); i += 2) {
    const int64_t prev = runs[0][i - 2] * b + runs[0][i - 1];
    ASSERT_LT(prev, runs[0][i] * b + runs[0][i + 1]);
  }
}

}  // namespace
