// fromBuffer's numbers (lib/create.js), checked by the core's
// CheckBufferView: the one copy of that arithmetic.
#ifndef DLPACK_NODE_ADDON_BUFFER_VIEW_H_
#define DLPACK_NODE_ADDON_BUFFER_VIEW_H_

#include <napi.h>

namespace dlnode {

// () -> the element count, or minus a ViewFailure (-2 to -5) that
// lib/create.js turns into its error. The arguments are in the scratch
// block: byteLength, viewBase, itemSize, offset, count from slot kView on
// (five numbers as arguments would cost more than the check itself).
// A kSource failure throws here: JS passes only real buffers' numbers.
Napi::Value BufferViewCount(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_BUFFER_VIEW_H_
