// Test-only DLPack peer (a second gyp target, never shipped). It plays a
// native producer and consumer written in C: it makes managed tensors over
// malloc'd memory and counts every deleter call, and it consumes our
// capsules' pointers by calling their deleters, on this or another thread.
//
// Deleted managed structs are kept (not freed) in a registry so that a
// second deleter call is detected and counted instead of being a
// use-after-free; prune() lets a long run bound that. The registry is
// process-wide on purpose: deleters run on any thread and after worker
// environments are gone.
#include <napi.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "../../src/core/dlpack_abi.h"

namespace {

struct Entry {
  void* data = nullptr;  // freed by the first deleter call
  int64_t* arrays = nullptr;
  int64_t bytes = 0;
  bool deleted = false;
  int64_t calls = 0;          // deleter calls on this tensor
  int64_t deleted_round = 0;  // the prune() round in which it was deleted
};

std::mutex registry_mutex;
std::unordered_map<void*, Entry> registry;
int64_t prune_round = 0;  // guarded by registry_mutex
std::atomic<int64_t> made{0};
std::atomic<int64_t> deleter_calls{0};
std::atomic<int64_t> double_deletes{0};
std::atomic<int64_t> live_tensors{0};
std::atomic<int64_t> live_bytes{0};
std::atomic<int64_t> peak_live_bytes{0};
std::atomic<int64_t> off_thread_deletes{0};
std::thread::id main_thread;

void OnDelete(void* self) {
  deleter_calls.fetch_add(1);
  if (std::this_thread::get_id() != main_thread) off_thread_deletes.fetch_add(1);
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry.find(self);
  if (it != registry.end()) ++it->second.calls;
  if (it == registry.end() || it->second.deleted) {
    double_deletes.fetch_add(1);
    return;
  }
  Entry& e = it->second;
  e.deleted = true;
  e.deleted_round = prune_round;
  std::free(e.data);
  std::free(e.arrays);
  e.data = nullptr;
  e.arrays = nullptr;
  live_tensors.fetch_sub(1);
  live_bytes.fetch_sub(e.bytes);
}

void VersionedDeleter(DLManagedTensorVersioned* self) { OnDelete(self); }
void LegacyDeleter(DLManagedTensor* self) { OnDelete(self); }

int64_t Int(const Napi::Object& o, const char* key, int64_t fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int64Value() : fallback;
}

bool Flag(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsBoolean() && v.As<Napi::Boolean>().Value();
}

// make({ versioned = true, major = 1, minor = 3, flags = 0, code = 2, bits = 32,
//        lanes = 1, deviceType = 1, deviceId = 0, shape = [n], strides (array
//        or null for NULL), byteOffset = 0, bytes (data size; default from
//        shape), fill (bool: data[i] = i as bytes), nullShape, nullData,
//        nullDeleter, garbageAfterVersion }) -> bigint
Napi::Value Make(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  const bool versioned = !o.Get("versioned").IsBoolean() || Flag(o, "versioned");
  Napi::Array shape = o.Get("shape").As<Napi::Array>();
  const int ndim = static_cast<int>(Int(o, "ndim", shape.Length()));
  const uint32_t n = shape.Length();
  auto* arrays = static_cast<int64_t*>(std::calloc(2 * (n ? n : 1), sizeof(int64_t)));
  int64_t elements = 1;
  for (uint32_t i = 0; i < n; ++i) {
    arrays[i] = shape.Get(i).As<Napi::Number>().Int64Value();
    elements *= arrays[i];
  }
  const int64_t bits = Int(o, "bits", 32);
  // byteOffset may be a BigInt, to build offsets that wrap the address space.
  Napi::Value bo = o.Get("byteOffset");
  bool lossless;
  const uint64_t byte_offset = bo.IsBigInt() ? bo.As<Napi::BigInt>().Uint64Value(&lossless)
                                             : static_cast<uint64_t>(Int(o, "byteOffset", 0));
  int64_t bytes = Int(o, "bytes", elements * ((bits + 7) / 8) + (bo.IsBigInt() ? 0 : byte_offset));
  void* data = Flag(o, "nullData") ? nullptr : std::malloc(bytes > 0 ? bytes : 1);
  if (data != nullptr && Flag(o, "fill")) {
    for (int64_t i = 0; i < bytes; ++i)
      static_cast<unsigned char*>(data)[i] = static_cast<unsigned char>(i);
  }
  int64_t* strides = nullptr;
  Napi::Value sv = o.Get("strides");
  if (sv.IsArray()) {
    strides = arrays + n;
    Napi::Array sa = sv.As<Napi::Array>();
    for (uint32_t i = 0; i < sa.Length(); ++i)
      strides[i] = sa.Get(i).As<Napi::Number>().Int64Value();
  }
  DLTensor t{};
  t.data = data;
  t.device = {static_cast<DLDeviceType>(Int(o, "deviceType", kDLCPU)),
              static_cast<int32_t>(Int(o, "deviceId", 0))};
  t.ndim = ndim;
  t.dtype = {static_cast<uint8_t>(Int(o, "code", kDLFloat)), static_cast<uint8_t>(bits),
             static_cast<uint16_t>(Int(o, "lanes", 1))};
  t.shape = Flag(o, "nullShape") ? nullptr : arrays;
  t.strides = strides;
  t.byte_offset = byte_offset;

  void* self;
  if (versioned) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(std::calloc(1, sizeof(DLManagedTensorVersioned)));
    m->version = {static_cast<uint32_t>(Int(o, "major", 1)),
                  static_cast<uint32_t>(Int(o, "minor", 3))};
    m->flags = static_cast<uint64_t>(Int(o, "flags", 0));
    m->deleter = Flag(o, "nullDeleter") ? nullptr : &VersionedDeleter;
    m->dl_tensor = t;
    if (Flag(o, "garbageAfterVersion")) {
      // A major-2 producer may lay out the rest differently: poison it so
      // that reading past the stable prefix would crash.
      std::memset(&m->dl_tensor, 0xAB, sizeof(DLTensor));
    }
    self = m;
  } else {
    auto* m = static_cast<DLManagedTensor*>(std::calloc(1, sizeof(DLManagedTensor)));
    m->deleter = Flag(o, "nullDeleter") ? nullptr : &LegacyDeleter;
    m->dl_tensor = t;
    self = m;
  }
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry[self] = Entry{data, arrays, bytes, false};
  }
  made.fetch_add(1);
  live_tensors.fetch_add(1);
  const int64_t now = live_bytes.fetch_add(bytes) + bytes;
  int64_t peak = peak_live_bytes.load();
  while (now > peak && !peak_live_bytes.compare_exchange_weak(peak, now)) {
  }
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(self)));
}

void* Pointer(const Napi::Value& v) {
  bool lossless;
  return reinterpret_cast<void*>(
      static_cast<uintptr_t>(v.As<Napi::BigInt>().Uint64Value(&lossless)));
}

void CallDeleter(void* p, bool versioned) {
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(p);
    if (m->deleter) m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  }
}

// release(ptr, versioned): a native consumer done with a tensor.
Napi::Value Release(const Napi::CallbackInfo& info) {
  CallDeleter(Pointer(info[0]), info[1].As<Napi::Boolean>().Value());
  return info.Env().Undefined();
}

// releaseOnThread(ptr, versioned): the same, from a new native thread.
Napi::Value ReleaseOnThread(const Napi::CallbackInfo& info) {
  void* p = Pointer(info[0]);
  const bool versioned = info[1].As<Napi::Boolean>().Value();
  std::thread([p, versioned] { CallDeleter(p, versioned); }).join();
  return info.Env().Undefined();
}

DLTensor* TensorOf(void* p, bool versioned) {
  return versioned ? &static_cast<DLManagedTensorVersioned*>(p)->dl_tensor
                   : &static_cast<DLManagedTensor*>(p)->dl_tensor;
}

Napi::Array Int64Array(Napi::Env env, const int64_t* values, int n) {
  Napi::Array a = Napi::Array::New(env, n);
  for (int i = 0; i < n; ++i) a.Set(i, Napi::Number::New(env, static_cast<double>(values[i])));
  return a;
}

// inspect(ptr, versioned): what a C consumer sees in the struct.
Napi::Value Inspect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  void* p = Pointer(info[0]);
  const bool versioned = info[1].As<Napi::Boolean>().Value();
  Napi::Object r = Napi::Object::New(env);
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(p);
    r.Set("major", m->version.major);
    r.Set("minor", m->version.minor);
    r.Set("flags", static_cast<double>(m->flags));
    r.Set("hasDeleter", m->deleter != nullptr);
  }
  DLTensor* t = TensorOf(p, versioned);
  r.Set("data",
        Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(t->data))));
  r.Set("deviceType", static_cast<int>(t->device.device_type));
  r.Set("deviceId", t->device.device_id);
  r.Set("ndim", t->ndim);
  r.Set("code", t->dtype.code);
  r.Set("bits", t->dtype.bits);
  r.Set("lanes", t->dtype.lanes);
  r.Set("shapeIsNull", t->shape == nullptr);
  r.Set("stridesIsNull", t->strides == nullptr);
  if (t->shape) r.Set("shape", Int64Array(env, t->shape, t->ndim));
  if (t->strides) r.Set("strides", Int64Array(env, t->strides, t->ndim));
  r.Set("byteOffset", static_cast<double>(t->byte_offset));
  return r;
}

// readBytes(ptr, versioned, offset, n) / writeByte(ptr, versioned, offset, value):
// bytes at data + byte_offset + offset, as a C consumer reads and writes them.
Napi::Value ReadBytes(const Napi::CallbackInfo& info) {
  DLTensor* t = TensorOf(Pointer(info[0]), info[1].As<Napi::Boolean>().Value());
  const int64_t offset = info[2].As<Napi::Number>().Int64Value();
  const size_t n = info[3].As<Napi::Number>().Uint32Value();
  const char* first = static_cast<const char*>(t->data) + t->byte_offset + offset;
  return Napi::Buffer<char>::Copy(info.Env(), first, n);
}

Napi::Value WriteByte(const Napi::CallbackInfo& info) {
  DLTensor* t = TensorOf(Pointer(info[0]), info[1].As<Napi::Boolean>().Value());
  const int64_t offset = info[2].As<Napi::Number>().Int64Value();
  static_cast<unsigned char*>(t->data)[t->byte_offset + offset] =
      static_cast<unsigned char>(info[3].As<Napi::Number>().Uint32Value());
  return info.Env().Undefined();
}

// address(typedArray) -> bigint data pointer (to prove zero-copy).
Napi::Value Address(const Napi::CallbackInfo& info) {
  Napi::TypedArray a = info[0].As<Napi::TypedArray>();
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_get_typedarray_info(info.Env(), a, &type, &length, &data, nullptr, nullptr);
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data)));
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object r = Napi::Object::New(env);
  r.Set("made", static_cast<double>(made.load()));
  r.Set("deleterCalls", static_cast<double>(deleter_calls.load()));
  r.Set("doubleDeletes", static_cast<double>(double_deletes.load()));
  r.Set("liveTensors", static_cast<double>(live_tensors.load()));
  r.Set("liveBytes", static_cast<double>(live_bytes.load()));
  r.Set("peakLiveBytes", static_cast<double>(peak_live_bytes.load()));
  r.Set("offThreadDeletes", static_cast<double>(off_thread_deletes.load()));
  return r;
}

// calls(ptr): how many times this tensor's deleter ran.
Napi::Value Calls(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry.find(Pointer(info[0]));
  return Napi::Number::New(info.Env(),
                           it == registry.end() ? -1 : static_cast<double>(it->second.calls));
}

// prune() -> number freed: frees the structs of tensors deleted before the
// previous prune() and forgets them, so that a long run's registry stays
// bounded. Tensors deleted since then stay one more round: a late second
// deleter call on them is still found and counted.
Napi::Value Prune(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  int64_t freed = 0;
  for (auto it = registry.begin(); it != registry.end();) {
    if (it->second.deleted && it->second.deleted_round < prune_round) {
      std::free(it->first);
      it = registry.erase(it);
      ++freed;
    } else {
      ++it;
    }
  }
  ++prune_round;
  return Napi::Number::New(info.Env(), static_cast<double>(freed));
}

Napi::Value ResetPeak(const Napi::CallbackInfo& info) {
  peak_live_bytes.store(live_bytes.load());
  return info.Env().Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  static std::once_flag once;
  std::call_once(once, [] { main_thread = std::this_thread::get_id(); });
  exports.Set("make", Napi::Function::New(env, Make));
  exports.Set("release", Napi::Function::New(env, Release));
  exports.Set("releaseOnThread", Napi::Function::New(env, ReleaseOnThread));
  exports.Set("inspect", Napi::Function::New(env, Inspect));
  exports.Set("readBytes", Napi::Function::New(env, ReadBytes));
  exports.Set("writeByte", Napi::Function::New(env, WriteByte));
  exports.Set("address", Napi::Function::New(env, Address));
  exports.Set("stats", Napi::Function::New(env, Stats));
  exports.Set("calls", Napi::Function::New(env, Calls));
  exports.Set("resetPeak", Napi::Function::New(env, ResetPeak));
  exports.Set("prune", Napi::Function::New(env, Prune));
  return exports;
}

}  // namespace

NODE_API_MODULE(dlpack_test_producer, Init)
