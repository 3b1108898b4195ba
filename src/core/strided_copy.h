// Copy between two strided views of the same shape and element size. Used by
// clone(), contiguous() and copyFrom(); strides are in elements and may be
// negative or zero.
#ifndef DLPACK_NODE_CORE_STRIDED_COPY_H_
#define DLPACK_NODE_CORE_STRIDED_COPY_H_

#include <cstdint>

namespace dlnode {

struct StridedView {
  char* first;  // element 0
  const int64_t* strides;
};

// Drops size-1 dimensions and merges neighbours that are contiguous in both
// views (so a contiguous copy becomes one loop); returns the new ndim.
int CoalesceDims(int ndim, const int64_t* shape, const int64_t* ds, const int64_t* ss,
                 int64_t* shape_out, int64_t* ds_out, int64_t* ss_out);

void StridedCopy(int ndim, const int64_t* shape, uint64_t item_size, StridedView dst,
                 StridedView src);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_STRIDED_COPY_H_
