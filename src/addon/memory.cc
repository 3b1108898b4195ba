#include "memory.h"

#include "../core/pages.h"
#include "errors.h"

namespace dlnode {

Napi::Value DetachBuffer(const Napi::CallbackInfo& info) {
  Check(info.Env(), napi_detach_arraybuffer(info.Env(), info[0]), "napi_detach_arraybuffer");
  return info.Env().Undefined();
}

Napi::Value AdviseHugePages(const Napi::CallbackInfo& info) {
  Napi::ArrayBuffer buffer = info[0].As<Napi::ArrayBuffer>();
  return Napi::Number::New(
      info.Env(), static_cast<double>(dlcore::AdviseHugePages(buffer.Data(), buffer.ByteLength())));
}

}  // namespace dlnode
