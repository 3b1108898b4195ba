// Test-only native DLPack consumer (a gyp and CMake target, never shipped):
// what a C library does with a struct it was handed by toPointer(). It reads
// and writes the tensor's bytes and calls the deleter, and nothing more: no
// bookkeeping of its own, so that under AddressSanitizer (the sanitizer phase
// of .ci/run builds it with the addon) a read of memory the library already
// freed is a heap-use-after-free report, not a silently stale value.
#include <napi.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "../../src/core/dlpack_abi.h"

namespace {

struct Struct {
  void* ptr;
  bool versioned;
  DLTensor* tensor() const {
    return versioned ? &static_cast<DLManagedTensorVersioned*>(ptr)->dl_tensor
                     : &static_cast<DLManagedTensor*>(ptr)->dl_tensor;
  }
};

Struct StructOf(const Napi::CallbackInfo& info) {
  bool lossless = false;
  const uint64_t address = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  return {reinterpret_cast<void*>(static_cast<uintptr_t>(address)),
          info[1].As<Napi::Boolean>().Value()};
}

// Bytes from the first element to the end of the last (non-negative strides;
// the library exports no others for these tests).
uint64_t Span(const DLTensor* t) {
  const uint64_t item = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  uint64_t count = 1;
  uint64_t last = 0;
  for (int i = 0; i < t->ndim; ++i) {
    if (t->shape[i] == 0) return 0;
    count *= static_cast<uint64_t>(t->shape[i]);
    if (t->strides != nullptr)
      last += static_cast<uint64_t>(t->shape[i] - 1) * static_cast<uint64_t>(t->strides[i]);
  }
  return (t->strides == nullptr ? count : last + 1) * item;  // NULL strides: row-major
}

// read(ptr, versioned) -> Buffer: a copy of the bytes the tensor spans.
Napi::Value Read(const Napi::CallbackInfo& info) {
  const DLTensor* t = StructOf(info).tensor();
  const char* first = static_cast<const char*>(t->data) + t->byte_offset;
  return Napi::Buffer<char>::Copy(info.Env(), first, Span(t));
}

// write(ptr, versioned, byteIndex, value): one byte, as a C consumer writes.
Napi::Value Write(const Napi::CallbackInfo& info) {
  const DLTensor* t = StructOf(info).tensor();
  const int64_t index = info[2].As<Napi::Number>().Int64Value();
  static_cast<unsigned char*>(t->data)[t->byte_offset + index] =
      static_cast<unsigned char>(info[3].As<Napi::Number>().Uint32Value());
  return info.Env().Undefined();
}

// setShape(ptr, versioned, dim, size): a consumer that changes the struct it
// was handed (DLPack forbids it; a buggy consumer does it anyway).
Napi::Value SetShape(const Napi::CallbackInfo& info) {
  DLTensor* t = StructOf(info).tensor();
  t->shape[info[2].As<Napi::Number>().Int32Value()] = info[3].As<Napi::Number>().Int64Value();
  return info.Env().Undefined();
}

// setNdim(ptr, versioned, ndim): the same, for the dimension count.
Napi::Value SetNdim(const Napi::CallbackInfo& info) {
  StructOf(info).tensor()->ndim = info[2].As<Napi::Number>().Int32Value();
  return info.Env().Undefined();
}

// poke(ptr, byteOffset, value): one 32-bit word of the struct itself
// overwritten (a consumer scribbling on it, or memory corruption).
Napi::Value Poke(const Napi::CallbackInfo& info) {
  bool lossless = false;
  auto* ptr = reinterpret_cast<char*>(
      static_cast<uintptr_t>(info[0].As<Napi::BigInt>().Uint64Value(&lossless)));
  const int32_t value = info[2].As<Napi::Number>().Int32Value();
  std::memcpy(ptr + info[1].As<Napi::Number>().Int64Value(), &value, sizeof(value));
  return info.Env().Undefined();
}

void Delete(const Struct& s) {
  if (s.versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(s.ptr);
    if (m->deleter != nullptr) m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(s.ptr);
    if (m->deleter != nullptr) m->deleter(m);
  }
}

// delete(ptr, versioned, onThread = false): the consumer is done with it, on
// this thread or on a native thread of its own.
Napi::Value DeleteStruct(const Napi::CallbackInfo& info) {
  const Struct s = StructOf(info);
  if (info.Length() > 2 && info[2].ToBoolean().Value()) {
    std::thread([s] { Delete(s); }).join();
  } else {
    Delete(s);
  }
  return info.Env().Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("read", Napi::Function::New(env, Read));
  exports.Set("write", Napi::Function::New(env, Write));
  exports.Set("delete", Napi::Function::New(env, DeleteStruct));
  exports.Set("setShape", Napi::Function::New(env, SetShape));
  exports.Set("setNdim", Napi::Function::New(env, SetNdim));
  exports.Set("poke", Napi::Function::New(env, Poke));
  return exports;
}

}  // namespace

NODE_API_MODULE(dlpack_test_consumer, Init)
