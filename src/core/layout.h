// The DLPack import checklist (docs/API.md "fromDLPack"): every field of a
// producer's DLTensor is checked, in a fixed order, before anything is
// consumed. The result is a Layout in which every number fits a JavaScript
// safe integer, so JS can address the memory with typed arrays.
#ifndef DLPACK_NODE_CORE_LAYOUT_H_
#define DLPACK_NODE_CORE_LAYOUT_H_

#include <cstdint>
#include <string>

#include "dlpack_abi.h"
#include "dtype.h"
#include "result.h"

namespace dlnode {

constexpr int kMaxDims = 64;
// Largest integer a JavaScript number holds exactly (2^53 - 1).
constexpr uint64_t kMaxSafeInteger = (UINT64_C(1) << 53) - 1;

// Which step of the checklist refused the tensor: X(Constant, code) (result.h).
// A kVersion refusal consumes the capsule (DLPack: an unknown major version
// means "call the deleter and read nothing else"); the others leave it intact.
#define DLNODE_CHECK_FAILURES(X)                                                                   \
  X(kNone, nullptr)                                                                                \
  X(kVersion, code::kUnsupported)    /* major version is neither 0 nor 1 */                        \
  X(kNdim, code::kUnsupported)       /* ndim < 0 or > kMaxDims */                                  \
  X(kDevice, code::kUnsupported)     /* not a device this build can address */                     \
  X(kNoCuda, code::kCudaUnavailable) /* kDLCUDA memory, and this build has no CUDA support */      \
  X(kLanes, code::kUnsupported)      /* lanes != 1 */                                              \
  X(kDtype, code::kUnsupported)      /* unknown (code, bits) */                                    \
  X(kShape, code::kUnsupported)      /* NULL shape with ndim > 0, negative dims, count overflow */ \
  X(kStrides, code::kUnsupported)    /* NULL strides where the version forbids it, overflow */     \
  X(kByteOffset, code::kUnsupported) /* data + byte_offset wraps, or the extent leaves the         \
                                        address space */

DLNODE_DEFINE_FAILURES(CheckFailure, DLNODE_CHECK_FAILURES)
using CheckResult = Result<CheckFailure>;  // the message names the field, expected, received

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

// Checks `t` and fills `out`. `null_strides_ok` is true for legacy capsules
// and versioned ones older than 1.2, where NULL strides mean row-major.
// `allow_cuda` admits kDLCUDA memory (a build with CUDA support): its address
// is checked like any other but never read by the host; without it kDLCUDA
// memory fails with kNoCuda.
CheckResult CheckTensor(const DLTensor& t, bool null_strides_ok, const DtypeTable& dtypes,
                        Layout* out, bool allow_cuda = false);

// The whole checklist for a producer's struct. `version` is a versioned
// struct's version, nullptr for a legacy DLManagedTensor. A major version
// above 1 fails with kVersion before `t` is read (its layout may differ);
// NULL strides mean row-major only in legacy structs and versions before 1.2.
CheckResult CheckManagedTensor(const DLPackVersion* version, const DLTensor& t,
                               const DtypeTable& dtypes, Layout* out, bool allow_cuda = false);

// Byte extent [low, high) around element 0 of a tensor given in elements.
// Returns false on overflow or when a value leaves the safe-integer range.
bool ComputeExtent(int ndim, const int64_t* shape, const int64_t* strides, uint64_t item_size,
                   uint64_t* low, uint64_t* high);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_LAYOUT_H_
