#include "host_storage.h"

#include <utility>
#include <vector>

#include "../core/share_registry.h"
#include "env_state.h"
#include "handle.h"

namespace dlnode {
namespace {

// The hold an external ArrayBuffer has on the storage. Released by the
// buffer's finalizer, or earlier by dispose() after it detaches the buffer.
struct BufferHold {
  Ref<NativeMemory> storage;  // empty once released
};

struct OwnerState : Tagged {
  OwnerState(Ref<NativeMemory> s, int64_t r)
      : Tagged(kStorageTag), storage(std::move(s)), reported(r) {}
  Ref<NativeMemory> storage;  // empty once released
  int64_t reported;  // bytes reported to V8 when the handle was made, given back on release
  BufferHold* buffer_hold = nullptr;  // the one external ArrayBuffer, if made
  std::vector<uint64_t> shares;       // 'local' ids this owner published
};

void ReleaseOwner(node_api_basic_env env, OwnerState* state) {
  if (!state->storage) return;
  // Unpublish first: threads that already opened the memory keep their own
  // references; later opens of these ids fail.
  for (uint64_t id : state->shares) share_registry::Remove(id);
  state->shares.clear();
  if (state->reported != 0) EnvState::Of(env).AdjustExternal(env, -state->reported);
  state->storage.reset();
}

void FinalizeOwner(node_api_basic_env env, void* data, void*) {
  auto* state = static_cast<OwnerState*>(data);
  ReleaseOwner(env, state);
  delete state;
}

void FinalizeBuffer(node_api_basic_env, void*, void* hint) {
  delete static_cast<BufferHold*>(hint);  // releases its reference, unless dispose() did
}

}  // namespace

napi_value NewStorageHandle(napi_env env, Ref<NativeMemory> storage, Accounting accounting) {
  const int64_t reported =
      accounting == Accounting::kReport ? static_cast<int64_t>(storage->length()) : 0;
  auto* state = new OwnerState(std::move(storage), reported);
  napi_value handle;
  try {
    handle = NewHandle(env, state, &FinalizeOwner);
  } catch (...) {
    delete state;  // releases the reference
    throw;
  }
  if (reported != 0) EnvState::Of(env).AdjustExternal(env, reported);
  return handle;
}

uint64_t PublishLocal(napi_env env, napi_value handle, const std::string& device) {
  auto* state = HandleOf<OwnerState>(env, handle, kStorageTag, "storage");
  if (!state->storage) throw Error{code::kDisposed, "The tensor's memory was released"};
  const uint64_t id = share_registry::Add(state->storage.share(), device);
  state->shares.push_back(id);
  return id;
}

NativeMemory* StorageOf(napi_env env, napi_value handle) {
  auto* state = HandleOf<OwnerState>(env, handle, kStorageTag, "storage");
  if (!state->storage) throw Error{code::kDisposed, "The tensor's memory was released"};
  return state->storage.get();
}

Napi::Value StorageLength(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(),
                           static_cast<double>(StorageOf(info.Env(), info[0])->length()));
}

Napi::Value StorageAddress(const Napi::CallbackInfo& info) {
  // x86-64 and arm64 user addresses (CUDA's unified ones included) are below
  // 2^53; -1 says the address cannot travel as a number.
  const auto address = reinterpret_cast<uintptr_t>(StorageOf(info.Env(), info[0])->base());
  return Napi::Number::New(info.Env(),
                           address < (uintptr_t{1} << 53) ? static_cast<double>(address) : -1.0);
}

Napi::Value StorageBuffer(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  if (!state->storage) throw Error{code::kDisposed, "The tensor's memory was released"};
  NativeMemory* storage = state->storage.get();
  napi_value result;
  if (storage->length() == 0 || state->buffer_hold != nullptr) {
    // Empty, or asked twice (JS caches the first): a plain empty buffer.
    void* unused;
    Check(env, napi_create_arraybuffer(env, 0, &unused, &result), "napi_create_arraybuffer");
    return Napi::Value(env, result);
  }
  auto* hold = new BufferHold{state->storage.share()};
  const napi_status status = napi_create_external_arraybuffer(
      env, storage->base(), storage->length(), &FinalizeBuffer, hold, &result);
  if (status != napi_ok) {
    delete hold;
    Check(env, status, "napi_create_external_arraybuffer");
  }
  state->buffer_hold = hold;
  return Napi::Value(env, result);
}

Napi::Value StorageRelease(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  if (!state->storage) return info.Env().Undefined();
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
    // Drop the buffer's hold first and forget the hold: Node runs the buffer's
    // finalizer (which deletes the hold) at a later GC, but Deno runs it inside
    // napi_detach_arraybuffer, so nothing may touch the hold after the detach.
    // The memory stays alive until ReleaseOwner below: state->storage holds it.
    BufferHold* hold = state->buffer_hold;
    state->buffer_hold = nullptr;
    hold->storage.reset();
    Check(env, napi_detach_arraybuffer(env, info[1]), "napi_detach_arraybuffer");
  }
  ReleaseOwner(env, state);
  return info.Env().Undefined();
}

}  // namespace dlnode
