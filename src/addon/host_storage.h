// Foreign CPU-accessible memory adopted from a DLPack producer, owned by a JS
// Storage object (lib/storage.js). The JS owner's hold is released inside GC
// (basic finalizer) or by dispose(); an ArrayBuffer over the memory is made
// only when JS asks for one, because Node runs ArrayBuffer finalizers on a
// later event-loop turn and a synchronous loop must not pile memory up.
#ifndef DLPACK_NODE_ADDON_HOST_STORAGE_H_
#define DLPACK_NODE_ADDON_HOST_STORAGE_H_

#include <napi.h>

#include "../core/managed.h"

namespace dlnode {

// Takes over one reference of `storage` and ties it to `owner`; reports the
// memory to V8 so that GC runs in time.
void AdoptStorage(napi_env env, napi_value owner, ForeignStorage* storage);

// The ForeignStorage behind `owner`, or throws ERR_DLPACK_DISPOSED.
ForeignStorage* StorageOf(napi_env env, napi_value owner);

Napi::Value StorageBuffer(const Napi::CallbackInfo& info);   // (owner) -> ArrayBuffer
Napi::Value StorageRelease(const Napi::CallbackInfo& info);  // (owner) -> undefined

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_HOST_STORAGE_H_
