// Tensor -> DLManagedTensor(Versioned) for native code (docs/API.md "DLPack
// protocol"). JS has chosen the ABI, flags and device, and made any copy; this
// pins the memory and fills the managed tensor, whose pointer it returns.
#ifndef DLPACK_NODE_ADDON_EXPORT_H_
#define DLPACK_NODE_ADDON_EXPORT_H_

#include <napi.h>

namespace dlnode {

// (source, isForeign, byteOffset, dtypeIndex, flags, versioned, deviceType,
//  deviceId) -> bigint; ndim, shape and strides in the scratch block.
// `source` is a typed array over the JS buffer, or a foreign storage handle.
Napi::Value ExportTensor(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_EXPORT_H_
