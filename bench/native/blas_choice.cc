// The measurement behind docs/development.md "The BLAS": sgemm and sgemv of
// the shapes on one library (BACKEND_EIGEN, BACKEND_OPENBLAS,
// BACKEND_BLIS), on its own threads (lib1, lib2) or split over this project's
// pool (pool1, pool2) in fixed row blocks. bench/blas_choice.sh builds one
// binary per library and runs them in turn; the CPU time is the default clock
// (WALL=1 for the wall clock).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include "parallel.h"
#if defined(BACKEND_EIGEN)
#include <Eigen/Core>
#ifdef COLMAJOR
using ColMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
void Gemm(int m, int n, int k, const float* a, const float* b, float* c) {
  Eigen::Map<const ColMat> A(a, k, m), B(b, n, k);
  Eigen::Map<ColMat> C(c, n, m);
  C.noalias() = B * A;
}
#define Gemm GemmRow
#endif
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
void Gemm(int m, int n, int k, const float* a, const float* b, float* c) {
  Eigen::Map<const RowMat> A(a, m, k), B(b, k, n);
  Eigen::Map<RowMat> C(c, m, n);
  C.noalias() = A * B;
}
#undef Gemm
void Gemv(int m, int k, const float* a, const float* x, float* y) {
  Eigen::Map<const RowMat> A(a, m, k);
  Eigen::Map<const Eigen::VectorXf> X(x, k);
  Eigen::Map<Eigen::VectorXf> Y(y, m);
  Y.noalias() = A * X;
}
void SetLibThreads(int) {}
const char* kName = "eigen";
#else
extern "C" {
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*);
void sgemv_(const char*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
#if defined(BACKEND_OPENBLAS)
void openblas_set_num_threads(int);
#else
void bli_thread_set_num_threads(long);
#endif
}
// Row-major C = A B is column-major C^T = B^T A^T.
void Gemm(int m, int n, int k, const float* a, const float* b, float* c) {
  const float one = 1, zero = 0;
  sgemm_("N", "N", &n, &m, &k, &one, b, &n, a, &k, &zero, c, &n);
}
void Gemv(int m, int k, const float* a, const float* x, float* y) {
  const float one = 1, zero = 0;
  const int inc = 1;
  sgemv_("T", &k, &m, &one, a, &k, x, &inc, &zero, y, &inc);
}
#if defined(BACKEND_OPENBLAS)
void SetLibThreads(int t) { openblas_set_num_threads(t); }
const char* kName = "openblas";
#else
void SetLibThreads(int t) { bli_thread_set_num_threads(t); }
const char* kName = "blis";
#endif
#endif

// Rows split over our pool in fixed blocks of 64 (thread-count independent).
void GemmPool(int m, int n, int k, const float* a, const float* b, float* c) {
  const int64_t block = m >= 128 ? 64 : m;
  const int64_t blocks = (m + block - 1) / block;
  dlnode::ParallelFor(blocks, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t r = i * block, rows = std::min<int64_t>(block, m - r);
      Gemm(static_cast<int>(rows), n, k, a + r * k, b, c + r * n);
    }
  });
}
void GemvPool(int m, int k, const float* a, const float* x, float* y) {
  const int64_t block = 256;
  const int64_t blocks = (m + block - 1) / block;
  dlnode::ParallelFor(blocks, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t r = i * block, rows = std::min<int64_t>(block, m - r);
      Gemv(static_cast<int>(rows), k, a + r * k, x, y + r);
    }
  });
}

template <class F>
void Time(const char* label, double flops, int reps, const F& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    timespec a, b;
    clock_gettime(getenv("WALL") ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &a);
    f();
    clock_gettime(getenv("WALL") ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &b);
    t.push_back((b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec));
  }
  std::sort(t.begin(), t.end());
  std::printf("%-9s %-28s best %9.4f ms (%6.1f GFLOP/s)  median %9.4f ms\n", kName, label,
              t[0] * 1e3, flops / t[0] / 1e9, t[t.size() / 2] * 1e3);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "lib1";  // lib1, lib2, pool2, pool1
  const int threads = mode.back() - '0';
  const bool pool = mode.rfind("pool", 0) == 0;
  SetLibThreads(pool ? 1 : threads);
#if defined(BACKEND_EIGEN)
  if (getenv("L1"))
    Eigen::setCpuCacheSizes(atol(getenv("L1")), atol(getenv("L2")), atol(getenv("L3")));
  std::ptrdiff_t l1, l2, l3;
  Eigen::internal::manage_caching_sizes(Eigen::GetAction, &l1, &l2, &l3);
  std::printf("caches %td %td %td\n", l1, l2, l3);
#endif
  dlnode::SetNumThreads(pool ? threads : 1);
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1, 1);
  auto rnd = [&](size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = d(gen);
    return v;
  };
  auto A = rnd(1024 * 1024), B = rnd(1024 * 1024), C = rnd(1024 * 1024);
  auto a8 = rnd(8 * 384), w = rnd(384 * 384), c8 = rnd(8 * 384);
  auto big = rnd(1000 * 384), x = rnd(384), y = rnd(1000);
  char label[64];
  std::snprintf(label, sizeof label, "1024^3 %s", mode.c_str());
  Time(label, 2.0 * 1024 * 1024 * 1024, 15, [&] {
    if (pool)
      GemmPool(1024, 1024, 1024, A.data(), B.data(), C.data());
    else
      Gemm(1024, 1024, 1024, A.data(), B.data(), C.data());
  });
  std::snprintf(label, sizeof label, "[8,384]x[384,384] %s", mode.c_str());
  Time(label, 2.0 * 8 * 384 * 384, 2000, [&] {
    if (pool)
      GemmPool(8, 384, 384, a8.data(), w.data(), c8.data());
    else
      Gemm(8, 384, 384, a8.data(), w.data(), c8.data());
  });
  std::snprintf(label, sizeof label, "[1000,384]x[384] %s", mode.c_str());
  Time(label, 2.0 * 1000 * 384, 2000, [&] {
    if (pool)
      GemvPool(1000, 384, big.data(), x.data(), y.data());
    else
      Gemv(1000, 384, big.data(), x.data(), y.data());
  });
}
