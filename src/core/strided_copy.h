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

// dst[i] = src[i] for every index of `shape`, strides in elements (negative
// or zero too), split across the host pool (strided_loop.h). The two views
// must not overlap (ConvertStrided stages overlapping bytes first).
void StridedCopy(int ndim, const int64_t* shape, uint64_t item_size, StridedView dst,
                 StridedView src);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_STRIDED_COPY_H_
