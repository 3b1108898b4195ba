// Tensor -> DLManagedTensor(Versioned) for native code (docs/API.md "DLPack
// protocol"). JS has chosen the ABI, flags and device, and made any copy; this
// pins the memory and fills the managed tensor, whose pointer it returns.
#ifndef DLPACK_NODE_ADDON_EXPORT_H_
#define DLPACK_NODE_ADDON_EXPORT_H_

#include <napi.h>

namespace dlnode {

// (source, isForeign, versioned) -> bigint; in the scratch block: ndim,
// shape, strides, byteOffset, dtype (index), flags, deviceType, deviceId.
// `source` is a typed array over the JS buffer, or a foreign storage handle.
Napi::Value ExportTensor(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_EXPORT_H_
