// Tensor -> DLPack capsule (API.md "DLPack protocol"). JS has chosen the ABI,
// flags, device and whether to copy; this fills the managed tensor.
#ifndef DLPACK_NODE_ADDON_EXPORT_H_
#define DLPACK_NODE_ADDON_EXPORT_H_

#include <napi.h>

namespace dlnode {

// (capsule, source, isForeign, byteOffset, dtypeIndex, flags, versioned,
//  deviceType, deviceId); ndim, shape and strides in the scratch block.
// `source` is a typed array over the JS buffer, or a Storage owner object.
Napi::Value ExportTensor(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_EXPORT_H_
