// Bindings for dl.cuda (API.md "CUDA"): availability, synchronisation, streams
// and the stream ordering of DLPack exports.
#include "cuda.h"

#include <string>

#include "../core/cuda_runtime.h"
#include "env_state.h"

namespace dlnode {
namespace {

void Throw(const cuda::Status& s, const std::string& what) {
  if (s.ok) return;
  throw Error{s.unavailable ? code::kCudaUnavailable : code::kCuda,
              what + " failed: " + s.name + " (" + s.message + ")", s.name};
}

uintptr_t StreamArg(const Napi::Value& v) {
  bool lossless = false;
  return static_cast<uintptr_t>(v.As<Napi::BigInt>().Uint64Value(&lossless));
}

}  // namespace

Napi::Value CudaInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int count = 0;
  const cuda::Status s = cuda::DeviceCount(&count);
  Napi::Object result = Napi::Object::New(env);
  result.Set("compiled", cuda::Compiled());
  result.Set("deviceCount", count);
  if (!s.ok) {
    result.Set("errorName", s.name);
    result.Set("reason", s.message);
  }
  return result;
}

Napi::Value CudaSynchronize(const Napi::CallbackInfo& info) {
  const int device = info[0].As<Napi::Number>().Int32Value();
  Throw(cuda::Synchronize(device), "cudaDeviceSynchronize on device " + std::to_string(device));
  return info.Env().Undefined();
}

Napi::Value CudaStreamCreate(const Napi::CallbackInfo& info) {
  const int device = info[0].As<Napi::Number>().Int32Value();
  uintptr_t stream = 0;
  Throw(cuda::StreamCreate(device, &stream), "cudaStreamCreate on device " + std::to_string(device));
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(stream));
}

Napi::Value CudaStreamDestroy(const Napi::CallbackInfo& info) {
  Throw(cuda::StreamDestroy(info[0].As<Napi::Number>().Int32Value(), StreamArg(info[1])),
        "cudaStreamDestroy");
  return info.Env().Undefined();
}

Napi::Value CudaStreamSynchronize(const Napi::CallbackInfo& info) {
  Throw(cuda::StreamSynchronize(info[0].As<Napi::Number>().Int32Value(), StreamArg(info[1])),
        "cudaStreamSynchronize");
  return info.Env().Undefined();
}

Napi::Value CudaStreamWait(const Napi::CallbackInfo& info) {
  Throw(cuda::MakeStreamWait(info[0].As<Napi::Number>().Int32Value(), StreamArg(info[1])),
        "ordering the consumer's stream after the producer's");
  return info.Env().Undefined();
}

}  // namespace dlnode
