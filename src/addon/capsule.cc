#include "capsule.h"

#include "../core/struct_slab.h"
#include "env_state.h"

namespace dlnode {
namespace {

void FinalizeCapsule(node_api_basic_env, void* data, void*) {
  auto* state = static_cast<CapsuleState*>(data);
  // Garbage-collected unconsumed: the capsule still owns the tensor, and
  // deleting the state calls its deleter. Our own deleter posts anything
  // JS-bound; a producer's deleter may run anywhere.
  delete state;
}

}  // namespace

CapsuleState& LiveCapsule(napi_env env, napi_value handle) {
  auto* state = HandleOf<CapsuleState>(env, handle, kCapsuleTag, "DLPackCapsule");
  if (!state->managed) {
    throw Error{code::kConsumed, "Expected an unconsumed DLPackCapsule, received a consumed one"};
  }
  return *state;
}

Napi::Value CapsuleFromPointer(const Napi::CallbackInfo& info) {
  bool lossless = false;
  const uint64_t address = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  // JS has checked the range; the pointer itself is trusted (docs/API.md: unsafe).
  void* ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
  const bool versioned_abi = info[1].As<Napi::Boolean>().Value();
  const bool entry = StructSlab::Find(ptr) != nullptr;
  if (!entry && StructSlab::Inside(ptr)) {
    // Read as a foreign struct it would be a misaligned read of another
    // entry's words (or of the header), and its deleter would be garbage.
    throw Error{code::kInvalidArgValue,
                "Expected the start of a struct dlpack filled, received a pointer inside one"};
  }
  if (!versioned_abi && entry) {
    throw Error{code::kInvalidArgValue,
                "Expected options.versioned true for a struct dlpack filled "
                "(a DLManagedTensorVersioned), received false"};
  }
  if (!ManagedTensor::Adopt(ptr)) {
    throw Error{code::kConsumed,
                "Expected a pointer no DLPackCapsule or tensor holds, received one that was "
                "already adopted with fromPointer() and not yet deleted or handed back"};
  }
  ManagedTensor managed(ptr, versioned_abi);
  // The version is in the stable prefix: safe to read whatever it says. The
  // device is read only where the version says the DLTensor layout is known
  // (type -1 otherwise), so that fromDLPack can refuse a copy it would need
  // before it consumes the capsule.
  double* scratch = EnvState::Of(info.Env()).scratch();
  const DLManagedTensorVersioned* versioned = managed.as_versioned();
  scratch[slot::kMajor] = versioned != nullptr ? versioned->version.major : 0;
  scratch[slot::kMinor] = versioned != nullptr ? versioned->version.minor : 0;
  const bool known_layout = versioned == nullptr || versioned->version.major <= 1;
  scratch[slot::kDeviceType] = known_layout ? managed.tensor()->device.device_type : -1;
  scratch[slot::kDeviceId] = known_layout ? managed.tensor()->device.device_id : 0;
  CapsuleState* state = nullptr;
  try {
    state = new CapsuleState(std::move(managed));
    return Napi::Value(info.Env(), NewHandle(info.Env(), state, &FinalizeCapsule));
  } catch (...) {
    // The caller still owns the pointer: hand it back without its deleter
    // (which also ends the adoption), wherever it is now.
    if (state != nullptr) {
      state->managed.release();
      delete state;
    } else {
      managed.release();
    }
    throw;
  }
}

Napi::Value CapsuleToPointer(const Napi::CallbackInfo& info) {
  CapsuleState& state = LiveCapsule(info.Env(), info[0]);
  // Native code owns it now and calls the deleter.
  void* ptr = state.managed.release();
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)));
}

Napi::Value CapsuleDispose(const Napi::CallbackInfo& info) {
  LiveCapsule(info.Env(), info[0]).managed.reset();
  return info.Env().Undefined();
}

Napi::Value CapsuleOwns(const Napi::CallbackInfo& info) {
  auto* state = HandleOf<CapsuleState>(info.Env(), info[0], kCapsuleTag, "DLPackCapsule");
  return Napi::Boolean::New(info.Env(), static_cast<bool>(state->managed));
}

}  // namespace dlnode
