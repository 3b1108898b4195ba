#include "strided_copy.h"

#include <cstring>

#include "layout.h"

namespace dlnode {

int CoalesceDims(int ndim, const int64_t* shape, const int64_t* ds, const int64_t* ss,
                 int64_t* shape_out, int64_t* ds_out, int64_t* ss_out) {
  int n = 0;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 1) continue;
    if (n > 0 && ds_out[n - 1] == ds[i] * shape[i] && ss_out[n - 1] == ss[i] * shape[i]) {
      shape_out[n - 1] *= shape[i];
      ds_out[n - 1] = ds[i];
      ss_out[n - 1] = ss[i];
      continue;
    }
    shape_out[n] = shape[i];
    ds_out[n] = ds[i];
    ss_out[n] = ss[i];
    ++n;
  }
  return n;
}

void StridedCopy(int ndim, const int64_t* shape, uint64_t item_size, StridedView dst,
                 StridedView src) {
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) return;
  }
  int64_t n_shape[kMaxDims];
  int64_t n_ds[kMaxDims];
  int64_t n_ss[kMaxDims];
  const int n = CoalesceDims(ndim, shape, dst.strides, src.strides, n_shape, n_ds, n_ss);
  if (n == 0) {
    std::memmove(dst.first, src.first, item_size);
    return;
  }
  const int inner = n - 1;
  const bool inner_dense = n_ds[inner] == 1 && n_ss[inner] == 1;
  const int64_t isz = static_cast<int64_t>(item_size);
  int64_t index[kMaxDims] = {};
  char* d = dst.first;
  const char* s = src.first;
  for (;;) {
    if (inner_dense) {
      std::memmove(d, s, static_cast<size_t>(n_shape[inner]) * item_size);
    } else {
      char* dp = d;
      const char* sp = s;
      for (int64_t k = 0; k < n_shape[inner]; ++k) {
        std::memmove(dp, sp, item_size);
        dp += n_ds[inner] * isz;
        sp += n_ss[inner] * isz;
      }
    }
    // Odometer over the outer dimensions.
    int axis = inner - 1;
    for (; axis >= 0; --axis) {
      d += n_ds[axis] * isz;
      s += n_ss[axis] * isz;
      if (++index[axis] < n_shape[axis]) break;
      d -= n_ds[axis] * isz * n_shape[axis];
      s -= n_ss[axis] * isz * n_shape[axis];
      index[axis] = 0;
    }
    if (axis < 0) return;
  }
}

}  // namespace dlnode
