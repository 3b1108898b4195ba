// dl.normalize's one pass, host and CUDA (src/core/compute/normalize.h):
// one reader of one descriptor, whose core entry forks at the bottom.
// lib/normalize.js validates, converts the input and picks the target first.
#ifndef DLPACK_NODE_ADDON_NORMALIZE_H_
#define DLPACK_NODE_ADDON_NORMALIZE_H_

#include <napi.h>

namespace dlnode {

// (device, inDtype, outDtype, stream, out, outOffset, in, inOffset, meanStd,
// scale) -> whether the pass ran: device -1 (kHostDevice, always true) or a
// CUDA device's index, whose one-pass kernel is enqueued on `stream` (a
// BigInt) where it takes the case, false with nothing enqueued where it does
// not (lib/normalize.js then composes elementwise kernels). out and in are
// memory (a Uint8Array or a storage handle) with the byte offset of element
// 0; meanStd a Float64Array of C means then C stds. ndim and the shape in the
// scratch block; strides in elements, out's in kStrides, in's in
// kSourceStrides.
Napi::Value NormalizeOnce(const Napi::CallbackInfo& info);

// The same arguments on the host, the `stage` mask last -> a Promise settled
// when the pass has run on a libuv thread (`{ async: true }`); what it uses is
// held or staged until then (job_memory.h).
Napi::Value NormalizeAsync(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_NORMALIZE_H_
