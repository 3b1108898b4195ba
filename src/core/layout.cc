#include "layout.h"

namespace dlnode {

bool IsHostAccessible(int32_t device_type) {
  return device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLCUDAManaged;
}

bool ComputeExtent(int ndim, const int64_t* shape, const int64_t* strides, uint64_t item_size,
                   uint64_t* low, uint64_t* high) {
  uint64_t lo = 0;
  uint64_t hi = 0;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) {
      *low = 0;
      *high = 0;
      return true;
    }
  }
  for (int i = 0; i < ndim; ++i) {
    const uint64_t span = static_cast<uint64_t>(shape[i] - 1);
    const int64_t stride = strides[i];
    const uint64_t magnitude = stride < 0
                                   ? (stride == INT64_MIN ? 0 : static_cast<uint64_t>(-stride))
                                   : static_cast<uint64_t>(stride);
    if (stride == INT64_MIN) return false;
    uint64_t step = 0;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(span, magnitude, &step) ||
        __builtin_mul_overflow(step, item_size, &bytes)) {
      return false;
    }
    uint64_t& side = stride < 0 ? lo : hi;
    if (__builtin_add_overflow(side, bytes, &side)) return false;
  }
  if (__builtin_add_overflow(hi, item_size, &hi)) return false;
  if (lo > kMaxSafeInteger || hi > kMaxSafeInteger || lo + hi > kMaxSafeInteger) return false;
  *low = lo;
  *high = hi;
  return true;
}

bool CountElements(int ndim, const int64_t* shape, uint64_t* count) {
  uint64_t n = 1;
  bool fits = true;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return false;
    if (shape[i] == 0) {
      *count = 0;
      return true;
    }
    // Past the limit the count is refused, unless a later dim is 0 (a shape
    // with a 0 dim has no elements, whatever its other dims).
    if (fits &&
        (__builtin_mul_overflow(n, static_cast<uint64_t>(shape[i]), &n) || n > kMaxSafeInteger)) {
      fits = false;
    }
  }
  *count = n;
  return fits;
}

}  // namespace dlnode
