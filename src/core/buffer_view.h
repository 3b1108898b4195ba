// The numbers of fromBuffer (docs/API.md "Creating tensors"): given the source's
// byte length, where the source view starts in its buffer, the element size
// and the caller's offset and count, how many elements the tensor holds.
// lib/create.js checks the types (numbers, integers) and builds the errors;
// this is the one place that does the arithmetic.
#ifndef DLPACK_NODE_CORE_BUFFER_VIEW_H_
#define DLPACK_NODE_CORE_BUFFER_VIEW_H_

#include <cstdint>

namespace dlnode {

// In the order they are checked; the first that applies is reported.
// X(jsName, Constant, value); lib/create.js reads them from init()
// (src/addon/convention.h) and words the error of each but kSource.
#define DLNODE_VIEW_FAILURES(X)                                                                   \
  X(none, kNone, 0)                                                                               \
  X(source, kSource, 1) /* byte length, view base or item size unusable (JS never passes one) */  \
  X(offset, kOffset, 2) /* offset not an integer from 0 to the byte length */                     \
  X(misaligned, kMisaligned, 3) /* view base + offset not a multiple of the item size */          \
  X(remainder, kRemainder,                                                                        \
    4)                /* count -1, but the bytes after the offset are not whole elements */       \
  X(count, kCount, 5) /* count neither -1 nor an integer >= 0 whose elements fit after the offset \
                       */

enum class ViewFailure {
#define DLNODE_VIEW_FAILURE(js, constant, value) constant = (value),
  DLNODE_VIEW_FAILURES(DLNODE_VIEW_FAILURE)
#undef DLNODE_VIEW_FAILURE
};

struct ViewResult {
  ViewFailure failure = ViewFailure::kNone;
  uint64_t count = 0;  // elements, when failure is kNone
  bool ok() const { return failure == ViewFailure::kNone; }
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
