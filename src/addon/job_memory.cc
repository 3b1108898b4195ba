#include "job_memory.h"

#include <cstring>
#include <memory>
#include <string>

#include "../core/convert.h"
#include "../core/layout.h"
#include "bytes.h"
#include "convention.h"
#include "errors.h"
#include "host_storage.h"

namespace dlnode {
namespace {

Error Detached(const char* which, const char* when) {
  return Error{code::kDetached, std::string("Expected the ") + which +
                                    " buffer to still hold its bytes" + when +
                                    ", but it was detached or shrunk"};
}

}  // namespace

void JobMemory::Async(uint32_t staged) {
  kept_ = std::make_unique<Kept>();
  kept_->staged_mask = staged;
}

char* JobMemory::Operand(napi_env env, int arg, napi_value value, uint64_t offset, int ndim,
                         const int64_t* shape, const int64_t* strides, uint64_t item_size,
                         Role role, Scalar type, const char* which, Extent* extent) {
  if (count_ == kMaxOperands) throw Error{code::kUnsupported, "Expected at most 4 tensor operands"};
  const int index = count_++;
  const bool staged = kept_ && ((kept_->staged_mask >> index) & 1U) != 0;
  // A Uint8Array (one Node-API call, the common case of a synchronous op on
  // small tensors), else a storage handle, whose tag HandleOf checks.
  napi_typedarray_type kind;
  size_t length = 0;
  void* data = nullptr;
  Bytes bytes{nullptr, 0};
  NativeMemory* memory = nullptr;
  const bool native =
      napi_get_typedarray_info(env, value, &kind, &length, &data, nullptr, nullptr) != napi_ok;
  if (native) {
    memory = StorageOf(env, value);
    bytes = Bytes{static_cast<char*>(memory->base()), memory->length()};
  } else {
    bytes = Bytes{static_cast<char*>(data), length};  // lib/ passes Uint8Arrays: elements are bytes
  }
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, strides, item_size, &low, &high)) {
    throw Error{code::kOutOfRange, std::string("Expected a ") + which + " extent below 2^53 bytes"};
  }
  if (extent != nullptr) *extent = Extent{low, high};
  if (low == 0 && high == 0) return bytes.data + offset;  // no element: nothing to reach
  if (!Holds(bytes.length, offset, low, high)) throw Detached(which, "");
  char* first = bytes.data + offset;
  if (native) {
    // Read from the handle now; the reference keeps the memory until the job
    // has run, whatever JavaScript does with a buffer over it.
    if (kept_) kept_->held[index] = Ref<NativeMemory>::retain(memory);
    return first;
  }
  if (!staged) return first;
  Staged& copy = kept_->staged[index];
  copy.bytes = Scratch<char>(static_cast<int64_t>(low + high));
  std::memcpy(copy.bytes.data(), first - low, static_cast<size_t>(low + high));
  copy.arg = arg;
  copy.offset = offset;
  copy.low = low;
  copy.high = high;
  copy.ndim = ndim;
  copy.shape = shape;
  copy.strides = strides;
  copy.type = type;
  copy.output = role == Role::kOutput;
  return copy.bytes.data() + low;
}

void JobMemory::Release() noexcept {
  if (!kept_) return;
  for (Ref<NativeMemory>& held : kept_->held) held.reset();
}

void JobMemory::Settle(napi_env env, const std::vector<napi_value>& args) {
  if (!kept_) return;
  for (Staged& out : kept_->staged) {
    if (!out.output) continue;
    out.output = false;
    const Bytes bytes = BytesOf(env, args.at(static_cast<size_t>(out.arg)));
    if (!Holds(bytes.length, out.offset, out.low, out.high)) {
      throw Detached("result", " when the asynchronous op settled");
    }
    char* dst = bytes.data + out.offset;
    char* src = out.bytes.data() + out.low;
    // Element by element: bytes between a strided view's elements may have
    // been written meanwhile, and are not the job's to restore.
    ConvertStrided(out.ndim, out.shape, out.type, StridedView{dst, out.strides},
                   ByteRange{dst - out.low, dst + out.high}, out.type,
                   StridedView{src, out.strides}, ByteRange{src - out.low, src + out.high});
  }
}

}  // namespace dlnode
