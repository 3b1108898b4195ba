#include "host_storage.h"

#include <utility>
#include <vector>

#include "../core/share_registry.h"
#include "env_state.h"
#include "handle.h"

namespace dlnode {
namespace {

struct OwnerState;

// The hold an external ArrayBuffer has on the storage. Released by the
// buffer's finalizer, or earlier by dispose() after it detaches the buffer.
// Node runs that finalizer on a later turn of the event loop (node::Buffer's
// CallbackInfo posts it), so memory whose owner garbage collection released
// while its buffer was alive waits for a turn: its bytes go into the
// environment's count for this turn (EnvState::PileUp, which HostAlloc
// reads). The hold and its owner point at each other until either goes; both
// live and die on the environment's thread.
struct BufferHold {
  Ref<NativeMemory> storage;  // empty once released
  OwnerState* owner = nullptr;
};

struct OwnerState : Tagged {
  OwnerState(Ref<NativeMemory> s, int64_t r)
      : Tagged(kStorageTag), storage(std::move(s)), reported(r) {}
  Ref<NativeMemory> storage;  // empty once released
  int64_t reported;  // bytes reported to V8 when the handle was made, given back on release
  BufferHold* buffer_hold = nullptr;  // the one external ArrayBuffer, while it is this owner's
  std::vector<uint64_t> shares;       // 'local' ids this owner published
};

void ReleaseOwner(node_api_basic_env env, OwnerState* state) {
  if (!state->storage) return;
  // Unpublish first: threads that already opened the memory keep their own
  // references; later opens of these ids fail.
  for (uint64_t id : state->shares) share_registry::Remove(id);
  state->shares.clear();
  // Bookkeeping alone, as a finalizer may (env_state.h AdjustExternal).
  if (state->reported != 0) EnvState::Of(env).DropExternal(state->reported);
  state->storage.reset();
}

// Garbage collection let go of the handle (JS holds no tensor over the memory
// any more); an ArrayBuffer made over the memory may still hold it.
void FinalizeOwner(node_api_basic_env env, void* data, void*) {
  auto* state = static_cast<OwnerState*>(data);
  if (BufferHold* hold = state->buffer_hold) {
    hold->owner = nullptr;
    if (hold->storage && state->storage) {
      EnvState::Of(env).PileUp(static_cast<int64_t>(state->storage->length()));
    }
  }
  ReleaseOwner(env, state);
  delete state;
}

void FinalizeBuffer(node_api_basic_env, void*, void* hint) {
  auto* hold = static_cast<BufferHold*>(hint);
  if (hold->owner != nullptr) hold->owner->buffer_hold = nullptr;
  delete hold;  // releases its reference, unless dispose() did
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
  auto* hold = new BufferHold{state->storage.share(), state};
  const napi_status status = napi_create_external_arraybuffer(
      env, storage->base(), storage->length(), &FinalizeBuffer, hold, &result);
  if (status != napi_ok) {
    delete hold;
    Check(env, status, "napi_create_external_arraybuffer");
  }
  state->buffer_hold = hold;
  return Napi::Value(env, result);
}

namespace {

// Whether `buffer` is the storage's own external ArrayBuffer, still attached
// (its hold then lives in this environment's hands: the buffer's finalizer
// cannot have run). False when the caller detached it: transferred away
// (structuredClone, postMessage, transfer(), a BYOB read), whose backing
// store now owns the hold and may outlive this handle. Anything else is a bug
// in lib/ (JS caches the one buffer StorageBuffer made).
bool OwnBufferAttached(napi_env env, const OwnerState* state, napi_value buffer) {
  bool is_buffer = false;
  bool detached = false;
  void* data = nullptr;
  size_t length = 0;
  if (napi_is_arraybuffer(env, buffer, &is_buffer) != napi_ok || !is_buffer ||
      napi_is_detached_arraybuffer(env, buffer, &detached) != napi_ok) {
    throw Error{code::kInvalidArgValue, "Expected the storage's own ArrayBuffer"};
  }
  if (detached) return false;
  if (napi_get_arraybuffer_info(env, buffer, &data, &length) != napi_ok ||
      data != state->storage->base()) {
    throw Error{code::kInvalidArgValue, "Expected the storage's own ArrayBuffer"};
  }
  return true;
}

// Lets go of the storage's ArrayBuffer, if one was made: detached, so no
// view can reach the memory, and its hold dropped now instead of when Node
// gets round to the buffer's finalizer. A buffer the caller detached keeps
// its hold (its new owner may still read the memory): it is only forgotten.
void DropBuffer(napi_env env, OwnerState* state, napi_value buffer) {
  if (state->buffer_hold == nullptr) return;
  BufferHold* hold = state->buffer_hold;
  const bool attached = OwnBufferAttached(env, state, buffer);
  state->buffer_hold = nullptr;
  hold->owner = nullptr;
  if (!attached) return;
  // Drop the buffer's hold first and forget the hold: Node runs the buffer's
  // finalizer (which deletes the hold) at a later GC, but Deno runs it inside
  // napi_detach_arraybuffer, so nothing may touch the hold after the detach.
  // The memory stays alive until the owner lets go: state->storage holds it.
  hold->storage.reset();
  Check(env, napi_detach_arraybuffer(env, buffer), "napi_detach_arraybuffer");
}

// Whether nothing but the owner and its own attached ArrayBuffer holds the
// memory: no export, 'local' share, other thread's open or job in flight.
// Stable once true: every other way to a reference starts from one of these
// two, both this thread's.
bool HeldByOwnerOnly(napi_env env, const OwnerState* state, napi_value buffer) {
  if (state->buffer_hold == nullptr) return state->storage->HasRefs(1);
  if (!OwnBufferAttached(env, state, buffer)) return false;
  return state->storage->HasRefs(state->buffer_hold->storage ? 2 : 1);
}

}  // namespace

Napi::Value StorageRelease(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  if (!state->storage) return info.Env().Undefined();
  DropBuffer(env, state, info[1]);
  ReleaseOwner(env, state);
  EnvState::Of(env).AdjustExternal(env, 0);  // outside a collection: told now, batched
  return info.Env().Undefined();
}

Napi::Value StorageSole(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  return Napi::Boolean::New(env, state->storage && HeldByOwnerOnly(env, state, info[1]));
}

Napi::Value StorageRecycle(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  auto* state = HandleOf<OwnerState>(env, info[0], kStorageTag, "storage");
  if (!state->storage || !HeldByOwnerOnly(env, state, info[1])) {
    return Napi::Boolean::New(env, false);
  }
  DropBuffer(env, state, info[1]);
  return Napi::Boolean::New(env, true);
}

Ref<NativeMemory> StorageRef(napi_env env, napi_value handle) {
  return Ref<NativeMemory>::retain(StorageOf(env, handle));
}

}  // namespace dlnode
