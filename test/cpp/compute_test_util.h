// Views over test vectors for the compute families' tests.
#ifndef DLPACK_NODE_TEST_CPP_COMPUTE_TEST_UTIL_H_
#define DLPACK_NODE_TEST_CPP_COMPUTE_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "compute/view.h"
#include "parallel.h"

namespace compute_test {

using dlnode::Scalar;
using dlnode::compute::View;

// Shape and strides kept alive beside the view that points at them.
struct Dims {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

// Row-major strides of shape.
inline std::vector<int64_t> Contiguous(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = step;
    step *= shape[d];
  }
  return s;
}

template <class T>
View ViewOf(T* data, Scalar type, const Dims& dims) {
  return View{reinterpret_cast<char*>(data), type, static_cast<int>(dims.shape.size()),
              dims.shape.data(), dims.strides.data()};
}

inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.0F, float hi = 1.0F) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

inline uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Restores the thread count a test changes.
class ThreadCount {
 public:
  ThreadCount() : saved_(dlnode::GetNumThreads()) {}
  ~ThreadCount() { dlnode::SetNumThreads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

}  // namespace compute_test

#endif  // DLPACK_NODE_TEST_CPP_COMPUTE_TEST_UTIL_H_
