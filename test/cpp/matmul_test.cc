// src/core/compute/matmul and gemm: products against a float64 reference
// loop, for every instruction set this CPU runs, every layout the BLAS takes
// as it is (row- and column-major, transposed views, leading strides, negative
// ones) and those copied first; the same bits at 1 and 2 threads in each of
// the driver's modes; batches with broadcast operands, bias, k = 0, 16-bit
// types rounded once; out strided or overlapping an input.
#include "compute/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/gemm.h"
#include "compute_test_util.h"
#include "convert.h"

namespace {

using compute_test::Bits;
using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::RandomFloats;
using compute_test::ThreadCount;
using compute_test::ViewOf;
using dlnode::Scalar;
using dlnode::compute::MatmulArgs;
using dlnode::compute::View;
namespace gemm = dlnode::compute::gemm;

// A matrix operand: values of a logical rows x cols matrix placed in a buffer
// with the given strides (elements, from `offset`).
struct Placed {
  std::vector<float> buffer;
  int64_t offset = 0;
  int64_t rs = 0, cs = 0;
};

Placed Place(const std::vector<float>& values, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
             int64_t pad = 0) {
  Placed p;
  p.rs = rs;
  p.cs = cs;
  int64_t lo = 0, hi = 0;
  for (const int64_t reach : {(rows - 1) * rs, (cols - 1) * cs}) {
    if (reach < 0)
      lo += reach;
    else
      hi += reach;
  }
  p.offset = -lo + pad;
  p.buffer.assign(static_cast<size_t>(hi - lo + 1 + 2 * pad), -777.0F);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) p.buffer[p.offset + i * rs + j * cs] = values[i * cols + j];
  }
  return p;
}

std::vector<double> Reference(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                              int64_t n, int64_t k, const float* bias = nullptr) {
  std::vector<double> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = bias != nullptr ? bias[j] : 0.0;
      for (int64_t l = 0; l < k; ++l) s += double(a[i * k + l]) * double(b[l * n + j]);
      c[i * n + j] = s;
    }
  }
  return c;
}

// |got - want| within a float32 dot product's error bound (k roundings of
// sums of magnitude at most sum |a||b|), with room.
void ExpectClose(const std::vector<double>& want, const std::vector<float>& got, int64_t k,
                 const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  const double tolerance = 4.0 * (k + 2) * 6e-8 * (k + 1);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tolerance) << what << " at " << i;
  }
}

// out[m, n] = a b (+ bias) through Matmul, operands placed with the strides
// given, out row-major.
std::vector<float> Product(const Placed& a, const Placed& b, int64_t m, int64_t n, int64_t k,
                           const float* bias = nullptr) {
  Dims da{{m, k}, {a.rs, a.cs}};
  Dims db{{k, n}, {b.rs, b.cs}};
  Dims dc{{m, n}, Contiguous({m, n})};
  Dims dbias{{n}, {1}};
  std::vector<float> out(static_cast<size_t>(m * n), -1.0F);
  std::vector<float> a_buf = a.buffer, b_buf = b.buffer;
  std::vector<float> bias_buf(bias != nullptr ? bias : out.data(),
                              bias != nullptr ? bias + n : out.data());
  const View vbias = ViewOf(bias_buf.data(), Scalar::kFloat32, dbias);
  MatmulArgs args{ViewOf(a_buf.data() + a.offset, Scalar::kFloat32, da),
                  ViewOf(b_buf.data() + b.offset, Scalar::kFloat32, db),
                  ViewOf(out.data(), Scalar::kFloat32, dc),
                  bias != nullptr ? &vbias : nullptr,
                  {}};
  const auto r = dlnode::compute::Matmul(args);
  EXPECT_TRUE(r.ok()) << r.message;
  return out;
}

TEST(MatmulTest, AgreesWithTheReferenceInEveryLayout) {
  struct Shape {
    int64_t m, n, k;
  };
  // Shapes reaching each mode of the driver: matrix-vector (n = 1, m = 1, a
  // dot), one task, row tiles (m >= 480), column tiles (few rows).
  const Shape shapes[] = {{1, 1, 7},     {37, 1, 50},   {1, 45, 33}, {5, 7, 3},    {64, 64, 64},
                          {520, 70, 40}, {9, 600, 300}, {31, 29, 1}, {2, 130, 600}};
  for (const Shape& s : shapes) {
    const auto av = RandomFloats(static_cast<size_t>(s.m * s.k), 1);
    const auto bv = RandomFloats(static_cast<size_t>(s.k * s.n), 2);
    const auto want = Reference(av, bv, s.m, s.n, s.k);
    const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.k) + " * " +
                              std::to_string(s.k) + "x" + std::to_string(s.n);
    // Row-major, column-major (a transposed view), leading strides past the
    // dim, a negative leading stride, and no unit stride at all (copied).
    const std::vector<std::pair<int64_t, int64_t>> a_layouts = {
        {s.k, 1}, {1, s.m}, {s.k + 3, 1}, {1, s.m + 5}, {-s.k, 1}, {2 * s.k, 2}};
    const std::vector<std::pair<int64_t, int64_t>> b_layouts = {
        {s.n, 1}, {1, s.k}, {s.n + 1, 1}, {1, -s.k}, {3, 3 * s.k}};
    for (const auto& la : a_layouts) {
      for (const auto& lb : b_layouts) {
        const auto out = Product(Place(av, s.m, s.k, la.first, la.second),
                                 Place(bv, s.k, s.n, lb.first, lb.second), s.m, s.n, s.k);
        ExpectClose(want, out, s.k,
                    shape + " a(" + std::to_string(la.first) + "," + std::to_string(la.second) +
                        ") b(" + std::to_string(lb.first) + "," + std::to_string(lb.second) + ")");
      }
    }
  }
}

TEST(MatmulTest, EveryInstructionSetAgreesWithTheReference) {
  const gemm::Isa* isas[4];
  const int count = gemm::AvailableIsas(isas, 4);
  ASSERT_GE(count, 1);
  bool found_chosen = false;
  for (int i = 0; i < count; ++i) found_chosen |= isas[i] == &gemm::Kernels();
  EXPECT_TRUE(found_chosen) << gemm::Kernels().name;
  const int64_t m = 250, n = 130, k = 77;
  const auto av = RandomFloats(m * k, 3);
  const auto bv = RandomFloats(k * n, 4);
  const auto want = Reference(av, bv, m, n, k);
  for (int i = 0; i < count; ++i) {
    std::vector<float> c(m * n);
    gemm::Operands<float> op;
    op.m = m;
    op.n = n;
    op.k = k;
    op.a = av.data();
    op.a_rs = k;
    op.a_cs = 1;
    op.b = bv.data();
    op.b_rs = n;
    op.b_cs = 1;
    op.c = c.data();
    op.c_rs = n;
    op.c_cs = 1;
    ASSERT_TRUE(isas[i]->f32(op).ok());
    ExpectClose(want, c, k, isas[i]->name);
    // float64 too.
    std::vector<double> a64(av.begin(), av.end()), b64(bv.begin(), bv.end()), c64(m * n);
    gemm::Operands<double> op64;
    op64.m = m;
    op64.n = n;
    op64.k = k;
    op64.a = a64.data();
    op64.a_rs = 1;  // column-major A
    op64.a_cs = m;
    std::vector<double> a64t(m * k);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t l = 0; l < k; ++l) a64t[r + l * m] = a64[r * k + l];
    op64.a = a64t.data();
    op64.b = b64.data();
    op64.b_rs = n;
    op64.b_cs = 1;
    op64.c = c64.data();
    op64.c_rs = 1;  // column-major C
    op64.c_cs = m;
    ASSERT_TRUE(isas[i]->f64(op64).ok());
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_NEAR(c64[r + j * m], want[r * n + j], 1e-12) << isas[i]->name;
      }
    }
  }
}

// Every mode of the driver gives the same bits at 1 and 2 threads: the cut
// into tiles depends on the shape alone.
TEST(MatmulTest, TheSameBitsAtAnyThreadCount) {
  ThreadCount restore;
  struct Case {
    int64_t batch, m, n, k;
  };
  const Case cases[] = {{1, 1000, 1, 384},    // matrix-vector in row blocks
                        {1, 1, 3000, 384},    // vector-matrix
                        {1, 1000, 300, 90},   // row tiles
                        {1, 8, 3000, 384},    // column tiles
                        {6, 30, 40, 50},      // a batch
                        {1, 250, 250, 250}};  // one task
  for (const Case& c : cases) {
    const auto av = RandomFloats(static_cast<size_t>(c.batch * c.m * c.k), 5);
    const auto bv = RandomFloats(static_cast<size_t>(c.batch * c.k * c.n), 6);
    Dims da{{c.batch, c.m, c.k}, Contiguous({c.batch, c.m, c.k})};
    Dims db{{c.batch, c.k, c.n}, Contiguous({c.batch, c.k, c.n})};
    Dims dc{{c.batch, c.m, c.n}, Contiguous({c.batch, c.m, c.n})};
    std::vector<float> a = av, b = bv;
    std::vector<std::vector<float>> outs;
    for (const int threads : {1, 2, 1, 2}) {
      dlnode::SetNumThreads(threads);
      std::vector<float> out(static_cast<size_t>(c.batch * c.m * c.n));
      const MatmulArgs args{ViewOf(a.data(), Scalar::kFloat32, da),
                            ViewOf(b.data(), Scalar::kFloat32, db),
                            ViewOf(out.data(), Scalar::kFloat32, dc),
                            nullptr,
                            {}};
      ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
      outs.push_back(out);
    }
    for (size_t i = 1; i < outs.size(); ++i) {
      for (size_t j = 0; j < outs[0].size(); ++j) {
        ASSERT_EQ(Bits(outs[0][j]), Bits(outs[i][j]))
            << c.m << "x" << c.n << "x" << c.k << " run " << i << " element " << j;
      }
    }
  }
}

// torch.matmul's broadcast batch dims arrive as stride 0: b broadcast over
// a batch of 3 x 2, a over the inner batch dim; with a bias (linear).
TEST(MatmulTest, BroadcastBatchesAndBias) {
  const int64_t m = 4, n = 5, k = 6;
  const auto av = RandomFloats(3 * m * k, 7);  // a: [3, 1, m, k]
  const auto bv = RandomFloats(k * n, 8);      // b: [k, n]
  const auto bias = RandomFloats(n, 9);
  Dims da{{3, 2, m, k}, {m * k, 0, k, 1}};
  Dims db{{3, 2, k, n}, {0, 0, n, 1}};
  Dims dc{{3, 2, m, n}, Contiguous({3, 2, m, n})};
  Dims dbias{{n}, {1}};
  std::vector<float> a = av, b = bv, bi = bias;
  std::vector<float> out(3 * 2 * m * n);
  const View vbias = ViewOf(bi.data(), Scalar::kFloat32, dbias);
  const MatmulArgs args{ViewOf(a.data(), Scalar::kFloat32, da),
                        ViewOf(b.data(), Scalar::kFloat32, db),
                        ViewOf(out.data(), Scalar::kFloat32, dc),
                        &vbias,
                        {}};
  ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
  for (int64_t i = 0; i < 3; ++i) {
    const std::vector<float> ai(av.begin() + i * m * k, av.begin() + (i + 1) * m * k);
    const auto want = Reference(ai, bv, m, n, k, bias.data());
    for (int64_t j = 0; j < 2; ++j) {
      const std::vector<float> got(out.begin() + (i * 2 + j) * m * n,
                                   out.begin() + (i * 2 + j + 1) * m * n);
      ExpectClose(want, got, k, "batch " + std::to_string(i) + "," + std::to_string(j));
    }
  }
}

// k = 0: the sum of no products is 0, plus the bias (torch gives zeros and
// addmm the bias); and a broadcast bias (stride 0).
TEST(MatmulTest, EmptyDepthGivesZerosOrTheBias) {
  const int64_t m = 3, n = 4;
  Dims da{{m, 0}, {0, 1}};
  Dims db{{0, n}, {n, 1}};
  Dims dc{{m, n}, Contiguous({m, n})};
  float dummy = 0.0F;
  std::vector<float> out(m * n, 5.0F);
  MatmulArgs args{ViewOf(&dummy, Scalar::kFloat32, da),
                  ViewOf(&dummy, Scalar::kFloat32, db),
                  ViewOf(out.data(), Scalar::kFloat32, dc),
                  nullptr,
                  {}};
  ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
  for (const float v : out) EXPECT_EQ(v, 0.0F);
  float bias_value = 2.5F;
  Dims dbias{{n}, {0}};
  const View vbias = ViewOf(&bias_value, Scalar::kFloat32, dbias);
  args.bias = &vbias;
  ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
  for (const float v : out) EXPECT_EQ(v, 2.5F);
}

// out a column of a wider buffer (no unit stride in its rows' dim: staged),
// out transposed (column-major: written directly), and out overlapping an
// input (x = x w for square matrices: staged, so every element reads the old x).
TEST(MatmulTest, StridedAndOverlappingOut) {
  const int64_t m = 6, n = 6, k = 6;
  const auto av = RandomFloats(m * k, 10);
  const auto bv = RandomFloats(k * n, 11);
  const auto want = Reference(av, bv, m, n, k);
  std::vector<float> a = av, b = bv;
  Dims dm{{m, k}, Contiguous({m, k})};
  // Every other element of a [m, 2n] buffer.
  std::vector<float> wide(m * n * 2, -3.0F);
  Dims dwide{{m, n}, {2 * n, 2}};
  MatmulArgs args{ViewOf(a.data(), Scalar::kFloat32, dm),
                  ViewOf(b.data(), Scalar::kFloat32, dm),
                  ViewOf(wide.data(), Scalar::kFloat32, dwide),
                  nullptr,
                  {}};
  ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
  for (int64_t i = 0; i < m * n; ++i) {
    EXPECT_NEAR(wide[(i / n) * 2 * n + (i % n) * 2], want[i], 1e-5);
    EXPECT_EQ(wide[(i / n) * 2 * n + (i % n) * 2 + 1], -3.0F);  // untouched
  }
  std::vector<float> transposed(m * n);
  Dims dt{{m, n}, {1, m}};
  args.out = ViewOf(transposed.data(), Scalar::kFloat32, dt);
  ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(transposed[i + j * m], want[i * n + j], 1e-5);
  args.out = ViewOf(a.data(), Scalar::kFloat32, dm);  // out is a
  ASSERT_TRUE(dlnode::compute::Matmul(args).ok());
  for (int64_t i = 0; i < m * n; ++i) EXPECT_NEAR(a[i], want[i], 1e-5) << i;
}

// float16 and bfloat16: converted to float32, computed there, rounded once:
// the result is the float32 product of the rounded inputs, rounded.
TEST(MatmulTest, SixteenBitTypesRoundOnce) {
  const int64_t m = 9, n = 11, k = 300;
  for (const Scalar type : {Scalar::kFloat16, Scalar::kBfloat16}) {
    const bool half = type == Scalar::kFloat16;
    auto to16 = [half](float v) {
      return half ? dlnode::FloatToHalf(v) : dlnode::FloatToBfloat16(v);
    };
    auto from16 = [half](uint16_t v) {
      return half ? dlnode::HalfToFloat(v) : dlnode::Bfloat16ToFloat(v);
    };
    const auto av = RandomFloats(m * k, 12);
    const auto bv = RandomFloats(k * n, 13);
    std::vector<uint16_t> a16(m * k), b16(k * n), c16(m * n);
    std::vector<float> a32(m * k), b32(k * n), c32(m * n);
    for (size_t i = 0; i < av.size(); ++i) a32[i] = from16(a16[i] = to16(av[i]));
    for (size_t i = 0; i < bv.size(); ++i) b32[i] = from16(b16[i] = to16(bv[i]));
    Dims da{{m, k}, Contiguous({m, k})};
    Dims db{{k, n}, Contiguous({k, n})};
    Dims dc{{m, n}, Contiguous({m, n})};
    ASSERT_TRUE(dlnode::compute::Matmul({ViewOf(a16.data(), type, da),
                                         ViewOf(b16.data(), type, db),
                                         ViewOf(c16.data(), type, dc),
                                         nullptr,
                                         {}})
                    .ok());
    ASSERT_TRUE(dlnode::compute::Matmul({ViewOf(a32.data(), Scalar::kFloat32, da),
                                         ViewOf(b32.data(), Scalar::kFloat32, db),
                                         ViewOf(c32.data(), Scalar::kFloat32, dc),
                                         nullptr,
                                         {}})
                    .ok());
    for (int64_t i = 0; i < m * n; ++i) EXPECT_EQ(c16[i], to16(c32[i])) << i;
  }
}

// Values torch 2.13 gives (test/cpp/data/make_matmul_values.py): a [2, 3]
// times b [3, 2] in float32, whose products round.
TEST(MatmulTest, TorchValues) {
  std::vector<float> a = {0.1F, 0.2F, 0.3F, 1e8F, 3.0F, -1e8F};
  std::vector<float> b = {0.7F, -0.4F, 0.5F, 0.25F, 0.9F, 1.0F / 3.0F};
  Dims da{{2, 3}, {3, 1}};
  Dims db{{3, 2}, {2, 1}};
  Dims dc{{2, 2}, {2, 1}};
  std::vector<float> c(4);
  ASSERT_TRUE(dlnode::compute::Matmul({ViewOf(a.data(), Scalar::kFloat32, da),
                                       ViewOf(b.data(), Scalar::kFloat32, db),
                                       ViewOf(c.data(), Scalar::kFloat32, dc),
                                       nullptr,
                                       {}})
                  .ok());
  // torch.tensor(a).reshape(2, 3) @ torch.tensor(b).reshape(3, 2)
  // (torch 1.13 gives -19999998 for the third: the order of its sum differs)
  const float torch[] = {0.4399999976158142F, 0.11000000685453415F, -20000000.0F, -73333336.0F};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(c[i], torch[i], std::fabs(torch[i]) * 1e-6) << i;
}

TEST(MatmulTest, AnotherDeviceIsRefused) {
  float x = 1.0F;
  Dims d{{1, 1}, {1, 1}};
  MatmulArgs args{ViewOf(&x, Scalar::kFloat32, d),
                  ViewOf(&x, Scalar::kFloat32, d),
                  ViewOf(&x, Scalar::kFloat32, d),
                  nullptr,
                  {}};
  args.place.device_type = kDLOpenCL;
  const auto r = dlnode::compute::Matmul(args);
  EXPECT_EQ(r.failure, dlnode::compute::ComputeFailure::kUnsupported);
  EXPECT_STREQ(r.code(), "ERR_DLPACK_UNSUPPORTED");
}

}  // namespace
