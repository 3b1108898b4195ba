#include "host_storage.h"

#include <vector>

#include "env_state.h"
#include "../core/share_registry.h"
#include "handle.h"

namespace dlnode {
namespace {

// The hold an external ArrayBuffer has on the storage. Released by the
// buffer's finalizer, or earlier by dispose() after it detaches the buffer.
struct BufferHold {
  HostMemory* storage;
  bool released = false;
  void Release() {
    if (released) return;
    released = true;
    storage->Release();
  }
};

struct OwnerState : Tagged {
  OwnerState(HostMemory* s, int64_t r) : Tagged(kStorageTag), storage(s), reported(r) {}
  HostMemory* storage;  // nullptr once released
  int64_t reported;     // bytes reported to V8 on adoption, given back on release
  BufferHold* buffer_hold = nullptr;  // the one external ArrayBuffer, if made
  std::vector<uint64_t> shares;       // 'local' ids this owner published
};

void ReleaseOwner(node_api_basic_env env, OwnerState* state) {
  if (state->storage == nullptr) return;
  // Unpublish first: threads that already opened the memory keep their own
  // references; later opens of these ids fail.
  for (uint64_t id : state->shares) share_registry::Remove(id);
  state->shares.clear();
  int64_t ignored;
  if (state->reported != 0) napi_adjust_external_memory(env, -state->reported, &ignored);
  state->storage->Release();
  state->storage = nullptr;
}

void FinalizeOwner(node_api_basic_env env, void* data, void*) {
  auto* state = static_cast<OwnerState*>(data);
  ReleaseOwner(env, state);
  delete state;
}

void FinalizeBuffer(node_api_basic_env, void*, void* hint) {
  auto* hold = static_cast<BufferHold*>(hint);
  hold->Release();
  delete hold;
}

}  // namespace

napi_value AdoptStorage(napi_env env, HostMemory* storage, Accounting accounting) {
  const int64_t reported = accounting == Accounting::kReport ? static_cast<int64_t>(storage->length()) : 0;
  auto* state = new OwnerState(storage, reported);
  napi_value handle;
  try {
    handle = NewHandle(env, state, &FinalizeOwner);
  } catch (...) {
    delete state;
    storage->Release();
    throw;
  }
  int64_t ignored;
  if (reported != 0) napi_adjust_external_memory(env, reported, &ignored);
  return handle;
}

uint64_t PublishLocal(napi_env env, napi_value handle, const std::string& device) {
  auto* state = HandleOf<OwnerState>(env, handle, kStorageTag, "storage");
  if (state->storage == nullptr) throw Error{code::kDisposed, "The tensor's memory was released"};
  const uint64_t id = share_registry::Add(state->storage, device);
  state->shares.push_back(id);
  return id;
}

HostMemory* StorageOf(napi_env env, napi_value handle) {
  auto* state = HandleOf<OwnerState>(env, handle, kStorageTag, "storage");
  if (state->storage == nullptr) throw Error{code::kDisposed, "The tensor's memory was released"};
  return state->storage;
}

Napi::Value StorageLength(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(StorageOf(info.Env(), info[0])->length()));
}

Napi::Value StorageBuffer(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  if (state->storage == nullptr) throw Error{code::kDisposed, "The tensor's memory was released"};
  HostMemory* storage = state->storage;
  napi_value result;
  if (storage->length() == 0 || state->buffer_hold != nullptr) {
    // Empty, or asked twice (JS caches the first): a plain empty buffer.
    void* unused;
    Check(env, napi_create_arraybuffer(env, 0, &unused, &result), "napi_create_arraybuffer");
    return Napi::Value(env, result);
  }
  auto* hold = new BufferHold{storage};
  storage->Retain();
  const napi_status status = napi_create_external_arraybuffer(
      env, storage->base(), storage->length(), &FinalizeBuffer, hold, &result);
  if (status != napi_ok) {
    hold->Release();
    delete hold;
    Check(env, status, "napi_create_external_arraybuffer");
  }
  state->buffer_hold = hold;
  return Napi::Value(env, result);
}

Napi::Value StorageRelease(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  if (state->storage == nullptr) return info.Env().Undefined();
  if (state->buffer_hold != nullptr) {
    // info[1] is the buffer StorageBuffer made (JS caches it). Detach it first
    // so no view can reach the memory, then drop its hold now instead of when
    // Node gets round to the buffer's finalizer.
    void* data = nullptr;
    size_t length = 0;
    bool is_buffer = false;
    napi_is_arraybuffer(env, info[1], &is_buffer);
    if (!is_buffer || napi_get_arraybuffer_info(env, info[1], &data, &length) != napi_ok ||
        data != state->storage->base()) {
      throw Error{code::kInvalidArgValue, "Expected the storage's own ArrayBuffer"};
    }
    Check(env, napi_detach_arraybuffer(env, info[1]), "napi_detach_arraybuffer");
    state->buffer_hold->Release();
  }
  ReleaseOwner(env, state);
  return info.Env().Undefined();
}

}  // namespace dlnode

