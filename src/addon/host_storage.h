// Natively owned memory (imported from a DLPack producer, CUDA memory, a
// shared-memory segment, or opened from another thread), owned by the
// handle a JS Storage object keeps (lib/storage.js). The JS owner's hold is released inside GC
// (basic finalizer) or by dispose(); an ArrayBuffer over the memory is made
// only when JS asks for one, because Node runs ArrayBuffer finalizers on a
// later event-loop turn and a synchronous loop must not pile memory up.
#ifndef DLPACK_NODE_ADDON_HOST_STORAGE_H_
#define DLPACK_NODE_ADDON_HOST_STORAGE_H_

#include <napi.h>

#include <string>

#include "../core/managed.h"

namespace dlnode {

// Whether V8 is told about the memory: yes for memory this environment caused
// to exist (a DLPack import, a new segment), so that GC runs in time; no for
// memory another thread or process owns and this one only opened, which would
// be counted once per opener (and a 256 MiB report forces a GC).
enum class Accounting { kReport, kShared };

// Returns a handle owning `storage`'s reference (released if this throws).
napi_value NewStorageHandle(napi_env env, Ref<NativeMemory> storage, Accounting accounting);

// Publishes the memory behind `handle`, on `device`, for other threads
// ('local' sharing) until the owner is released; returns the id.
uint64_t PublishLocal(napi_env env, napi_value handle, const std::string& device);

// The NativeMemory behind `handle` (borrowed: the handle keeps its
// reference), or throws ERR_DLPACK_DISPOSED.
NativeMemory* StorageOf(napi_env env, napi_value handle);
// A new reference to it (an { async: true } job's hold), or throws as StorageOf.
Ref<NativeMemory> StorageRef(napi_env env, napi_value handle);

Napi::Value StorageLength(const Napi::CallbackInfo& info);  // (handle) -> bytes
Napi::Value StorageBuffer(const Napi::CallbackInfo& info);  // (handle) -> ArrayBuffer
// (handle, buffer) -> undefined: detaches `buffer` (the one StorageBuffer
// made, undefined if none; one the caller detached is left to its new owner)
// and releases the owner's reference.
Napi::Value StorageRelease(const Napi::CallbackInfo& info);
// (handle, buffer) -> whether nothing but the owner and its own attached
// buffer holds the memory (no export, share, other thread or job in flight).
Napi::Value StorageSole(const Napi::CallbackInfo& info);
// (handle, buffer) -> true when StorageSole held and the buffer was detached
// and let go of: the owner keeps the memory for reuse (lib/memory.js
// recycling); false, with nothing changed, otherwise.
Napi::Value StorageRecycle(const Napi::CallbackInfo& info);
// (handle) -> the address of the memory's first byte, as a number (-1 at
// 2^53 and above): which memory it is, for lib/route.js's overlap rule.
Napi::Value StorageAddress(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_HOST_STORAGE_H_
