// The DLPack import checklist (docs/API.md "fromDLPack"): every field of a
// producer's DLTensor is checked, in a fixed order, before anything is
// consumed. The result is a Layout (layout.h) in which every number fits a
// JavaScript safe integer, so JS can address the memory with typed arrays.
#ifndef DLPACK_NODE_CORE_CHECKLIST_H_
#define DLPACK_NODE_CORE_CHECKLIST_H_

#include "dlpack_abi.h"
#include "dtype.h"
#include "layout.h"
#include "result.h"

namespace dlnode {

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

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CHECKLIST_H_
