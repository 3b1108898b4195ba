// Timings of the compute families' native cores (src/core/compute), without
// Node: `cmake --build build-cmake --target compute_bench && build-cmake/compute_bench
// [threads]`. Each row is the least and the median of its runs in ms, the
// process's CPU time beside the wall clock (on a loaded machine the CPU time
// is what the code costs), and for matmul GFLOP/s and the ratio to this
// machine's FMA peak, measured first by a loop of independent FMAs (the same
// loop bench/compute_peers.py's numbers are compared with). The peers (NumPy,
// torch) are bench/compute_peers.py, run beside it: figures in
// bench/README.md "Native cores".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "compute/boxes.h"
#include "compute/gemm.h"
#include "compute/index.h"
#include "compute/interpolate.h"
#include "compute/matmul.h"
#include "compute/norms.h"
#include "compute/scan.h"
#include "compute/sort.h"
#include "compute/stats.h"
#include "parallel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using dlnode::Scalar;
using namespace dlnode::compute;  // NOLINT(google-build-using-namespace): a bench of this namespace

double Now(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// Least and median wall and CPU time of `reps` runs, ms.
struct Timing {
  double wall_min, wall_median, cpu_min;
};

Timing Time(int reps, const std::function<void()>& f) {
  f();  // warm: pages faulted in, pool threads started
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    const double w0 = Now(CLOCK_MONOTONIC), c0 = Now(CLOCK_PROCESS_CPUTIME_ID);
    f();
    wall.push_back((Now(CLOCK_MONOTONIC) - w0) * 1e3);
    cpu.push_back((Now(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[0], wall[wall.size() / 2], cpu[0]};
}

void Row(const std::string& name, const Timing& t, double flops = 0, double peak = 0) {
  std::printf("%-44s wall min %9.4f ms  median %9.4f ms  cpu min %9.4f ms", name.c_str(),
              t.wall_min, t.wall_median, t.cpu_min);
  if (flops > 0) {
    const double gflops = flops / (t.wall_min * 1e-3) / 1e9;
    std::printf("  %6.1f GFLOP/s", gflops);
    if (peak > 0) std::printf(" (peak/that %.2f)", peak / gflops);
  }
  std::printf("\n");
}

#if defined(__x86_64__) && defined(__GNUC__)
// Twelve independent chains of 8-wide FMAs: one core's float32 peak.
__attribute__((target("avx2,fma"))) double FmaPeak() {
  double best = 0;
  for (int rep = 0; rep < 100; ++rep) {
    __m256 a[12];
    for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(1.0F + i * 1e-7F);
    const __m256 m = _mm256_set1_ps(0.9999999F), c = _mm256_set1_ps(1e-7F);
    const long iters = 1000000;
    const double t0 = Now(CLOCK_MONOTONIC);
    for (long n = 0; n < iters; ++n) {
      for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], m, c);
    }
    const double dt = Now(CLOCK_MONOTONIC) - t0;
    float sink[8];
    _mm256_storeu_ps(sink, a[0]);
    if (sink[0] == 12345.0F) std::puts("");
    best = std::max(best, iters * 12.0 * 16 / dt / 1e9);
  }
  return best;
}
#else
double FmaPeak() { return 0; }
#endif

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

struct Tensor {
  std::vector<float> data;
  std::vector<int64_t> shape, strides;
  explicit Tensor(std::vector<int64_t> s, uint32_t seed = 1) : shape(std::move(s)) {
    int64_t n = 1;
    strides.resize(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      strides[d] = n;
      n *= shape[d];
    }
    data = Random(static_cast<size_t>(n), seed);
  }
  View view() {
    return View{reinterpret_cast<char*>(data.data()), Scalar::kFloat32,
                static_cast<int>(shape.size()), shape.data(), strides.data()};
  }
};

void MatmulRow(const char* name, Tensor& a, Tensor& b, Tensor& c, double flops, double peak,
               int reps) {
  const MatmulArgs args{a.view(), b.view(), c.view(), nullptr, {}};
  Row(name, Time(reps, [&] { Matmul(args); }), flops, peak);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  dlnode::SetNumThreads(threads);
  const double peak = FmaPeak();
  std::printf("threads %d, GEMM kernels %s, FMA peak of one core %.1f GFLOP/s (float32)\n", threads,
              gemm::Kernels().name, peak);
  const double peak_all = peak * threads;
  {
    Tensor a({1024, 1024}, 1), b({1024, 1024}, 2), c({1024, 1024});
    MatmulRow("matmul [1024,1024]x[1024,1024]", a, b, c, 2.0 * 1024 * 1024 * 1024, peak_all, 15);
  }
  {
    Tensor a({8, 384}, 1), b({384, 384}, 2), c({8, 384});
    MatmulRow("matmul [8,384]x[384,384]", a, b, c, 2.0 * 8 * 384 * 384, 0, 2000);
  }
  {
    Tensor a({1000, 384}, 1), b({384, 1}, 2), c({1000, 1});
    MatmulRow("matmul [1000,384]x[384]", a, b, c, 2.0 * 1000 * 384, 0, 2000);
  }
  {
    Tensor x({256, 1000}), out({256, 1000});
    std::vector<int64_t> idx(256 * 1000);
    SortArgs args{x.view(),
                  true,
                  out.view(),
                  View{reinterpret_cast<char*>(idx.data()), Scalar::kInt64, 2, x.shape.data(),
                       x.strides.data()},
                  {}};
    Row("sort [256,1000] descending", Time(50, [&] { Sort(args); }));
    ScanArgs scan{false, x.view(), out.view(), {}};
    Row("cumsum [256,1000] dim 1", Time(200, [&] { Scan(scan); }));
  }
  {
    Tensor x({1, 8400, 84}), out({1, 8400, 1});
    std::vector<int64_t> idx(8400);
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(i * 37 % 84);
    std::vector<int64_t> shape = {1, 8400, 1}, strides = {8400, 1, 1};
    GatherArgs g{
        x.view(),
        2,
        View{reinterpret_cast<char*>(idx.data()), Scalar::kInt64, 3, shape.data(), strides.data()},
        out.view(),
        {}};
    Row("gather [1,8400,84] dim 2 (one per row)", Time(200, [&] { Gather(g); }));
  }
  {
    const int64_t n = 1000;
    std::vector<float> boxes(n * 4), scores(n);
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> pos(0, 600), size(10, 120), sc(0, 1);
    for (int64_t i = 0; i < n; ++i) {
      boxes[i * 4] = pos(gen);
      boxes[i * 4 + 1] = pos(gen);
      boxes[i * 4 + 2] = boxes[i * 4] + size(gen);
      boxes[i * 4 + 3] = boxes[i * 4 + 1] + size(gen);
      scores[i] = sc(gen);
    }
    std::vector<int64_t> bshape = {n, 4}, bstrides = {4, 1}, sshape = {n}, sstrides = {1}, keep(n);
    NmsArgs args{View{reinterpret_cast<char*>(boxes.data()), Scalar::kFloat32, 2, bshape.data(),
                      bstrides.data()},
                 View{reinterpret_cast<char*>(scores.data()), Scalar::kFloat32, 1, sshape.data(),
                      sstrides.data()},
                 nullptr,
                 0.5,
                 keep.data(),
                 {}};
    int64_t kept = 0;
    Row("nms 1000 boxes, iou 0.5", Time(100, [&] { Nms(args, &kept); }));
  }
  {
    Tensor x({1, 3, 160, 160}), out({1, 3, 640, 640});
    InterpolateArgs args;
    args.in = x.view();
    args.bilinear = true;
    args.out = out.view();
    Row("interpolate bilinear [1,3,160,160] -> 640", Time(50, [&] { Interpolate(args); }));
  }
  {
    Tensor x({256, 384}), out({256, 384}), w({384}), b({384});
    const View vw = w.view(), vb = b.view();
    LayerNormArgs args;
    args.in = x.view();
    args.weight = &vw;
    args.bias = &vb;
    args.out = out.view();
    Row("layerNorm [256,384]", Time(200, [&] { LayerNorm(args); }));
    Tensor means({256}), vars({256});
    StatsArgs st;
    st.op = StatsOp::kVarMean;
    st.in = x.view();
    st.reduced = 1;
    st.out = vars.view();
    st.mean = means.view();
    Row("varMean [256,384] dim 1", Time(200, [&] { Stats(st); }));
  }
  return 0;
}
