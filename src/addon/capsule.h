// The native side of a DLPackCapsule adopted with fromPointer (lib/capsule.js):
// a handle owning one managed tensor. Until it is consumed, handed out by
// toPointer() or disposed, the handle owns the tensor, and its GC finalizer
// calls the deleter.
#ifndef DLPACK_NODE_ADDON_CAPSULE_H_
#define DLPACK_NODE_ADDON_CAPSULE_H_

#include <napi.h>

#include <utility>

#include "../core/managed.h"
#include "handle.h"

namespace dlnode {

struct CapsuleState : Tagged {
  explicit CapsuleState(ManagedTensor&& m) : Tagged(kCapsuleTag), managed(std::move(m)) {}
  ManagedTensor managed;  // empty once consumed, handed out or disposed
};

// The state of a handle that still owns its tensor; throws ERR_DLPACK_CONSUMED.
CapsuleState& LiveCapsule(napi_env env, napi_value handle);

// (bigint, versioned) -> handle; the struct's version in scratch kMajor/kMinor.
Napi::Value CapsuleFromPointer(const Napi::CallbackInfo& info);
Napi::Value CapsuleToPointer(const Napi::CallbackInfo& info);  // (handle) -> bigint
Napi::Value CapsuleDispose(const Napi::CallbackInfo& info);    // (handle)
Napi::Value CapsuleOwns(const Napi::CallbackInfo& info);       // (handle) -> bool

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_CAPSULE_H_
