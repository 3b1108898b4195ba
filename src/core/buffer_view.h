// The numbers of fromBuffer (docs/API.md "Creating tensors"): given the source's
// byte length, where the source view starts in its buffer, the element size
// and the caller's offset and count, how many elements the tensor holds.
// lib/create.js checks the types (numbers, integers) and builds the errors;
// this is the one place that does the arithmetic.
#ifndef DLPACK_NODE_CORE_BUFFER_VIEW_H_
#define DLPACK_NODE_CORE_BUFFER_VIEW_H_

#include <cstdint>

#include "result.h"

namespace dlnode {

// In the order they are checked; the first that applies is reported.
// X(Constant, code, jsName) (result.h); lib/create.js reads the names from
// init() (src/addon/convention.h). kSource is a bug in lib/ (JS never passes
// one): its message is worded here and the addon throws it. The others are
// the caller's mistakes, handed back as numbers: lib/create.js words their
// errors, with this table's codes, since they name the caller's options.
#define DLNODE_VIEW_FAILURES(X)                                                               \
  X(kNone, nullptr, none)                                                                     \
  X(kSource, code::kInvalidArgValue,                                                          \
    source) /* byte length, view base or item size unusable (JS never passes one) */          \
  X(kOffset, code::kOutOfRange, offset) /* offset not an integer from 0 to the byte length */ \
  X(kMisaligned, code::kMisaligned,                                                           \
    misaligned) /* view base + offset not a multiple of the item size */                      \
  X(kRemainder, code::kOutOfRange,                                                            \
    remainder) /* count -1, but the bytes after the offset are not whole elements */          \
  X(kCount, code::kOutOfRange,                                                                \
    count) /* count neither -1 nor an integer >= 0 whose elements fit after the offset */

DLNODE_DEFINE_FAILURES(ViewFailure, DLNODE_VIEW_FAILURES)

struct ViewResult : Result<ViewFailure> {
  uint64_t count = 0;  // elements, when failure is kNone
};

// The arguments are JavaScript numbers as JS passes them. `byte_length` and
// `view_base` must be safe integers >= 0 whose sum is a safe integer, and
// `item_size` a safe integer >= 1 (else kSource). `offset` and `count` may be
// any double: NaN, infinities and fractions are refused, -0 counts as 0, and
// a count of -1 means "all bytes after the offset".
ViewResult CheckBufferView(double byte_length, double view_base, double item_size, double offset,
                           double count);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_BUFFER_VIEW_H_
