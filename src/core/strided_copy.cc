#include "strided_copy.h"

#include <cstring>

#include "strided_loop.h"

namespace dlnode {
namespace {

// One run of the innermost dimension: p[0] the destination, p[1] the source,
// byte strides s; elements of Size bytes (a fixed-size memcpy is one move).
template <uint64_t Size>
void CopyRun(char** p, const int64_t* s, int64_t n) {
  char* d = p[0];
  const char* src = p[1];
  for (int64_t k = 0; k < n; ++k, d += s[0], src += s[1]) std::memcpy(d, src, Size);
}

}  // namespace

// Copy between two strided views of the same shape and element size. Used by
// clone(), contiguous() and copyFrom(); strides are in elements and may be
// negative or zero. The caller stages overlapping bytes (ConvertStrided).
void StridedCopy(int ndim, const int64_t* shape, uint64_t item_size, StridedView dst,
                 StridedView src) {
  strided::Plan plan = strided::Pair(ndim, shape, dst.first, dst.strides, item_size, src.first,
                                     src.strides, item_size);
  const auto item = static_cast<int64_t>(item_size);
  strided::Run(&plan, [item, item_size](char** p, const int64_t* s, int64_t n) {
    if (s[0] == item && s[1] == item) {
      std::memcpy(p[0], p[1], static_cast<size_t>(n) * item_size);  // a dense run
      return;
    }
    switch (item_size) {
      case 1:
        return CopyRun<1>(p, s, n);
      case 2:
        return CopyRun<2>(p, s, n);
      case 4:
        return CopyRun<4>(p, s, n);
      case 8:
        return CopyRun<8>(p, s, n);
      case 16:
        return CopyRun<16>(p, s, n);
      default: {
        char* d = p[0];
        const char* from = p[1];
        for (int64_t k = 0; k < n; ++k, d += s[0], from += s[1]) std::memcpy(d, from, item_size);
      }
    }
  });
}

}  // namespace dlnode
