// Bindings for dl.cuda (API.md "CUDA").
#ifndef DLPACK_NODE_ADDON_CUDA_H_
#define DLPACK_NODE_ADDON_CUDA_H_

#include <napi.h>

namespace dlnode {

Napi::Value CudaInfo(const Napi::CallbackInfo& info);               // () -> { compiled, deviceCount, ... }
Napi::Value CudaSynchronize(const Napi::CallbackInfo& info);        // (device)
Napi::Value CudaStreamCreate(const Napi::CallbackInfo& info);       // (device) -> bigint
Napi::Value CudaStreamDestroy(const Napi::CallbackInfo& info);      // (device, bigint)
Napi::Value CudaStreamSynchronize(const Napi::CallbackInfo& info);  // (device, bigint)
Napi::Value CudaStreamWait(const Napi::CallbackInfo& info);         // (device, consumer bigint)

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_CUDA_H_
