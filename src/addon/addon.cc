// Module wiring only: per-environment state, the cleanup hook, and the
// binding table lib/binding.js reads.
#include <napi.h>

#include "../core/stats.h"
#include "../core/struct_slab.h"
#include "buffer_view.h"
#include "capsule.h"
#include "compute_families.h"
#include "convention.h"
#include "copy.h"
#include "cuda.h"
#include "env_state.h"
#include "export.h"
#include "host_storage.h"
#include "import.h"
#include "linalg.h"
#include "memory.h"
#include "normalize.h"
#include "ops.h"
#include "reduce.h"
#include "sharing.h"
#include "struct_slab.h"

namespace dlnode {
namespace {

// (errorFactory, warn, isMainThread) -> { scratch, externalBuffers } and the
// calling convention (convention.h: slots, result codes, the dtype table).
// Called once per load of lib/ (Jest loads it once per test file; the last
// call wins).
Napi::Value Init(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  EnvState& state = EnvState::Of(env);
  state.SetFactory(env, info[0]);
  state.link()->SetWarn(env, info[1], info[2].As<Napi::Boolean>().Value());
  if (info.Length() > 3 && info[3].IsSymbol()) state.SetFailureMarker(env, info[3]);
  Napi::Object result = Convention(info.Env());
  result.Set("scratch", Napi::Value(env, state.ScratchBuffer(env)));
  result.Set("externalBuffers", Napi::Boolean::New(env, state.external_buffers()));
  return result;
}

// The error the last failed binding kept (EnvState::Fail), for lib/binding.js
// to throw.
Napi::Value TakeError(const Napi::CallbackInfo& info) {
  return Napi::Value(info.Env(), EnvState::Of(info.Env()).TakeError(info.Env()));
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  // Structs JS filled in a slab (struct_slab.h) count with the ones made here.
  const int64_t slab_made = SlabStructsMade();
  const int64_t slab_freed = SlabStructsFreed();
  result.Set("managedLive", Napi::Number::New(env, static_cast<double>(stats::managed_live.load() +
                                                                       slab_made - slab_freed)));
  result.Set("foreignLive",
             Napi::Number::New(env, static_cast<double>(stats::foreign_live.load())));
  result.Set("jsKeepaliveLive",
             Napi::Number::New(env, static_cast<double>(stats::js_keepalive_live.load())));
  result.Set("managedMade",
             Napi::Number::New(env, static_cast<double>(stats::managed_made.load() + slab_made)));
  result.Set("managedFreed",
             Napi::Number::New(env, static_cast<double>(stats::managed_freed.load() + slab_freed)));
  result.Set("foreignMade",
             Napi::Number::New(env, static_cast<double>(stats::foreign_made.load())));
  result.Set("cudaStreamsLive",
             Napi::Number::New(env, static_cast<double>(stats::cuda_streams_live.load())));
  result.Set("foreignFreed",
             Napi::Number::New(env, static_cast<double>(stats::foreign_freed.load())));
  result.Set("hostBlocksLive",
             Napi::Number::New(env, static_cast<double>(stats::host_blocks_live.load())));
  result.Set("hostBlocksMade",
             Napi::Number::New(env, static_cast<double>(stats::host_blocks_made.load())));
  result.Set("hostBlocksFreed",
             Napi::Number::New(env, static_cast<double>(stats::host_blocks_freed.load())));
  result.Set("hugePageRequests",
             Napi::Number::New(env, static_cast<double>(stats::huge_page_requests.load())));
  return result;
}

Napi::Value DrainReleases(const Napi::CallbackInfo& info) {
  EnvState::Of(info.Env()).link()->Drain(info.Env());
  return info.Env().Undefined();
}

Napi::Object Initialize(Napi::Env env, Napi::Object exports) {
  auto* state = new EnvState(env);
  napi_set_instance_data(
      env, state, [](napi_env, void* data, void*) { delete static_cast<EnvState*>(data); },
      nullptr);
  napi_add_env_cleanup_hook(
      env, [](void* data) { static_cast<EnvState*>(data)->Shutdown(); }, state);

  const struct {
    const char* name;
    Napi::Function::Callback fn;
  } functions[] = {
      {"init", Guarded<Init>},
      {"takeError", Guarded<TakeError>},
      {"bufferViewCount", Guarded<BufferViewCount>},
      {"exportTensor", Guarded<ExportTensor>},
      {"structSlab", Guarded<StructSlabOf>},
      {"bytesAddress", Guarded<BytesAddress>},
      {"importCapsule", Guarded<ImportCapsule>},
      {"capsuleFromPointer", Guarded<CapsuleFromPointer>},
      {"capsuleToPointer", Guarded<CapsuleToPointer>},
      {"capsuleDispose", Guarded<CapsuleDispose>},
      {"capsuleOwns", Guarded<CapsuleOwns>},
      {"storageBuffer", Guarded<StorageBuffer>},
      {"storageLength", Guarded<StorageLength>},
      {"storageAddress", Guarded<StorageAddress>},
      {"storageRelease", Guarded<StorageRelease>},
      {"storageSole", Guarded<StorageSole>},
      {"storageRecycle", Guarded<StorageRecycle>},
      {"hostAlloc", Guarded<HostAlloc>},
      {"hostLoopTurned", Guarded<HostLoopTurned>},
      {"copyStrided", Guarded<CopyStrided>},
      {"copyStridedAsync", Guarded<CopyStridedAsync>},
      {"detachBuffer", Guarded<DetachBuffer>},
      {"adviseHugePages", Guarded<AdviseHugePages>},
      {"setExternalBuffers", Guarded<SetExternalBuffers>},
      {"drainReleases", Guarded<DrainReleases>},
      {"stats", Guarded<Stats>},
      {"reduceTable", Guarded<ReduceTable>},
      {"reduce", Guarded<ReduceOnce>},
      {"reduceAsync", Guarded<ReduceAsync>},
      {"matmul", Guarded<MatmulFamily>},
      {"matmulAsync", Guarded<MatmulFamilyAsync>},
      {"statisticsTable", Guarded<StatisticsTable>},
      {"statistics", Guarded<StatisticsFamily>},
      {"statisticsAsync", Guarded<StatisticsFamilyAsync>},
      {"norms", Guarded<NormsFamily>},
      {"normsAsync", Guarded<NormsFamilyAsync>},
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
      {"streamDoneAfter", Guarded<StreamDoneAfter>},
      {"cudaAlloc", Guarded<CudaAlloc>},
      {"cudaCopy", Guarded<CudaCopy>},
      {"cudaHostWait", Guarded<CudaHostWait>},
      {"cudaStridedCopy", Guarded<CudaStridedCopy>},
      {"cudaConvert", Guarded<CudaConvert>},
      {"cudaStats", Guarded<CudaStats>},
      {"cudaEmptyCache", Guarded<CudaEmptyCache>},
      {"elementwise", Guarded<ElementwiseOnce>},
      {"elementwiseDense", Guarded<ElementwiseDense>},
      {"elementwiseAsync", Guarded<ElementwiseAsync>},
      {"normalize", Guarded<NormalizeOnce>},
      {"normalizeAsync", Guarded<NormalizeAsync>},
      {"getNumThreads", Guarded<GetNumThreadsOf>},
      // issue 40's host families (compute_families.h)
      {"computeTable", Guarded<ComputeTable>},
      {"sortLanes", Guarded<SortLanes>},
      {"scanLanes", Guarded<ScanLanes>},
      {"indexGather", Guarded<IndexGather>},
      {"indexNonzero", Guarded<IndexNonzero>},
      {"randomFill", Guarded<RandomFill>},
      {"randomMultinomial", Guarded<RandomMultinomial>},
      {"boxesIou", Guarded<BoxesIou>},
      {"boxesNms", Guarded<BoxesNms>},
      {"interpolateNchw", Guarded<InterpolateNchw>},
      {"setNumThreads", Guarded<SetNumThreadsTo>},
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
