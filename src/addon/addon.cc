// Module wiring only: per-environment state, the cleanup hook, and the
// binding table lib/binding.js reads.
#include <napi.h>

#include "../core/stats.h"
#include "buffer_view.h"
#include "capsule.h"
#include "copy.h"
#include "cuda.h"
#include "env_state.h"
#include "export.h"
#include "host_storage.h"
#include "import.h"
#include "sharing.h"

namespace dlnode {
namespace {

// (errorFactory, [[code, bits], ...], warn, isMainThread) -> scratch ArrayBuffer. Called once per
// load of lib/ (Jest loads it once per test file; the last call wins).
Napi::Value Init(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  EnvState& state = EnvState::Of(env);
  state.SetFactory(env, info[0]);
  Napi::Array table = info[1].As<Napi::Array>();
  std::vector<DtypeEntry> entries;
  for (uint32_t i = 0; i < table.Length(); ++i) {
    Napi::Array pair = table.Get(i).As<Napi::Array>();
    entries.push_back({static_cast<uint8_t>(pair.Get(0u).As<Napi::Number>().Uint32Value()),
                       static_cast<uint8_t>(pair.Get(1u).As<Napi::Number>().Uint32Value())});
  }
  state.SetDtypes(DtypeTable(std::move(entries)));
  state.link()->SetWarn(env, info[2], info[3].As<Napi::Boolean>().Value());
  Napi::Object result = Napi::Object::New(env);
  result.Set("scratch", Napi::Value(env, state.ScratchBuffer(env)));
  result.Set("externalBuffers", Napi::Boolean::New(env, state.external_buffers()));
  return result;
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  result.Set("managedLive", Napi::Number::New(env, static_cast<double>(stats::managed_live.load())));
  result.Set("foreignLive", Napi::Number::New(env, static_cast<double>(stats::foreign_live.load())));
  result.Set("jsKeepaliveLive",
             Napi::Number::New(env, static_cast<double>(stats::js_keepalive_live.load())));
  result.Set("managedMade", Napi::Number::New(env, static_cast<double>(stats::managed_made.load())));
  result.Set("managedFreed", Napi::Number::New(env, static_cast<double>(stats::managed_freed.load())));
  result.Set("foreignMade", Napi::Number::New(env, static_cast<double>(stats::foreign_made.load())));
  result.Set("foreignFreed", Napi::Number::New(env, static_cast<double>(stats::foreign_freed.load())));
  return result;
}

Napi::Value DrainReleases(const Napi::CallbackInfo& info) {
  EnvState::Of(info.Env()).link()->Drain(info.Env());
  return info.Env().Undefined();
}

Napi::Object Initialize(Napi::Env env, Napi::Object exports) {
  auto* state = new EnvState(env);
  napi_set_instance_data(
      env, state, [](napi_env, void* data, void*) { delete static_cast<EnvState*>(data); }, nullptr);
  napi_add_env_cleanup_hook(
      env, [](void* data) { static_cast<EnvState*>(data)->Shutdown(); }, state);

  const struct {
    const char* name;
    Napi::Function::Callback fn;
  } functions[] = {
      {"init", Guarded<Init>},
      {"bufferViewCount", Guarded<BufferViewCount>},
      {"exportTensor", Guarded<ExportTensor>},
      {"importCapsule", Guarded<ImportCapsule>},
      {"capsuleFromPointer", Guarded<CapsuleFromPointer>},
      {"capsuleToPointer", Guarded<CapsuleToPointer>},
      {"capsuleDispose", Guarded<CapsuleDispose>},
      {"capsuleOwns", Guarded<CapsuleOwns>},
      {"storageBuffer", Guarded<StorageBuffer>},
      {"storageLength", Guarded<StorageLength>},
      {"storageRelease", Guarded<StorageRelease>},
      {"copyStrided", Guarded<CopyStrided>},
      {"detachBuffer", Guarded<DetachBuffer>},
      {"adviseHugePages", Guarded<AdviseHugePages>},
      {"setExternalBuffers", Guarded<SetExternalBuffers>},
      {"drainReleases", Guarded<DrainReleases>},
      {"stats", Guarded<Stats>},
      {"shmCreate", Guarded<ShmCreate>},
      {"shmOpen", Guarded<ShmOpen>},
      {"localShare", Guarded<LocalShare>},
      {"localOpen", Guarded<LocalOpen>},
      {"localShares", Guarded<LocalShares>},
      {"cudaIpcShare", Guarded<CudaIpcShare>},
      {"cudaIpcOpen", Guarded<CudaIpcOpen>},
      {"cudaIpcCollect", Guarded<CudaIpcCollect>},
      {"cudaIpcCounts", Guarded<CudaIpcCounts>},
      {"cudaInfo", Guarded<CudaInfo>},
      {"cudaSynchronize", Guarded<CudaSynchronize>},
      {"cudaStreamCreate", Guarded<CudaStreamCreate>},
      {"cudaStreamDestroy", Guarded<CudaStreamDestroy>},
      {"cudaStreamSynchronize", Guarded<CudaStreamSynchronize>},
      {"cudaStreamWait", Guarded<CudaStreamWait>},
      {"cudaStreamDone", Guarded<CudaStreamDone>},
      {"cudaAlloc", Guarded<CudaAlloc>},
      {"cudaCopy", Guarded<CudaCopy>},
      {"cudaStridedCopy", Guarded<CudaStridedCopy>},
      {"cudaConvert", Guarded<CudaConvert>},
      {"cudaStats", Guarded<CudaStats>},
      {"cudaEmptyCache", Guarded<CudaEmptyCache>},
  };
  for (const auto& f : functions) exports.Set(f.name, Napi::Function::New(env, f.fn, f.name));
  return exports;
}

}  // namespace
}  // namespace dlnode

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  return dlnode::Initialize(env, exports);
}

NODE_API_MODULE(dlpack, InitModule)
