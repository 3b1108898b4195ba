// The native side of DLPackCapsule (lib/dlpack.js): a JS object wrapping one
// managed tensor. Until it is consumed, handed out by toPointer() or disposed,
// the capsule owns the tensor, and its GC finalizer calls the deleter.
#ifndef DLPACK_NODE_ADDON_CAPSULE_H_
#define DLPACK_NODE_ADDON_CAPSULE_H_

#include <napi.h>

#include "../core/managed.h"

namespace dlnode {

struct CapsuleState {
  AnyManaged managed;  // managed.ptr == nullptr once consumed
};

void WrapCapsule(napi_env env, napi_value capsule, AnyManaged managed);
// The state of a capsule that still owns its tensor; throws ERR_DLPACK_CONSUMED.
CapsuleState& LiveCapsule(napi_env env, napi_value capsule);

Napi::Value CapsuleFromPointer(const Napi::CallbackInfo& info);  // (capsule, bigint, versioned)
Napi::Value CapsuleToPointer(const Napi::CallbackInfo& info);    // (capsule) -> bigint
Napi::Value CapsuleDispose(const Napi::CallbackInfo& info);      // (capsule)
Napi::Value CapsuleOwns(const Napi::CallbackInfo& info);       // (capsule) -> bool
Napi::Value CapsuleVersion(const Napi::CallbackInfo& info);      // (capsule) -> scratch major/minor

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_CAPSULE_H_
