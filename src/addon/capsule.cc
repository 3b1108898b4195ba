#include "capsule.h"

#include "env_state.h"

namespace dlnode {
namespace {

void FinalizeCapsule(node_api_basic_env, void* data, void*) {
  auto* state = static_cast<CapsuleState*>(data);
  // Garbage-collected unconsumed: the capsule still owns the tensor. Our own
  // deleter posts anything JS-bound; a producer's deleter may run anywhere.
  if (state->managed.ptr != nullptr) state->managed.CallDeleter();
  delete state;
}

}  // namespace

CapsuleState& LiveCapsule(napi_env env, napi_value handle) {
  auto* state = HandleOf<CapsuleState>(env, handle, kCapsuleTag, "DLPackCapsule");
  if (state->managed.ptr == nullptr) {
    throw Error{code::kConsumed, "Expected an unconsumed DLPackCapsule, received a consumed one"};
  }
  return *state;
}

Napi::Value CapsuleFromPointer(const Napi::CallbackInfo& info) {
  bool lossless = false;
  const uint64_t address = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  // JS has checked the range; the pointer itself is trusted (docs/API.md: unsafe).
  const AnyManaged managed{reinterpret_cast<void*>(static_cast<uintptr_t>(address)),
                           info[1].As<Napi::Boolean>().Value()};
  // The version is in the stable prefix: safe to read whatever it says. The
  // device is read only where the version says the DLTensor layout is known
  // (type -1 otherwise), so that fromDLPack can refuse a copy it would need
  // before it consumes the capsule.
  double* scratch = EnvState::Of(info.Env()).scratch();
  const auto* versioned = static_cast<const DLManagedTensorVersioned*>(managed.ptr);
  scratch[slot::kMajor] = managed.versioned ? versioned->version.major : 0;
  scratch[slot::kMinor] = managed.versioned ? versioned->version.minor : 0;
  const bool known_layout = !managed.versioned || versioned->version.major <= 1;
  scratch[slot::kDeviceType] = known_layout ? managed.tensor()->device.device_type : -1;
  scratch[slot::kDeviceId] = known_layout ? managed.tensor()->device.device_id : 0;
  if (!managed.Adopt()) {
    throw Error{code::kConsumed, "Expected a pointer no DLPackCapsule or tensor holds, received one that was "
                                 "already adopted with fromPointer() and not yet deleted or handed back"};
  }
  auto* state = new CapsuleState(managed);
  try {
    return Napi::Value(info.Env(), NewHandle(info.Env(), state, &FinalizeCapsule));
  } catch (...) {
    delete state;  // the caller still owns the pointer
    managed.Disown();
    throw;
  }
}

Napi::Value CapsuleToPointer(const Napi::CallbackInfo& info) {
  CapsuleState& state = LiveCapsule(info.Env(), info[0]);
  const auto address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(state.managed.ptr));
  state.managed.Disown();
  state.managed.ptr = nullptr;  // native code owns it now and calls the deleter
  return Napi::BigInt::New(info.Env(), address);
}

Napi::Value CapsuleDispose(const Napi::CallbackInfo& info) {
  CapsuleState& state = LiveCapsule(info.Env(), info[0]);
  AnyManaged managed = state.managed;
  state.managed.ptr = nullptr;
  managed.CallDeleter();
  return info.Env().Undefined();
}

Napi::Value CapsuleOwns(const Napi::CallbackInfo& info) {
  auto* state = HandleOf<CapsuleState>(info.Env(), info[0], kCapsuleTag, "DLPackCapsule");
  return Napi::Boolean::New(info.Env(), state->managed.ptr != nullptr);
}

}  // namespace dlnode
