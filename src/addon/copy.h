// Strided copies between JS buffers (clone, contiguous, copyFrom), with
// conversion between dtypes.
#ifndef DLPACK_NODE_ADDON_COPY_H_
#define DLPACK_NODE_ADDON_COPY_H_

#include <napi.h>

namespace dlnode {

// (dstView, dstOffset, dstDtype, srcView, srcOffset, srcDtype): copies and
// converts (src/core/convert.h); ndim and shape in the scratch block,
// destination strides in kStrides, source in kSourceStrides. Views are
// Uint8Arrays; offsets are bytes to element 0 from the view start; dtypes
// are indices into the table. Overlapping bytes go through a temporary.
Napi::Value CopyStrided(const Napi::CallbackInfo& info);

// The same arguments -> a Promise settled when the copy has run on a libuv
// thread (lib/route.js, `to({ async: true })`); the buffers are held until
// then. Overlapping source bytes are copied aside at the call.
Napi::Value CopyStridedAsync(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_COPY_H_
