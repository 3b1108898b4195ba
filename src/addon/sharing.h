// Bindings for docs/API.md "Sharing": sealed memfd segments ('shm'), ids
// of natively owned memory for worker threads ('local') and CUDA memory for
// other processes ('cuda-ipc').
#ifndef DLPACK_NODE_ADDON_SHARING_H_
#define DLPACK_NODE_ADDON_SHARING_H_

#include <napi.h>

namespace dlnode {

Napi::Value ShmCreate(const Napi::CallbackInfo& info);  // (nbytes) -> [handle, name, fd]
Napi::Value ShmOpen(const Napi::CallbackInfo& info);    // (name, pid, fd, minBytes) -> [handle, fd]
Napi::Value LocalShare(const Napi::CallbackInfo& info);   // (handle, device name) -> id string
Napi::Value LocalOpen(const Napi::CallbackInfo& info);    // (id string) -> [handle, device name]
Napi::Value LocalShares(const Napi::CallbackInfo& info);  // () -> registered count
// (handle) -> { handle (hex), ticket, pid, fd, device, size }
Napi::Value CudaIpcShare(const Napi::CallbackInfo& info);
// (handle hex, ticket, pid, fd, device, size) -> storage handle
Napi::Value CudaIpcOpen(const Napi::CallbackInfo& info);
Napi::Value CudaIpcCollect(const Napi::CallbackInfo& info);  // () -> frees still waiting
Napi::Value CudaIpcCounts(const Napi::CallbackInfo& info);   // () -> { exported, opened, waiting }

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_SHARING_H_
