#include "sharing.h"

#include <string>
#include <utility>

#include "../core/cuda_ipc.h"
#include "../core/cuda_memory.h"
#include "../core/share_registry.h"
#include "../core/shm.h"
#include "env_state.h"
#include "host_storage.h"

namespace dlnode {

Napi::Value ShmCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto nbytes = static_cast<uint64_t>(info[0].As<Napi::Number>().Int64Value());
  ShmResult result;
  Ref<ShmSegment> segment = ShmSegment::Create(nbytes, &result);
  if (!segment) ThrowIfFailed(result);
  const std::string name = segment->name();
  const int fd = segment->fd();
  Napi::Array triple = Napi::Array::New(env, 3);
  triple.Set(0u, Napi::Value(env, NewStorageHandle(env, std::move(segment), Accounting::kReport)));
  triple.Set(1u, Napi::String::New(env, name));
  triple.Set(2u, Napi::Number::New(env, fd));
  return triple;
}

Napi::Value ShmOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ShmPlace place;
  place.name = info[0].As<Napi::String>().Utf8Value();
  place.pid = info[1].As<Napi::Number>().Int64Value();
  place.fd = info[2].As<Napi::Number>().Int64Value();
  const auto min_bytes = static_cast<uint64_t>(info[3].As<Napi::Number>().Int64Value());
  ShmResult result;
  Ref<ShmSegment> segment = ShmSegment::Open(place, min_bytes, &result);
  if (!segment) ThrowIfFailed(result);
  const int fd = segment->fd();
  Napi::Array pair = Napi::Array::New(env, 2);
  pair.Set(0u, Napi::Value(env, NewStorageHandle(env, std::move(segment), Accounting::kShared)));
  pair.Set(1u, Napi::Number::New(env, fd));
  return pair;
}

Napi::Value LocalShare(const Napi::CallbackInfo& info) {
  const uint64_t id = PublishLocal(info.Env(), info[0], info[1].As<Napi::String>().Utf8Value());
  return Napi::String::New(info.Env(), std::to_string(id));
}

Napi::Value LocalOpen(const Napi::CallbackInfo& info) {
  const std::string text = info[0].As<Napi::String>().Utf8Value();
  uint64_t id = 0;
  try {
    id = std::stoull(text);
  } catch (...) {
    throw Error{code::kInvalidArgValue,
                "Expected a decimal id for `descriptor.id`, received '" + text + "'"};
  }
  std::string device;
  Ref<NativeMemory> memory = share_registry::Acquire(id, &device);
  if (!memory) {
    throw Error{code::kDisposed, "Expected a live 'local' share, but id " + text +
                                     " was released by the sharing thread (or never existed)"};
  }
  Napi::Env env = info.Env();
  Napi::Value handle(env, NewStorageHandle(env, std::move(memory), Accounting::kShared));
  Napi::Array pair = Napi::Array::New(env, 2);
  pair.Set(0u, handle);
  pair.Set(1u, Napi::String::New(env, device));
  return pair;
}

Napi::Value LocalShares(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(share_registry::Size()));
}

Napi::Value CudaIpcShare(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cuda::IpcShare share;
  const cuda::IpcResult result = cuda::ShareIpc(StorageOf(env, info[0]), &share);
  ThrowIfFailed(result);
  Napi::Object d = Napi::Object::New(env);
  d.Set("handle", share.handle);
  d.Set("ticket", share.ticket);
  d.Set("pid", static_cast<double>(share.pid));
  d.Set("fd", static_cast<double>(share.fd));
  d.Set("device", share.device);
  d.Set("size", static_cast<double>(share.size));
  return d;
}

Napi::Value CudaIpcOpen(const Napi::CallbackInfo& info) {
  cuda::IpcShare share;
  share.handle = info[0].As<Napi::String>().Utf8Value();
  share.ticket = info[1].As<Napi::String>().Utf8Value();
  share.pid = info[2].As<Napi::Number>().Int64Value();
  share.fd = info[3].As<Napi::Number>().Int64Value();
  share.device = info[4].As<Napi::Number>().Int32Value();
  share.size = static_cast<uint64_t>(info[5].As<Napi::Number>().Int64Value());
  cuda::IpcResult result;
  Ref<NativeMemory> memory = cuda::OpenIpc(share, &result);
  if (!memory) ThrowIfFailed(result);
  return Napi::Value(info.Env(),
                     NewStorageHandle(info.Env(), std::move(memory), Accounting::kShared));
}

Napi::Value CudaIpcCollect(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), cuda::CollectShareable());
}

Napi::Value CudaIpcCounts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const cuda::IpcCounts counts = cuda::CountIpc();
  Napi::Object result = Napi::Object::New(env);
  result.Set("exported", counts.exported);
  result.Set("opened", counts.opened);
  result.Set("waiting", counts.waiting);
  return result;
}

}  // namespace dlnode
