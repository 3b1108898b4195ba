#include "struct_slab.h"

#include <cstdint>

#include "../core/struct_slab.h"
#include "bytes.h"
#include "env_state.h"

namespace dlnode {
namespace {

constexpr uint64_t kExactDouble = uint64_t{1} << 53;

uint64_t AddressOf(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

Napi::Value StructSlabOf(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  EnvState& state = EnvState::Of(env);
  napi_value shared = state.SlabObject(env);
  if (shared != nullptr) return Napi::Value(env, shared);
  const bool peek = info.Length() > 1 && info[1].IsBoolean() && info[1].As<Napi::Boolean>().Value();
  if (peek || !state.external_buffers() || state.slab_refused()) return Napi::Env(env).Null();

  const auto deleter = reinterpret_cast<uintptr_t>(StructSlab::deleter());
  StructSlab* slab = StructSlab::Acquire(state.link());
  if (slab == nullptr || AddressOf(slab->memory()) + StructSlab::kBytes >= kExactDouble ||
      AddressOf(slab) >= kExactDouble || deleter >= kExactDouble) {
    state.RefuseSlab(slab);  // gives a slab back
    return Napi::Env(env).Null();
  }
  state.SetSlab(slab);  // from here on the environment's cleanup gives it back
  napi_value buffer;
  // The memory outlives every environment (struct_slab.h): no finalizer.
  Check(env,
        napi_create_external_arraybuffer(env, slab->memory(), StructSlab::kBytes, nullptr, nullptr,
                                         &buffer),
        "napi_create_external_arraybuffer");
  Napi::Object object = Napi::Object::New(env);
  object.Set("buffer", Napi::Value(env, buffer));
  object.Set("base", static_cast<double>(AddressOf(slab->memory())));
  object.Set("context", static_cast<double>(AddressOf(slab)));
  object.Set("deleter", static_cast<double>(deleter));
  object.Set("epoch", slab->epoch());
  state.SetSlabObject(env, object, info[0]);
  return object;
}

Napi::Value BytesAddress(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(),
                           static_cast<double>(AddressOf(BytesOf(info.Env(), info[0]).data)));
}

}  // namespace dlnode
