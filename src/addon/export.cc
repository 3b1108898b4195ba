#include "export.h"

#include <utility>

#include "../core/layout.h"
#include "../core/managed.h"
#include "bytes.h"
#include "env_state.h"
#include "host_storage.h"
#include "js_keepalive.h"

namespace dlnode {

Napi::Value ExportTensor(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  EnvState& state = EnvState::Of(env);
  // Releases posted from GC or other threads are drained here too, so a
  // synchronous loop of exports does not pile up pinned buffers.
  if (state.link()->has_pending()) state.link()->Drain(env);

  // Numbers come through the scratch block (convention.h): reading eight
  // arguments costs more than the rest of the export.
  const bool foreign = info[1].As<Napi::Boolean>().Value();
  const bool versioned = info[2].As<Napi::Boolean>().Value();
  const double* scratch = state.scratch();
  const uint64_t byte_offset = ByteOffsetOf(scratch[slot::kByteOffset], "byteOffset");
  const int dtype_index = static_cast<int>(scratch[slot::kDtype]);
  const auto flags = static_cast<uint64_t>(scratch[slot::kFlags]);
  const DLDevice device{static_cast<DLDeviceType>(static_cast<int32_t>(scratch[slot::kDeviceType])),
                        static_cast<int32_t>(scratch[slot::kDeviceId])};
  const int ndim = ScratchNdim(scratch);
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
  ScratchShape(scratch, ndim, shape);
  ScratchInts(scratch, slot::kStrides, ndim, false, strides);
  const DtypeEntry entry = Dtypes().at(dtype_index);
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, strides, DtypeTable::ItemSize(entry), &low, &high)) {
    throw Error{code::kOutOfRange, "Expected a tensor extent below 2^53 bytes"};
  }

  // Re-read the memory now (never cached) and re-check the extent against the
  // buffer's current length: it may have been detached or shrunk.
  char* base = nullptr;
  uint64_t length = 0;
  NativeMemory* storage = nullptr;
  if (foreign) {
    storage = StorageOf(env, info[0]);
    base = static_cast<char*>(storage->base());
    length = storage->length();
  } else {
    const Bytes bytes = BytesOf(env, info[0]);
    base = bytes.data;
    length = bytes.length;
  }
  const bool empty = low == 0 && high == 0;
  if (!empty && !Holds(length, byte_offset, low, high)) {
    throw Error{code::kDetached,
                "Expected the tensor's buffer to still hold its bytes, but it "
                "was detached or shrunk"};
  }

  Ref<Keepalive> keepalive =
      foreign ? Ref<Keepalive>(Ref<NativeMemory>::retain(storage))
              : Ref<Keepalive>::adopt(JsKeepalive::New(env, info[0], state.link()));
  const ExportSpec spec{empty ? nullptr : base + byte_offset,
                        device,
                        ndim,
                        DLDataType{entry.code, entry.bits, 1},
                        shape,
                        strides,
                        flags};
  // The new struct's deleter releases the keepalive (released here if the allocation fails).
  void* managed = versioned ? static_cast<void*>(NewVersioned(spec, std::move(keepalive)))
                            : static_cast<void*>(NewLegacy(spec, std::move(keepalive)));
  if (managed == nullptr)
    throw Error{code::kOutOfMemory, "Could not allocate the DLPack managed tensor"};
  // Ownership passes to the caller (native code) with the pointer.
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(managed)));
}

}  // namespace dlnode
