#include "memory.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "../core/host_block.h"
#include "../core/pages.h"
#include "env_state.h"
#include "errors.h"
#include "host_storage.h"

namespace dlnode {

bool HugePageAdviceOn() {
  static const bool advice =
      dlcore::HugePageAdviceWanted(std::getenv("DLPACK_HUGE_PAGES"), dlcore::kVirtioDevices);
  return advice;
}

Napi::Value HostAlloc(const Napi::CallbackInfo& info) {
  const auto nbytes = static_cast<uint64_t>(info[0].As<Napi::Number>().Int64Value());
  const bool zeroed = info[1].As<Napi::Boolean>().Value();
  if (EnvState::Of(info.Env()).piled() > kPiledMax) {
    return info.Env().Null();  // lib/memory.js makes an ArrayBuffer instead
  }
  Ref<HostBlock> block = HostBlock::Allocate(nbytes, zeroed, HugePageAdviceOn());
  if (!block) {
    throw Error{code::kOutOfMemory, "Could not allocate " + std::to_string(nbytes) +
                                        " bytes of host memory for a tensor"};
  }
  return Napi::Value(info.Env(), NewStorageHandle(info.Env(), Ref<NativeMemory>(std::move(block)),
                                                  Accounting::kReport));
}

Napi::Value HostLoopTurned(const Napi::CallbackInfo& info) {
  EnvState::Of(info.Env()).LoopTurned(info.Env());
  return info.Env().Undefined();
}

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
