// src/core/compute/boxes and interpolate: IoU in torchvision's arithmetic
// against a reference, nms and batchedNms against a greedy reference over
// random boxes (ties in score kept by index, NaN scores first), the
// threshold strict (IoU equal to it is kept), no boxes; interpolate nearest
// and bilinear, align_corners, scale_factor, against torch 2.13's values
// (test/cpp/data/make_vision_values.py: nearest bit for bit, bilinear within
// 2 ulps), strided in and out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "compute/boxes.h"
#include "compute/interpolate.h"
#include "compute_test_util.h"

namespace {

using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::ViewOf;
using dlnode::Scalar;
using namespace dlnode::compute;  // NOLINT(google-build-using-namespace): the unit under test

std::vector<float> RandomBoxes(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> pos(0.0F, 100.0F), size(1.0F, 40.0F);
  std::vector<float> b(n * 4);
  for (int64_t i = 0; i < n; ++i) {
    b[i * 4] = pos(gen);
    b[i * 4 + 1] = pos(gen);
    b[i * 4 + 2] = b[i * 4] + size(gen);
    b[i * 4 + 3] = b[i * 4 + 1] + size(gen);
  }
  return b;
}

float RefIou(const float* a, const float* b) {
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  const float w = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0F);
  const float h = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0F);
  const float inter = w * h;
  return inter / ((area_a + area_b) - inter);
}

TEST(BoxesTest, IouAgreesWithTorchvisionsArithmetic) {
  const auto a = RandomBoxes(7, 1);
  const auto b = RandomBoxes(5, 2);
  std::vector<float> va = a, vb = b, out(35);
  Dims da{{7, 4}, {4, 1}}, db{{5, 4}, {4, 1}}, dout{{7, 5}, {5, 1}};
  ASSERT_TRUE(BoxIou({ViewOf(va.data(), Scalar::kFloat32, da),
                      ViewOf(vb.data(), Scalar::kFloat32, db),
                      ViewOf(out.data(), Scalar::kFloat32, dout),
                      {}})
                  .ok());
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(out[i * 5 + j], RefIou(&a[i * 4], &b[j * 4])) << i << "," << j;
}

std::vector<int64_t> RefNms(const std::vector<float>& boxes, const std::vector<float>& scores,
                            const std::vector<int64_t>* idxs, float threshold) {
  const auto n = static_cast<int64_t>(scores.size());
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    if (std::isnan(scores[x]) || std::isnan(scores[y]))
      return std::isnan(scores[x]) && !std::isnan(scores[y]);
    return scores[y] < scores[x];
  });
  std::vector<int64_t> keep;
  for (const int64_t i : order) {
    bool ok = true;
    for (const int64_t k : keep) {
      if (idxs != nullptr && (*idxs)[k] != (*idxs)[i]) continue;
      if (RefIou(&boxes[k * 4], &boxes[i * 4]) > threshold) ok = false;
    }
    if (ok) keep.push_back(i);
  }
  return keep;
}

std::vector<int64_t> RunNms(std::vector<float> boxes, std::vector<float> scores,
                            std::vector<int64_t>* idxs, float threshold) {
  const auto n = static_cast<int64_t>(scores.size());
  Dims db{{n, 4}, {4, 1}}, ds{{n}, {1}};
  std::vector<int64_t> keep(std::max<int64_t>(n, 1));
  const View vi = idxs != nullptr ? ViewOf(idxs->data(), Scalar::kInt64, ds) : View{};
  int64_t kept = -1;
  const auto r = Nms({ViewOf(boxes.data(), Scalar::kFloat32, db),
                      ViewOf(scores.data(), Scalar::kFloat32, ds),
                      idxs != nullptr ? &vi : nullptr,
                      threshold,
                      keep.data(),
                      {}},
                     &kept);
  EXPECT_TRUE(r.ok());
  keep.resize(kept);
  return keep;
}

TEST(BoxesTest, NmsAndBatchedNmsAgreeWithTheGreedyReference) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const int64_t n = 60;
    const auto boxes = RandomBoxes(n, seed);
    std::mt19937 gen(seed);
    std::vector<float> scores(n);
    std::vector<int64_t> idxs(n);
    for (int64_t i = 0; i < n; ++i) {
      scores[i] = static_cast<float>(gen() % 10) / 10.0F;  // many ties
      idxs[i] = gen() % 3;
    }
    if (seed % 5 == 0) scores[seed] = std::numeric_limits<float>::quiet_NaN();
    for (const float t : {0.0F, 0.3F, 0.7F}) {
      EXPECT_EQ(RunNms(boxes, scores, nullptr, t), RefNms(boxes, scores, nullptr, t))
          << seed << " " << t;
      EXPECT_EQ(RunNms(boxes, scores, &idxs, t), RefNms(boxes, scores, &idxs, t))
          << seed << " " << t;
    }
  }
}

TEST(BoxesTest, TheThresholdIsStrictAndNoBoxesKeepNothing) {
  // Two boxes with IoU exactly 0.5: [0,0,2,1] and [0,0,1,1] (inter 1, union 2).
  const std::vector<float> boxes = {0, 0, 2, 1, 0, 0, 1, 1};
  EXPECT_EQ(RunNms(boxes, {0.9F, 0.8F}, nullptr, 0.5F), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(RunNms(boxes, {0.9F, 0.8F}, nullptr, 0.49F), (std::vector<int64_t>{0}));
  EXPECT_EQ(RunNms(boxes, {0.8F, 0.8F}, nullptr, 0.49F),
            (std::vector<int64_t>{0}));  // a tie: the first
  EXPECT_EQ(RunNms({}, {}, nullptr, 0.5F), (std::vector<int64_t>{}));
}

std::vector<float> Source() {
  std::vector<float> x(30);
  for (int i = 0; i < 30; ++i) x[i] = static_cast<float>(i) * 0.37F - 2.0F;
  return x;
}

std::vector<float> Resize(int64_t oh, int64_t ow, bool bilinear, bool align, double scale) {
  auto x = Source();
  std::vector<float> out(2 * oh * ow);
  Dims din{{1, 2, 3, 5}, Contiguous({1, 2, 3, 5})};
  Dims dout{{1, 2, oh, ow}, Contiguous({1, 2, oh, ow})};
  InterpolateArgs args;
  args.in = ViewOf(x.data(), Scalar::kFloat32, din);
  args.bilinear = bilinear;
  args.align_corners = align;
  args.scale_h = scale;
  args.scale_w = scale;
  args.out = ViewOf(out.data(), Scalar::kFloat32, dout);
  EXPECT_TRUE(Interpolate(args).ok());
  return out;
}

// ulps = 0: the same bits. torch's CPU kernel computes bilinear's sums with
// its own vectorised arithmetic (the order and contraction differ by build), so
// its last bit can differ from the scalar formula; the indices and weights
// are the same, which the nearest rows (bit for bit) and a 2-ulp bound show.
void ExpectBits(const std::vector<float>& got, const std::vector<float>& want, const char* what,
                int ulps = 0) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (ulps == 0) {
      EXPECT_EQ(got[i], want[i]) << what << " " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], ulps * 1.2e-7F * std::max(1.0F, std::fabs(want[i])))
          << what << " " << i;
    }
  }
}

TEST(InterpolateTest, TorchValues) {
  ExpectBits(
      Resize(4, 7, true, false, 0),
      {-2.0F,         -1.78857136F, -1.52428567F,  -1.25999999F,  -0.995714247F, -0.731428564F,
       -0.519999981F, -0.84375F,    -0.632321358F, -0.368035614F, -0.103749901F, 0.160535783F,
       0.424821436F,  0.636249959F, 0.543750048F,  0.75517863F,   1.01946449F,   1.28375006F,
       1.54803586F,   1.81232154F,  2.02375007F,   1.70000005F,   1.91142857F,   2.17571449F,
       2.44000006F,   2.70428562F,  2.96857166F,   3.18000031F,   3.55000019F,   3.76142883F,
       4.0257144F,    4.28999996F,  4.55428553F,   4.81857157F,   5.03000021F,   4.70625019F,
       4.91767883F,   5.1819644F,   5.44624996F,   5.710536F,     5.97482157F,   6.18625021F,
       6.09375F,      6.30517864F,  6.56946421F,   6.83374977F,   7.09803629F,   7.36232185F,
       7.5737505F,    7.25F,        7.46142864F,   7.72571373F,   7.98999977F,   8.25428581F,
       8.51857281F,   8.7300005F},
      "bilinear", 2);
  ExpectBits(
      Resize(4, 7, true, true, 0),
      {-2.0F,         -1.75333333F,  -1.50666666F,  -1.25999999F,  -1.01333332F,   -0.766666591F,
       -0.519999981F, -0.766666591F, -0.519999921F, -0.273333222F, -0.0266665109F, 0.220000118F,
       0.466666758F,  0.713333309F,  0.466666758F,  0.713333488F,  0.960000217F,   1.20666683F,
       1.4533335F,    1.70000017F,   1.94666672F,   1.70000005F,   1.94666672F,    2.19333339F,
       2.44000006F,   2.68666673F,   2.9333334F,    3.18000031F,   3.55000019F,    3.79666686F,
       4.04333353F,   4.28999996F,   4.53666687F,   4.7833333F,    5.03000021F,    4.7833333F,
       5.03000021F,   5.27666664F,   5.52333355F,   5.76999998F,   6.01666689F,    6.26333332F,
       6.01666689F,   6.26333332F,   6.51000023F,   6.75666666F,   7.00333357F,    7.25000048F,
       7.49666691F,   7.25F,         7.49666643F,   7.74333334F,   7.98999977F,    8.23666668F,
       8.48333359F,   8.7300005F},
      "bilinear, align_corners", 2);
  // scale_factor 1.7: out floor(3 * 1.7) = 5, floor(5 * 1.7) = 8.
  ExpectBits(
      Resize(5, 8, true, false, 1.7),
      {-2.0F,         -1.85852945F,  -1.64088237F,   -1.4232353F,  -1.20558822F,  -0.987941086F,
       -0.77029407F,  -0.552646995F, -1.292647F,     -1.15117645F, -0.933529317F, -0.715882242F,
       -0.498235136F, -0.28058812F,  -0.0629410818F, 0.154706001F, -0.204411566F, -0.062940985F,
       0.154706106F,  0.372353226F,  0.590000331F,   0.807647407F, 1.0252943F,    1.24294138F,
       0.883823693F,  1.0252943F,    1.2429415F,     1.46058846F,  1.67823541F,   1.89588261F,
       2.11352968F,   2.33117676F,   1.70000005F,    1.84147072F,  2.05911803F,   2.27676487F,
       2.49441195F,   2.71205878F,   2.92970586F,    3.14735341F,  3.55000019F,   3.69147086F,
       3.9091177F,    4.12676477F,   4.34441185F,    4.56205893F,  4.779706F,     4.99735308F,
       4.25735331F,   4.39882421F,   4.61647081F,    4.83411789F,  5.05176449F,   5.26941204F,
       5.48705912F,   5.70470619F,   5.34558868F,    5.48705959F,  5.70470619F,   5.92235327F,
       6.14000034F,   6.35764742F,   6.57529402F,    6.79294157F,  6.43382359F,   6.57529449F,
       6.79294157F,   7.01058865F,   7.22823572F,    7.44588327F,  7.66352987F,   7.88117695F,
       7.25F,         7.39147043F,   7.60911798F,    7.82676458F,  8.04441166F,   8.26205921F,
       8.47970581F,   8.69735336F},
      "bilinear, scale_factor", 2);
  ExpectBits(
      Resize(2, 8, false, false, 0),
      {-2.0F,         -2.0F,         -1.63F,        -1.63F,        -1.25999999F, -0.889999986F,
       -0.889999986F, -0.519999981F, -0.149999976F, -0.149999976F, 0.220000029F, 0.220000029F,
       0.590000153F,  0.960000038F,  0.960000038F,  1.32999992F,   3.55000019F,  3.55000019F,
       3.92000008F,   3.92000008F,   4.28999996F,   4.65999985F,   4.65999985F,  5.03000021F,
       5.4000001F,    5.4000001F,    5.76999998F,   5.76999998F,   6.14000034F,  6.51000023F,
       6.51000023F,   6.88000011F},
      "nearest");
  ExpectBits(
      Resize(7, 12, false, false, 2.5),
      {-2.0F,         -2.0F,         -2.0F,         -1.63F,        -1.63F,        -1.25999999F,
       -1.25999999F,  -1.25999999F,  -0.889999986F, -0.889999986F, -0.519999981F, -0.519999981F,
       -2.0F,         -2.0F,         -2.0F,         -1.63F,        -1.63F,        -1.25999999F,
       -1.25999999F,  -1.25999999F,  -0.889999986F, -0.889999986F, -0.519999981F, -0.519999981F,
       -2.0F,         -2.0F,         -2.0F,         -1.63F,        -1.63F,        -1.25999999F,
       -1.25999999F,  -1.25999999F,  -0.889999986F, -0.889999986F, -0.519999981F, -0.519999981F,
       -0.149999976F, -0.149999976F, -0.149999976F, 0.220000029F,  0.220000029F,  0.590000153F,
       0.590000153F,  0.590000153F,  0.960000038F,  0.960000038F,  1.32999992F,   1.32999992F,
       -0.149999976F, -0.149999976F, -0.149999976F, 0.220000029F,  0.220000029F,  0.590000153F,
       0.590000153F,  0.590000153F,  0.960000038F,  0.960000038F,  1.32999992F,   1.32999992F,
       1.70000005F,   1.70000005F,   1.70000005F,   2.07000017F,   2.07000017F,   2.44000006F,
       2.44000006F,   2.44000006F,   2.80999994F,   2.80999994F,   3.18000031F,   3.18000031F,
       1.70000005F,   1.70000005F,   1.70000005F,   2.07000017F,   2.07000017F,   2.44000006F,
       2.44000006F,   2.44000006F,   2.80999994F,   2.80999994F,   3.18000031F,   3.18000031F,
       3.55000019F,   3.55000019F,   3.55000019F,   3.92000008F,   3.92000008F,   4.28999996F,
       4.28999996F,   4.28999996F,   4.65999985F,   4.65999985F,   5.03000021F,   5.03000021F,
       3.55000019F,   3.55000019F,   3.55000019F,   3.92000008F,   3.92000008F,   4.28999996F,
       4.28999996F,   4.28999996F,   4.65999985F,   4.65999985F,   5.03000021F,   5.03000021F,
       3.55000019F,   3.55000019F,   3.55000019F,   3.92000008F,   3.92000008F,   4.28999996F,
       4.28999996F,   4.28999996F,   4.65999985F,   4.65999985F,   5.03000021F,   5.03000021F,
       5.4000001F,    5.4000001F,    5.4000001F,    5.76999998F,   5.76999998F,   6.14000034F,
       6.14000034F,   6.14000034F,   6.51000023F,   6.51000023F,   6.88000011F,   6.88000011F,
       5.4000001F,    5.4000001F,    5.4000001F,    5.76999998F,   5.76999998F,   6.14000034F,
       6.14000034F,   6.14000034F,   6.51000023F,   6.51000023F,   6.88000011F,   6.88000011F,
       7.25F,         7.25F,         7.25F,         7.61999989F,   7.61999989F,   7.98999977F,
       7.98999977F,   7.98999977F,   8.36000061F,   8.36000061F,   8.7300005F,    8.7300005F,
       7.25F,         7.25F,         7.25F,         7.61999989F,   7.61999989F,   7.98999977F,
       7.98999977F,   7.98999977F,   8.36000061F,   8.36000061F,   8.7300005F,    8.7300005F},
      "nearest, scale_factor");
}

// A channels-last input (strided) and a strided out give the same values.
TEST(InterpolateTest, StridedInAndOut) {
  const auto want = Resize(4, 7, true, false, 0);
  auto x = Source();
  std::vector<float> nhwc(30);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 5; ++w) nhwc[(h * 5 + w) * 2 + c] = x[c * 15 + h * 5 + w];
  std::vector<float> out(2 * 4 * 7 * 2, -1.0F);
  Dims din{{1, 2, 3, 5}, {30, 1, 10, 2}};
  Dims dout{{1, 2, 4, 7}, {112, 28, 7, 1}};  // after a plane left as it was
  InterpolateArgs args;
  args.in = ViewOf(nhwc.data(), Scalar::kFloat32, din);
  args.bilinear = true;
  args.out = ViewOf(out.data() + 28, Scalar::kFloat32, dout);
  ASSERT_TRUE(Interpolate(args).ok());
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 28; ++i) EXPECT_EQ(out[28 + c * 28 + i], want[c * 28 + i]) << c << "," << i;
  EXPECT_EQ(out[0], -1.0F);
}

}  // namespace
