// The host memory lib/memory.js manages for the tensors the library allocates:
// detaching buffers the library owns (dispose), huge-page advice for fresh
// large ones (src/core/pages.h).
#ifndef DLPACK_NODE_ADDON_MEMORY_H_
#define DLPACK_NODE_ADDON_MEMORY_H_

#include <napi.h>

namespace dlnode {

// (arrayBuffer) -> undefined
Napi::Value DetachBuffer(const Napi::CallbackInfo& info);

// (arrayBuffer) -> bytes advised: huge pages for a large buffer not yet
// touched (src/core/pages.h).
Napi::Value AdviseHugePages(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_MEMORY_H_
