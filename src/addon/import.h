// DLPack capsule -> tensor memory (docs/API.md "fromDLPack"), following the fixed
// checklist; the capsule is consumed only after every check has passed.
#ifndef DLPACK_NODE_ADDON_IMPORT_H_
#define DLPACK_NODE_ADDON_IMPORT_H_

#include <napi.h>

namespace dlnode {

// (capsuleHandle, allowCopy) -> typed array | storage handle | ArrayBuffer.
// Writes the layout to the scratch block; slot kResult says which was
// returned: our own JS buffer (zero-copy), a handle owning foreign memory,
// or a copy (only where the runtime refuses external buffers).
Napi::Value ImportCapsule(const Napi::CallbackInfo& info);

// (bool) test hook: behave as a runtime that refuses external ArrayBuffers.
Napi::Value SetExternalBuffers(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_IMPORT_H_
