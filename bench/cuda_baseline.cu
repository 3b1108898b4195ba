// Baseline for npm run bench (bench/cuda.js): the same CUDA operations the
// bench times through dlpack, done directly with the runtime API. Prints one
// JSON object: GB/s for copies, ns per allocation + free.
//   nvcc -O2 -o cuda_baseline bench/cuda_baseline.cu && ./cuda_baseline <bytes> <reps>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e = (call);                                                  \
    if (e != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

using Clock = std::chrono::steady_clock;

template <typename F>
double MedianSeconds(int reps, F f) {
  std::vector<double> t;
  f();  // warm-up
  for (int i = 0; i < reps; ++i) {
    const auto start = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (256u << 20);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  void* device = nullptr;
  void* device2 = nullptr;
  void* pinned = nullptr;
  CHECK(cudaMalloc(&device, bytes));
  CHECK(cudaMalloc(&device2, bytes));
  CHECK(cudaMallocHost(&pinned, bytes));
  std::vector<char> pageable(bytes, 1);
  std::memset(pinned, 1, bytes);
  const double gb = static_cast<double>(bytes) / 1e9;
  // Each timed copy ends with cudaDeviceSynchronize: a device-to-device
  // cudaMemcpy may return before the copy has run (CUDA Runtime API,
  // "API synchronization behavior"), and timing only its launch measured
  // impossible rates (59,732 GB/s on an H100: bench/README.md "CUDA").
  auto copy = [&](void* dst, const void* src) {
    return gb / MedianSeconds(reps, [&] {
             CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
             CHECK(cudaDeviceSynchronize());
           });
  };
  const double h2d_pageable = copy(device, pageable.data());
  const double h2d_pinned = copy(device, pinned);
  const double d2h_pageable = copy(pageable.data(), device);
  const double d2h_pinned = copy(pinned, device);
  const double d2d = copy(device2, device);
  // Asynchronous host -> device from pinned memory on a stream: how long the
  // enqueue takes, and GB/s once the stream has run it.
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<double> enqueue;
  const double h2d_async =
      gb / MedianSeconds(reps, [&] {
        const auto start = Clock::now();
        CHECK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, stream));
        enqueue.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        CHECK(cudaStreamSynchronize(stream));
      });
  std::sort(enqueue.begin(), enqueue.end());
  const double enqueue_us = enqueue[enqueue.size() / 2] * 1e6;
  CHECK(cudaStreamDestroy(stream));
  // Small allocations: plain cudaMalloc/cudaFree, as a user without a
  // caching allocator would do them.
  const int n = 1000;
  const double alloc = MedianSeconds(reps,
                                     [&] {
                                       for (int i = 0; i < n; ++i) {
                                         void* p = nullptr;
                                         CHECK(cudaMalloc(&p, 1024));
                                         CHECK(cudaFree(p));
                                       }
                                     }) /
                       n * 1e9;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "{\"gpu\":\"%s\",\"bytes\":%zu,\"h2d_pageable\":%.3f,\"h2d_pinned\":%.3f,\"d2h_pageable\":%."
      "3f,"
      "\"d2h_pinned\":%.3f,\"d2d\":%.3f,\"h2d_async\":%.3f,\"h2d_async_enqueue_us\":%.2f,"
      "\"alloc_free_ns\":%.1f}\n",
      prop.name, bytes, h2d_pageable, h2d_pinned, d2h_pageable, d2h_pinned, d2d, h2d_async,
      enqueue_us, alloc);
  cudaFree(device);
  cudaFree(device2);
  cudaFreeHost(pinned);
  return 0;
}
