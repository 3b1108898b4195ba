#include "import.h"

#include <cstring>
#include <string>
#include <utility>

#include "../core/checklist.h"
#include "../core/cuda_runtime.h"
#include "../core/layout.h"
#include "../core/managed.h"
#include "../core/struct_slab.h"
#include "bytes.h"
#include "capsule.h"
#include "env_state.h"
#include "host_storage.h"
#include "js_keepalive.h"

namespace dlnode {
namespace {

void WriteLayout(double* scratch, const Layout& layout, uint64_t flags, uint64_t byte_offset,
                 ImportResult result) {
  scratch[slot::kNdim] = layout.ndim;
  scratch[slot::kDtype] = layout.dtype_index;
  scratch[slot::kDeviceType] = layout.device.device_type;
  scratch[slot::kDeviceId] = layout.device.device_id;
  scratch[slot::kFlags] =
      static_cast<double>(flags & (DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED));
  scratch[slot::kByteOffset] = static_cast<double>(byte_offset);
  scratch[slot::kExtent] = static_cast<double>(layout.extent());
  scratch[slot::kResult] = static_cast<double>(result);
  for (int i = 0; i < layout.ndim; ++i) {
    scratch[slot::kShape + i] = static_cast<double>(layout.shape[i]);
    scratch[slot::kStrides + i] = static_cast<double>(layout.strides[i]);
  }
}

// Our own struct over the JS memory of an environment other than the
// caller's: that environment's link (null once it has ended). `other` is
// false for every other struct. `own_slab`: a struct of this environment's
// slab that JS did not take back (a consumer changed it): refused, never made
// native memory over this thread's JS heap that could be shared with, or
// re-exported to, a thread that outlives this one.
struct HeapOwner {
  bool other = false;
  std::shared_ptr<EnvLink> link;
  bool own_slab = false;
};

HeapOwner OtherHeap(const ManagedTensor& held, const EnvState& state) {
  if (held.own()) {
    auto* keepalive = static_cast<Keepalive*>(held.manager_ctx());
    if (keepalive->kind() != Keepalive::Kind::kJsBuffer) return {};
    const std::shared_ptr<EnvLink>& link = static_cast<JsKeepalive*>(keepalive)->link();
    if (link == state.link()) return {};
    return {true, link};
  }
  StructSlab* slab = held.versioned() ? StructSlab::Find(held.get()) : nullptr;
  if (slab == nullptr) return {};
  // Asked of the environment that filled the entry, not of whoever holds the
  // slab now: a dead environment's entry in a slab another thread took from
  // the pool is over freed memory (null link: refused). EnvLink is the
  // addon's only SlabOwner.
  std::shared_ptr<EnvLink> link = std::static_pointer_cast<EnvLink>(slab->FillerOf(held.get()));
  if (link == state.link()) return {false, nullptr, true};
  return {true, std::move(link)};
}

}  // namespace

Napi::Value ImportCapsule(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  EnvState& state = EnvState::Of(env);
  CapsuleState& capsule = LiveCapsule(env, info[0]);
  const bool allow_copy = info[1].As<Napi::Boolean>().Value();
  // Read in place; moved out of the capsule only once the import consumes it.
  const ManagedTensor& held = capsule.managed;

  // 1-7. Major version (only the stable prefix is read before it; an unknown
  //      major means "call the deleter and read nothing else"), then ndim,
  //      device, lanes, dtype, shape, strides, byte_offset.
  const DLManagedTensorVersioned* versioned = held.as_versioned();
  Layout layout;
  const CheckResult check = CheckManagedTensor(versioned != nullptr ? &versioned->version : nullptr,
                                               *held.tensor(), Dtypes(), &layout, cuda::Compiled());
  // The checklist's kVersion refusal consumes the capsule (layout.h).
  if (check.failure == CheckFailure::kVersion) capsule.managed.reset();
  ThrowIfFailed(check);
  const uint64_t flags = versioned != nullptr ? versioned->flags : 0;
  // Only host memory is ever wrapped in an ArrayBuffer, so only it may need a copy.
  const bool host = IsHostAccessible(layout.device.device_type);
  if (host && !state.external_buffers() && !allow_copy && !held.own()) {
    throw Error{code::kCopyRequired,
                "Expected zero-copy import (copy: false), but this runtime refuses external "
                "ArrayBuffers, so the data would have to be copied"};
  }

  // Our own struct over another thread's JS memory (docs/API.md "Lifetimes"): that
  // memory lives only as long as its thread, so it is copied, never viewed.
  const HeapOwner other_heap = OtherHeap(held, state);
  if (other_heap.own_slab) {
    // A view would make it native memory over this thread's heap; a copy
    // would read wherever the changed shape and strides say.
    throw Error{code::kUnsupported,
                "Expected a struct as toPointer() filled it, received one changed since "
                "(DLPack forbids a consumer to change it); it points at this thread's "
                "JavaScript memory, which is neither viewed nor copied through changed fields"};
  }
  if (other_heap.other) {
    const auto ended = [] {
      return Error{code::kDetached,
                   "Expected a struct over memory that still exists, received one "
                   "over the JavaScript memory of a thread that has ended"};
    };
    if (!other_heap.link || !other_heap.link->WhileAlive([] {})) throw ended();
    if (!allow_copy) {
      throw Error{
          code::kCopyRequired,
          "Expected zero-copy import (copy: false), but the struct is over another thread's "
          "JavaScript memory, which lives only as long as that thread, so it must be copied"};
    }
    void* copy = nullptr;
    napi_value buffer;
    Check(env, napi_create_arraybuffer(env, layout.extent(), &copy, &buffer),
          "napi_create_arraybuffer");
    const bool copied = other_heap.link->WhileAlive([&] {
      if (layout.extent() != 0)
        std::memcpy(copy, reinterpret_cast<void*>(layout.base()), layout.extent());
    });
    if (!copied) throw ended();
    capsule.managed.reset();  // our deleter posts the release to the owning thread
    WriteLayout(state.scratch(), layout, flags | DLPACK_FLAG_BITMASK_IS_COPIED, layout.low,
                ImportResult::kCopied);
    return Napi::Value(env, buffer);
  }

  // Every check passed: from here on the capsule is consumed.
  ManagedTensor managed = std::move(capsule.managed);
  double* scratch = state.scratch();

  if (managed.own()) {
    // Our own export: take the keepalive back instead of wrapping our memory
    // in a second layer of ownership.
    Ref<Keepalive> keepalive = managed.TakeOwn();
    if (keepalive->kind() == Keepalive::Kind::kJsBuffer) {
      // TakeView consumes the keepalive (deletes the reference at once).
      napi_value view = static_cast<JsKeepalive*>(keepalive.release())->TakeView(env);
      const Bytes bytes = BytesOf(env, view);
      const uint64_t offset =
          layout.size == 0 ? 0 : layout.first - reinterpret_cast<uintptr_t>(bytes.data);
      WriteLayout(scratch, layout, flags, offset, ImportResult::kJsBuffer);
      return Napi::Value(env, view);
    }
    auto* storage = static_cast<NativeMemory*>(keepalive.release());  // Kind::kNative
    const uint64_t offset =
        layout.size == 0 ? 0 : layout.first - reinterpret_cast<uintptr_t>(storage->base());
    // The capsule's reference moves to the handle.
    napi_value handle =
        NewStorageHandle(env, Ref<NativeMemory>::adopt(storage), Accounting::kReport);
    WriteLayout(scratch, layout, flags, offset, ImportResult::kForeign);
    return Napi::Value(env, handle);
  }

  if (host && !state.external_buffers()) {
    // The V8 sandbox (Electron) refuses external memory: copy, then release.
    void* copy = nullptr;
    napi_value buffer;
    // On failure `managed` calls the deleter as the error leaves.
    Check(env, napi_create_arraybuffer(env, layout.extent(), &copy, &buffer),
          "napi_create_arraybuffer");
    if (layout.extent() != 0)
      std::memcpy(copy, reinterpret_cast<void*>(layout.base()), layout.extent());
    managed.reset();
    WriteLayout(scratch, layout, flags | DLPACK_FLAG_BITMASK_IS_COPIED, layout.low,
                ImportResult::kCopied);
    return Napi::Value(env, buffer);
  }

  auto storage = Ref<NativeMemory>::adopt(new ForeignStorage(
      std::move(managed), layout.size == 0 ? nullptr : reinterpret_cast<void*>(layout.base()),
      layout.extent()));
  napi_value handle = NewStorageHandle(env, std::move(storage), Accounting::kReport);
  WriteLayout(scratch, layout, flags, layout.low, ImportResult::kForeign);
  return Napi::Value(env, handle);
}

Napi::Value SetExternalBuffers(const Napi::CallbackInfo& info) {
  EnvState::Of(info.Env()).set_external_buffers(info[0].As<Napi::Boolean>().Value());
  return info.Env().Undefined();
}

}  // namespace dlnode
