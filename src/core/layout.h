// A tensor's layout as the library addresses it: shape and strides in
// elements, the dtype's index, the device and the byte extent around element 0,
// every number a JavaScript safe integer (lib/layout.js is its twin). The DLPack
// import checklist (checklist.h) makes one from a producer's DLTensor.
#ifndef DLPACK_NODE_CORE_LAYOUT_H_
#define DLPACK_NODE_CORE_LAYOUT_H_

#include <cstdint>
#include <string>

#include "dlpack_abi.h"
#include "dtype.h"

namespace dlnode {

constexpr int kMaxDims = 64;
// Largest integer a JavaScript number holds exactly (2^53 - 1).
constexpr uint64_t kMaxSafeInteger = (UINT64_C(1) << 53) - 1;

struct Layout {
  int ndim = 0;
  int dtype_index = -1;
  uint64_t item_size = 0;
  DLDevice device{kDLCPU, 0};
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in elements, always filled in
  uint64_t size = 0;               // element count
  // Address of element 0 (data + byte_offset) and the byte extent the tensor
  // touches around it: [first - low, first + high). Both are 0 for size 0.
  uintptr_t first = 0;
  uint64_t low = 0;
  uint64_t high = 0;
  uint64_t extent() const { return low + high; }
  uintptr_t base() const { return first - low; }
};

// Devices whose memory the CPU can read: CPU, CUDA pinned host, CUDA managed.
bool IsHostAccessible(int32_t device_type);

// Byte extent [low, high) around element 0 of a tensor given in elements.
// Returns false on overflow or when a value leaves the safe-integer range.
bool ComputeExtent(int ndim, const int64_t* shape, const int64_t* strides, uint64_t item_size,
                   uint64_t* low, uint64_t* high);

// The element count of `shape` into *count: 0 when a dim is 0, else the
// product. Returns false when the product passes kMaxSafeInteger (torch:
// "numel: integer multiplication overflow"; lib/layout.js refuses such a view
// when it is made, and every compute entry checks again).
bool CountElements(int ndim, const int64_t* shape, uint64_t* count);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_LAYOUT_H_
