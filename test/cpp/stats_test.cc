// src/core/compute/stats and norms: var, std, varMean, stdMean and
// vectorNorm against float64 references (two-pass, in long double) and
// torch 2.13's values (test/cpp/data/make_norm_values.py); var of values far
// from 0 (the case a one-pass formula loses); N - correction <= 0 and no
// elements give torch's NaN; NaN through the inf norms; the same bits at 1
// and 2 threads for long lanes split in blocks; permuted (strided) inputs;
// layerNorm, cosineSimilarity and lpNormalize with torch's eps rules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compute/norms.h"
#include "compute/stats.h"
#include "compute_test_util.h"

namespace {

using compute_test::Bits;
using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::RandomFloats;
using compute_test::ThreadCount;
using compute_test::ViewOf;
using dlnode::Scalar;
using namespace dlnode::compute;  // NOLINT(google-build-using-namespace): the unit under test

// The test matrix of make_norm_values.py: [3, 5].
const std::vector<float> kX = {0.5F, -1.25F, 3.0F, 1e-3F, 7.5F, 2.0F, 2.0F, 2.0F,
                               2.0F, 2.0F,   1e4F, -1e4F, 3.0F, 0.1F, -0.7F};
const std::vector<float> kY = {1.0F, 0.0F, -2.0F, 4.0F, 0.5F,  0.0F, 0.0F, 0.0F,
                               0.0F, 0.0F, 3.0F,  1.0F, -1.0F, 2.0F, 0.25F};

std::vector<float> RowStats(StatsOp op, const std::vector<float>& x, int64_t rows, int64_t n,
                            double correction, double ord = 2, std::vector<float>* mean = nullptr) {
  std::vector<float> in = x, out(rows), means(rows);
  Dims din{{rows, n}, Contiguous({rows, n})};
  Dims dout{{rows}, {1}};
  StatsArgs args;
  args.op = op;
  args.in = ViewOf(in.data(), Scalar::kFloat32, din);
  args.reduced = 1;
  args.correction = correction;
  args.ord = ord;
  args.out = ViewOf(out.data(), Scalar::kFloat32, dout);
  args.mean = ViewOf(means.data(), Scalar::kFloat32, dout);
  const auto r = Stats(args);
  EXPECT_TRUE(r.ok()) << r.message;
  if (mean != nullptr) *mean = means;
  return out;
}

void ExpectUlps(const std::vector<float>& got, const std::vector<float>& want, int ulps,
                const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " " << i;
      continue;
    }
    const float tol = ulps * std::max(std::fabs(want[i]), 1e-30F) * 1.2e-7F;
    EXPECT_NEAR(got[i], want[i], tol) << what << " " << i;
  }
}

TEST(StatsTest, TorchValues) {
  ExpectUlps(RowStats(StatsOp::kVar, kX, 3, 5, 1), {12.0115252F, 0.0F, 50000004.0F}, 1, "var");
  ExpectUlps(RowStats(StatsOp::kStd, kX, 3, 5, 0), {3.09987426F, 0.0F, 6324.55566F}, 1, "std");
  ExpectUlps(RowStats(StatsOp::kVectorNorm, kX, 3, 5, 0, 2),
             {8.18916988F, 4.47213602F, 14142.1357F}, 1, "norm 2");
  ExpectUlps(RowStats(StatsOp::kVectorNorm, kX, 3, 5, 0, 3),
             {7.66850138F, 3.41995192F, 12599.2139F}, 2, "norm 3");
  ExpectUlps(RowStats(StatsOp::kVectorNorm, kX, 3, 5, 0, 0.5), {40.0363312F, 50.0F, 41162.2969F}, 2,
             "norm 0.5");
}

TEST(StatsTest, VarMeanAndStdMeanAgreeWithATwoPassReference) {
  const int64_t rows = 7, n = 1000;
  auto x = RandomFloats(rows * n, 1, -2.0F, 5.0F);
  for (int64_t i = 0; i < n; ++i) x[3 * n + i] = 1e6F + x[3 * n + i];  // far from 0
  for (const double correction : {0.0, 1.0, 2.5}) {
    std::vector<float> mean;
    const auto var = RowStats(StatsOp::kVarMean, x, rows, n, correction, 2, &mean);
    std::vector<float> mean2;
    const auto sd = RowStats(StatsOp::kStdMean, x, rows, n, correction, 2, &mean2);
    for (int64_t r = 0; r < rows; ++r) {
      long double s = 0;
      for (int64_t i = 0; i < n; ++i) s += x[r * n + i];
      const long double mu = s / n;
      long double m2 = 0;
      for (int64_t i = 0; i < n; ++i) m2 += (x[r * n + i] - mu) * (x[r * n + i] - mu);
      const double v = static_cast<double>(m2 / (n - correction));
      EXPECT_EQ(var[r], static_cast<float>(v)) << r << " correction " << correction;
      EXPECT_EQ(sd[r], static_cast<float>(std::sqrt(v))) << r;
      EXPECT_EQ(mean[r], static_cast<float>(static_cast<double>(mu))) << r;
      EXPECT_EQ(mean2[r], mean[r]);
    }
  }
}

TEST(StatsTest, TooFewElementsGiveNaN) {
  const std::vector<float> one = {3.0F};
  EXPECT_TRUE(std::isnan(RowStats(StatsOp::kVar, one, 1, 1, 1)[0]));  // torch: nan
  EXPECT_EQ(RowStats(StatsOp::kVar, one, 1, 1, 0)[0], 0.0F);
  EXPECT_TRUE(std::isinf(RowStats(StatsOp::kVar, {1.0F, 2.0F}, 1, 2, 3)[0]));  // 0.5 / 0
  std::vector<float> mean;
  const auto v = RowStats(StatsOp::kVarMean, {}, 2, 0, 1, 2, &mean);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]) && std::isnan(mean[0]));
  EXPECT_EQ(RowStats(StatsOp::kVectorNorm, {}, 1, 0, 0, 2)[0], 0.0F);
}

TEST(StatsTest, NormsOfEveryOrder) {
  const std::vector<float> x = {3.0F, -4.0F, 0.0F, 12.0F};
  const auto norm = [&](double p) { return RowStats(StatsOp::kVectorNorm, x, 1, 4, 0, p)[0]; };
  EXPECT_EQ(norm(2), 13.0F);
  EXPECT_EQ(norm(1), 19.0F);
  EXPECT_EQ(norm(0), 3.0F);  // nonzeros
  EXPECT_EQ(norm(HUGE_VAL), 12.0F);
  EXPECT_EQ(norm(-HUGE_VAL), 0.0F);
  EXPECT_EQ(norm(-1), 0.0F);  // a zero element: (inf)^-1
  EXPECT_FLOAT_EQ(norm(3), static_cast<float>(std::cbrt(27.0 + 64.0 + 1728.0)));
  const std::vector<float> with_nan = {1.0F, std::nanf(""), 5.0F};
  for (const double p : {2.0, 1.0, HUGE_VAL, -HUGE_VAL}) {
    EXPECT_TRUE(std::isnan(RowStats(StatsOp::kVectorNorm, with_nan, 1, 3, 0, p)[0])) << p;
  }
  EXPECT_EQ(RowStats(StatsOp::kVectorNorm, with_nan, 1, 3, 0, 0)[0], 3.0F);  // NaN is nonzero
}

// A lane longer than a block is summed in blocks that any thread may take:
// the same bits at 1 and 2 threads, as for many short lanes.
TEST(StatsTest, TheSameBitsAtAnyThreadCount) {
  ThreadCount restore;
  for (const auto& shape : std::vector<std::pair<int64_t, int64_t>>{{1, 300001}, {5000, 50}}) {
    const auto x = RandomFloats(shape.first * shape.second, 2, 0.5F, 3.0F);
    std::vector<std::vector<float>> runs;
    for (const int threads : {1, 2, 1, 2}) {
      dlnode::SetNumThreads(threads);
      for (const StatsOp op : {StatsOp::kVar, StatsOp::kVectorNorm}) {
        runs.push_back(RowStats(op, x, shape.first, shape.second, 1, 2));
      }
    }
    for (size_t i = 2; i < runs.size(); ++i) {
      for (size_t j = 0; j < runs[i].size(); ++j)
        ASSERT_EQ(Bits(runs[i][j]), Bits(runs[i % 2][j])) << i;
    }
  }
}

// The reduced dim is a permuted view (stride n, as var(x, 0) of a row-major
// matrix gets it), and two reduced dims at once; float64 and float16 outputs.
TEST(StatsTest, StridedInputsAndOtherTypes) {
  const int64_t r = 6, c = 9;
  const auto xf = RandomFloats(r * c, 3);
  std::vector<double> x(xf.begin(), xf.end());
  std::vector<double> out(c);
  Dims din{{c, r}, {1, c}};  // x.T: columns as lanes
  Dims dout{{c}, {1}};
  StatsArgs args;
  args.op = StatsOp::kVar;
  args.in = ViewOf(x.data(), Scalar::kFloat64, din);
  args.reduced = 1;
  args.out = ViewOf(out.data(), Scalar::kFloat64, dout);
  ASSERT_TRUE(Stats(args).ok());
  for (int64_t j = 0; j < c; ++j) {
    double mu = 0;
    for (int64_t i = 0; i < r; ++i) mu += x[i * c + j];
    mu /= r;
    double m2 = 0;
    for (int64_t i = 0; i < r; ++i) m2 += (x[i * c + j] - mu) * (x[i * c + j] - mu);
    EXPECT_NEAR(out[j], m2 / (r - 1), 1e-15) << j;
  }
  // Both dims reduced: one lane; float16 out, rounded once.
  std::vector<uint16_t> h(1);
  Dims dall{{r, c}, Contiguous({r, c})};
  Dims dnone{{}, {}};
  args.in = ViewOf(x.data(), Scalar::kFloat64, dall);
  args.reduced = 2;
  args.op = StatsOp::kVectorNorm;
  args.out = ViewOf(h.data(), Scalar::kFloat16, dnone);
  ASSERT_TRUE(Stats(args).ok());
  double s = 0;
  for (const double v : x) s += v * v;
  EXPECT_EQ(h[0], dlnode::FloatToHalf(static_cast<float>(std::sqrt(s))));
}

TEST(NormsTest, TorchValues) {
  std::vector<float> x = kX, y = kY, out(15), rows(3);
  std::vector<float> w = {1.5F, -0.5F, 2.0F, 1.0F, 0.25F};
  std::vector<float> b = {0.1F, 0.2F, -0.3F, 0.0F, 1.0F};
  Dims dm{{3, 5}, Contiguous({3, 5})};
  Dims dv{{5}, {1}};
  Dims dr{{3}, {1}};
  const View vw = ViewOf(w.data(), Scalar::kFloat32, dv);
  const View vb = ViewOf(b.data(), Scalar::kFloat32, dv);
  LayerNormArgs ln;
  ln.in = ViewOf(x.data(), Scalar::kFloat32, dm);
  ln.normalized = 1;
  ln.weight = &vw;
  ln.bias = &vb;
  ln.eps = 1e-5;
  ln.out = ViewOf(out.data(), Scalar::kFloat32, dm);
  ASSERT_TRUE(LayerNorm(ln).ok());
  // torch computes layer_norm in float32 (its moments too): a few ulps apart.
  ExpectUlps(out,
             {-0.601737738F, 0.716181993F, 0.377317488F, -0.628799379F, 1.44758248F, 0.100000001F,
              0.200000003F, -0.300000012F, 0.0F, 1.0F, 2.47159433F, 0.99060744F, -0.299203128F,
              -6.00832791e-05F, 0.99995333F},
             8, "layer_norm");
  CosineArgs cs;
  cs.a = ViewOf(x.data(), Scalar::kFloat32, dm);
  cs.b = ViewOf(y.data(), Scalar::kFloat32, dm);
  cs.out = ViewOf(rows.data(), Scalar::kFloat32, dr);
  ASSERT_TRUE(CosineSimilarity(cs).ok());
  ExpectUlps(rows, {-0.046251405F, 0.0F, 0.364335835F}, 2,
             "cosine_similarity");  // a zero row: 0, not NaN
  LpNormalizeArgs nz;
  nz.in = ViewOf(x.data(), Scalar::kFloat32, dm);
  nz.out = ViewOf(out.data(), Scalar::kFloat32, dm);
  ASSERT_TRUE(LpNormalize(nz).ok());
  ExpectUlps(out,
             {0.0610562488F, -0.152640626F, 0.366337508F, 0.000122112499F, 0.915843725F,
              0.44721359F, 0.44721359F, 0.44721359F, 0.44721359F, 0.44721359F, 0.707106769F,
              -0.707106769F, 0.000212132029F, 7.07106801e-06F, -4.94974738e-05F},
             1, "normalize x");
  nz.in = ViewOf(y.data(), Scalar::kFloat32, dm);
  ASSERT_TRUE(LpNormalize(nz).ok());
  ExpectUlps(out,
             {0.216930464F, 0.0F, -0.433860928F, 0.867721856F, 0.108465232F, 0.0F, 0.0F, 0.0F, 0.0F,
              0.0F, 0.772987962F, 0.257662654F, -0.257662654F, 0.515325308F, 0.0644156635F},
             1, "normalize y (a zero row stays 0)");
}

// layerNorm in place (out is in), over two trailing dims, without weight
// and bias, against a reference; every lane has mean 0 and variance ~1 after.
TEST(NormsTest, LayerNormInPlaceOverTwoDims) {
  const int64_t lanes = 4, h = 3, w = 50;
  auto x = RandomFloats(lanes * h * w, 4, -3.0F, 9.0F);
  const auto orig = x;
  Dims d{{lanes, h, w}, Contiguous({lanes, h, w})};
  LayerNormArgs ln;
  ln.in = ViewOf(x.data(), Scalar::kFloat32, d);
  ln.normalized = 2;
  ln.out = ln.in;
  ASSERT_TRUE(LayerNorm(ln).ok());
  const int64_t n = h * w;
  for (int64_t o = 0; o < lanes; ++o) {
    double mu = 0, m2 = 0;
    for (int64_t i = 0; i < n; ++i) mu += orig[o * n + i];
    mu /= n;
    for (int64_t i = 0; i < n; ++i) m2 += (orig[o * n + i] - mu) * (orig[o * n + i] - mu);
    const double rstd = 1 / std::sqrt(m2 / n + 1e-5);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(x[o * n + i], static_cast<float>((orig[o * n + i] - mu) * rstd)) << o << "," << i;
    }
  }
}

TEST(NormsTest, ADeviceIsRefused) {
  float x = 1;
  Dims d{{1}, {1}};
  LpNormalizeArgs nz;
  nz.in = ViewOf(&x, Scalar::kFloat32, d);
  nz.out = nz.in;
  nz.place.device_type = kDLCUDA;
  const auto r = LpNormalize(nz);
  EXPECT_EQ(r.failure, ComputeFailure::kUnsupported);
  EXPECT_STREQ(r.code(), "ERR_DLPACK_UNSUPPORTED");
}

}  // namespace
