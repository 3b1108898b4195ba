// src/core/compute/cuda/cublas: the loader against fake libraries (none
// there, one without an entry point, one complete), and the planner's
// cublasGemmStridedBatchedEx calls run by a fake cuBLAS that computes on the
// host what the real one computes on a device (column-major, op(A) op(B),
// strided batches), against a reference loop, for row- and column-major
// operands and results, transposed views, batches that merge into one stride
// and batches that do not, broadcast operands; the refusals; a failing status
// reported with its name. No GPU: the device path is compiled, not run here.
#include "compute/cuda/cublas.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compute_test_util.h"

namespace {

using compute_test::Contiguous;
using compute_test::Dims;
using compute_test::RandomFloats;
using compute_test::ViewOf;
using dlnode::Scalar;
using dlnode::compute::ComputeFailure;
using dlnode::compute::MatmulArgs;
using namespace dlnode::compute::cuda;  // NOLINT(google-build-using-namespace): the unit under test

// --- the fake library ---------------------------------------------------------
std::vector<std::string> g_opened;
const char* g_present = nullptr;  // the one file the fake "has"
const char* g_missing_symbol = nullptr;
int g_status = 0;  // what the fake gemm returns
int g_calls = 0;

int FakeCreate(void** h) {
  *h = &g_calls;
  return 0;
}
int FakeDestroy(void*) { return 0; }
int FakeSetStream(void*, void*) { return 0; }
const char* FakeStatusName(int status) {
  return status == 13 ? "CUBLAS_STATUS_EXECUTION_FAILED" : nullptr;
}

constexpr int kOpNForTest() { return cublas::kOpN; }

template <class T>
void FakeGemmTyped(int transa, int transb, int m, int n, int k, const void* alpha, const void* a,
                   int lda, long long sa, const void* b, int ldb, long long sb,    // NOLINT
                   const void* beta, void* c, int ldc, long long sc, int batch) {  // NOLINT
  const T al = *static_cast<const T*>(alpha);
  const T be = *static_cast<const T*>(beta);
  for (int p = 0; p < batch; ++p) {
    const T* A = static_cast<const T*>(a) + p * sa;
    const T* B = static_cast<const T*>(b) + p * sb;
    T* C = static_cast<T*>(c) + p * sc;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        T s = 0;
        for (int l = 0; l < k; ++l) {
          const T x = transa == kOpNForTest() ? A[i + l * lda] : A[l + i * lda];
          const T y = transb == kOpNForTest() ? B[l + j * ldb] : B[j + l * ldb];
          s += x * y;
        }
        C[i + j * ldc] = al * s + (be != 0 ? be * C[i + j * ldc] : 0);
      }
    }
  }
}
int FakeGemm(void*, int transa, int transb, int m, int n, int k, const void* alpha, const void* a,
             int a_type, int lda, long long sa, const void* b, int b_type, int ldb,       // NOLINT
             long long sb, const void* beta, void* c, int c_type, int ldc, long long sc,  // NOLINT
             int batch, int compute, int algo) {
  ++g_calls;
  EXPECT_EQ(a_type, b_type);
  EXPECT_EQ(a_type, c_type);
  EXPECT_EQ(algo, cublas::kGemmDefault);
  if (g_status != 0) return g_status;
  if (compute == cublas::kCompute64F) {
    FakeGemmTyped<double>(transa, transb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                          batch);
  } else {
    FakeGemmTyped<float>(transa, transb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                         batch);
  }
  return 0;
}

void* FakeOpen(const char* file) {
  g_opened.emplace_back(file);
  return g_present != nullptr && std::strcmp(file, g_present) == 0 ? &g_opened : nullptr;
}

void* FakeSymbol(void*, const char* name) {
  if (g_missing_symbol != nullptr && std::strcmp(name, g_missing_symbol) == 0) return nullptr;
  const std::string s(name);
  if (s == "cublasCreate_v2") return reinterpret_cast<void*>(&FakeCreate);
  if (s == "cublasDestroy_v2") return reinterpret_cast<void*>(&FakeDestroy);
  if (s == "cublasSetStream_v2") return reinterpret_cast<void*>(&FakeSetStream);
  if (s == "cublasGemmStridedBatchedEx") return reinterpret_cast<void*>(&FakeGemm);
  if (s == "cublasGetStatusName") return reinterpret_cast<void*>(&FakeStatusName);
  return nullptr;
}

const Loader kFake{FakeOpen, FakeSymbol};

class CublasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_opened.clear();
    g_present = "libcublas.so.12";
    g_missing_symbol = nullptr;
    g_status = 0;
    g_calls = 0;
  }
};

TEST_F(CublasTest, NoLibraryNamesEveryFileTried) {
  g_present = nullptr;
  CublasApi api;
  const auto r = LoadCublas(kFake, &api);
  EXPECT_EQ(r.failure, ComputeFailure::kCudaUnavailable);
  EXPECT_STREQ(r.code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
  for (const char* file : kCublasFiles)
    EXPECT_NE(r.message.find(file), std::string::npos) << r.message;
  EXPECT_EQ(g_opened.size(), sizeof kCublasFiles / sizeof kCublasFiles[0]);
}

TEST_F(CublasTest, TheFirstFileThatOpensIsUsed) {
  CublasApi api;
  ASSERT_TRUE(LoadCublas(kFake, &api).ok());
  EXPECT_EQ(g_opened, (std::vector<std::string>{"libcublas.so.13", "libcublas.so.12"}));
  EXPECT_EQ(api.gemm, &FakeGemm);
  EXPECT_EQ(api.status_name, &FakeStatusName);
}

TEST_F(CublasTest, AMissingEntryPointIsNamed) {
  g_missing_symbol = "cublasGemmStridedBatchedEx";
  CublasApi api;
  const auto r = LoadCublas(kFake, &api);
  EXPECT_EQ(r.failure, ComputeFailure::kCudaUnavailable);
  EXPECT_NE(r.message.find("libcublas.so.12"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("cublasGemmStridedBatchedEx"), std::string::npos) << r.message;
  EXPECT_EQ(api.gemm, nullptr);  // nothing filled in
  // cublasGetStatusName is optional (the status number is reported instead).
  g_missing_symbol = "cublasGetStatusName";
  ASSERT_TRUE(LoadCublas(kFake, &api).ok());
  EXPECT_EQ(api.status_name, nullptr);
}

// out = a b through the planner and the fake; a, b and out given as strided
// views of host memory (the fake reads them as the device would).
void Through(const MatmulArgs& args, int* calls) {
  CublasApi api;
  EXPECT_TRUE(LoadCublas(kFake, &api).ok());
  g_calls = 0;
  dlnode::compute::ComputeResult result;
  const bool planned = PlanGemmCalls(args, false, [&](const GemmCall& call) {
    if (result.ok()) result = RunGemmCall(api, &g_calls, call);
  });
  EXPECT_TRUE(planned);
  EXPECT_TRUE(result.ok()) << result.message;
  *calls = g_calls;
}

std::vector<double> Reference(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                              int64_t n, int64_t k) {
  std::vector<double> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < k; ++l) c[i * n + j] += double(a[i * k + l]) * b[l * n + j];
  return c;
}

TEST_F(CublasTest, PlannedCallsComputeTheProductInEveryLayout) {
  const int64_t m = 5, n = 7, k = 4;
  const auto av = RandomFloats(m * k, 1);
  const auto bv = RandomFloats(k * n, 2);
  const auto want = Reference(av, bv, m, n, k);
  // (row stride, column stride) of a, b and out.
  struct Layout {
    int64_t ars, acs, brs, bcs, crs, ccs;
  };
  const Layout layouts[] = {{k, 1, n, 1, n, 1},         {1, m, n, 1, n, 1},
                            {k, 1, 1, k, n, 1},         {1, m + 2, 1, k + 1, 1, m},
                            {k + 3, 1, n, 1, 1, m + 1}, {k, 1, n + 2, 1, n + 5, 1}};
  for (const Layout& l : layouts) {
    std::vector<float> a(1000, -9.0F), b(1000, -9.0F), c(1000, -9.0F);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) a[i * l.ars + j * l.acs] = av[i * k + j];
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) b[i * l.brs + j * l.bcs] = bv[i * n + j];
    Dims da{{m, k}, {l.ars, l.acs}}, db{{k, n}, {l.brs, l.bcs}}, dc{{m, n}, {l.crs, l.ccs}};
    int calls = 0;
    Through({ViewOf(a.data(), Scalar::kFloat32, da),
             ViewOf(b.data(), Scalar::kFloat32, db),
             ViewOf(c.data(), Scalar::kFloat32, dc),
             nullptr,
             {}},
            &calls);
    EXPECT_EQ(calls, 1);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        EXPECT_NEAR(c[i * l.crs + j * l.ccs], want[i * n + j], 1e-5)
            << l.ars << "," << l.acs << " " << l.brs << "," << l.bcs << " " << l.crs << ","
            << l.ccs;
  }
}

TEST_F(CublasTest, BatchesMergeIntoOneStrideOrLoop) {
  const int64_t m = 3, n = 2, k = 4;
  // a [2, 3, m, k] contiguous, b [k, n] broadcast (stride 0 batch dims).
  const auto av = RandomFloats(6 * m * k, 3);
  const auto bv = RandomFloats(k * n, 4);
  std::vector<float> a = av, b = bv, c(6 * m * n);
  Dims da{{2, 3, m, k}, Contiguous({2, 3, m, k})};
  Dims db{{2, 3, k, n}, {0, 0, n, 1}};
  Dims dc{{2, 3, m, n}, Contiguous({2, 3, m, n})};
  int calls = 0;
  Through({ViewOf(a.data(), Scalar::kFloat32, da),
           ViewOf(b.data(), Scalar::kFloat32, db),
           ViewOf(c.data(), Scalar::kFloat32, dc),
           nullptr,
           {}},
          &calls);
  EXPECT_EQ(calls, 1);  // [2, 3] merge into one batch of 6 (b's strides are 0 in both)
  for (int64_t p = 0; p < 6; ++p) {
    const std::vector<float> ap(av.begin() + p * m * k, av.begin() + (p + 1) * m * k);
    const auto want = Reference(ap, bv, m, n, k);
    for (int64_t i = 0; i < m * n; ++i) EXPECT_NEAR(c[p * m * n + i], want[i], 1e-5) << p;
  }
  // out's batch dims transposed: they no longer merge, so one call per outer index.
  std::vector<float> c2(6 * m * n);
  Dims dc2{{2, 3, m, n}, {m * n, 2 * m * n, n, 1}};
  Through({ViewOf(a.data(), Scalar::kFloat32, da),
           ViewOf(b.data(), Scalar::kFloat32, db),
           ViewOf(c2.data(), Scalar::kFloat32, dc2),
           nullptr,
           {}},
          &calls);
  EXPECT_EQ(calls, 2);
  for (int64_t p = 0; p < 2; ++p) {
    for (int64_t q = 0; q < 3; ++q) {
      const std::vector<float> ap(av.begin() + (p * 3 + q) * m * k,
                                  av.begin() + (p * 3 + q + 1) * m * k);
      const auto want = Reference(ap, bv, m, n, k);
      for (int64_t i = 0; i < m * n; ++i)
        EXPECT_NEAR(c2[(p + 2 * q) * m * n + i], want[i], 1e-5) << p << "," << q;
    }
  }
}

TEST_F(CublasTest, TypesMapToCublasTypes) {
  std::vector<GemmCall> calls;
  double x = 1;
  Dims d{{2, 2}, {2, 1}};
  for (const Scalar type :
       {Scalar::kFloat32, Scalar::kFloat64, Scalar::kFloat16, Scalar::kBfloat16}) {
    ASSERT_TRUE(
        PlanGemmCalls({ViewOf(&x, type, d), ViewOf(&x, type, d), ViewOf(&x, type, d), nullptr, {}},
                      true, [&](const GemmCall& c) { calls.push_back(c); }));
  }
  ASSERT_EQ(calls.size(), 4U);
  EXPECT_EQ(calls[0].type, cublas::kR32F);
  EXPECT_EQ(calls[0].compute, cublas::kCompute32F);
  EXPECT_EQ(calls[1].type, cublas::kR64F);
  EXPECT_EQ(calls[1].compute, cublas::kCompute64F);
  EXPECT_EQ(calls[2].type, cublas::kR16F);
  EXPECT_EQ(calls[2].compute, cublas::kCompute32F);  // float16 computes in float32
  EXPECT_EQ(calls[3].type, cublas::kR16BF);
  EXPECT_EQ(calls[3].compute, cublas::kCompute32F);
  EXPECT_TRUE(calls[0].accumulate);
}

TEST_F(CublasTest, OperandsWithoutAUnitStrideAreRefused) {
  float x[64] = {};
  Dims ok{{3, 3}, {3, 1}};
  Dims no_unit{{3, 3}, {6, 2}};
  Dims expanded_out{{3, 3}, {0, 1}};
  int emitted = 0;
  auto count = [&](const GemmCall&) { ++emitted; };
  EXPECT_FALSE(PlanGemmCalls({ViewOf(x, Scalar::kFloat32, no_unit),
                              ViewOf(x, Scalar::kFloat32, ok),
                              ViewOf(x, Scalar::kFloat32, ok),
                              nullptr,
                              {}},
                             false, count));
  EXPECT_FALSE(PlanGemmCalls({ViewOf(x, Scalar::kFloat32, ok),
                              ViewOf(x, Scalar::kFloat32, ok),
                              ViewOf(x, Scalar::kFloat32, expanded_out),
                              nullptr,
                              {}},
                             false, count));
  EXPECT_EQ(emitted, 0);
}

TEST_F(CublasTest, AFailingCallIsReportedWithItsStatusName) {
  CublasApi api;
  ASSERT_TRUE(LoadCublas(kFake, &api).ok());
  g_status = 13;
  float x[4] = {};
  GemmCall call;
  call.m = call.n = call.k = 2;
  call.a = reinterpret_cast<const char*>(x);
  call.b = call.a;
  call.c = reinterpret_cast<char*>(x);
  call.lda = call.ldb = call.ldc = 2;
  const auto r = RunGemmCall(api, &g_calls, call);
  EXPECT_EQ(r.failure, ComputeFailure::kCuda);
  EXPECT_STREQ(r.code(), "ERR_DLPACK_CUDA");
  EXPECT_EQ(r.detail, "CUBLAS_STATUS_EXECUTION_FAILED");
  api.status_name = nullptr;  // an old cuBLAS: the number instead
  EXPECT_EQ(RunGemmCall(api, &g_calls, call).detail, "CUBLAS_STATUS_13");
}

// A build without CUDA answers "unavailable" naming the build, never crashes.
TEST_F(CublasTest, WithoutCudaTheEntryIsUnavailable) {
#ifndef DLPACK_WITH_CUDA
  float x = 0;
  Dims d{{1, 1}, {1, 1}};
  MatmulArgs args{ViewOf(&x, Scalar::kFloat32, d),
                  ViewOf(&x, Scalar::kFloat32, d),
                  ViewOf(&x, Scalar::kFloat32, d),
                  nullptr,
                  {}};
  args.place.device_type = kDLCUDA;
  const auto r = dlnode::compute::Matmul(args);
  EXPECT_EQ(r.failure, ComputeFailure::kCudaUnavailable);
#else
  GTEST_SKIP() << "a CUDA build: CublasMatmul needs a GPU (not run here)";
#endif
}

}  // namespace
