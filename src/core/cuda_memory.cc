#include "cuda_memory.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "block_cache.h"
#include "cuda_api.h"
#include "cuda_ipc.h"
#include "stream_order.h"

#ifdef DLPACK_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace dlnode {
namespace cuda {
namespace {

// Process-wide on purpose: memory may be freed on any thread, after the
// environment that allocated it is gone.
struct DeviceCounters {
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> count{0};
  std::atomic<int64_t> peak{0};
};
DeviceCounters counters[kMaxDevices];

void CountFree(int device, int64_t bytes) {
  counters[device].bytes.fetch_sub(bytes);
  counters[device].count.fetch_sub(1);
}

#ifdef DLPACK_WITH_CUDA
void CountAllocation(int device, int64_t bytes) {
  DeviceCounters& c = counters[device];
  const int64_t now = c.bytes.fetch_add(bytes) + bytes;
  c.count.fetch_add(1);
  int64_t peak = c.peak.load();
  while (now > peak && !c.peak.compare_exchange_weak(peak, now)) {
  }
}

Status Invalid(const char* message) {
  Status s;
  s.ok = false;
  s.name = "cudaErrorInvalidValue";
  s.message = message;
  return s;
}

// Lets the device's default pool keep freed memory for reuse instead of
// returning it at every synchronisation: a caching allocator.
void KeepPoolMemory(int device) {
  static std::atomic<bool> configured[kMaxDevices];
  if (configured[device].exchange(true)) return;
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    uint64_t threshold = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
  cudaGetLastError();
}

// A cudaMalloc-like call, tried once more after the device's pool has been
// trimmed when it runs out of memory: the pool keeps freed bytes (above),
// which cudaMalloc and cudaMallocManaged cannot use until they are handed back.
template <typename Call>
Status TrimmedRetry(int device, Call call) {
  Status s = Check(call());
  if (s.ok || s.name != "cudaErrorMemoryAllocation") return s;
  EmptyCache(device);
  return Check(call());
}

// The device's stream-ordered pool behind the block cache. Each call makes
// `device_` current for itself: the cache calls it from frees on any thread.
class RuntimeBlockAllocator final : public BlockAllocator {
 public:
  explicit RuntimeBlockAllocator(int device) : device_(device) {}

  Status Allocate(uint64_t bytes, uintptr_t stream, void** ptr) override {
    DeviceGuard guard(device_);
    if (!guard.status().ok) return guard.status();
    KeepPoolMemory(device_);
    return Check(cudaMallocAsync(ptr, static_cast<size_t>(bytes), StreamOf(stream)));
  }
  void Free(void* ptr, uintptr_t stream) override {
    DeviceGuard guard(device_);
    if (guard.status().ok) cudaFreeAsync(ptr, StreamOf(stream));
    cudaGetLastError();
  }
  Status Record(uintptr_t stream, uintptr_t* event) override {
    DeviceGuard guard(device_);
    if (!guard.status().ok) return guard.status();
    return RecordNewEvent(stream, event);
  }
  bool Done(uintptr_t event) override {
    DeviceGuard guard(device_);
    const bool done = cudaEventQuery(reinterpret_cast<cudaEvent_t>(event)) == cudaSuccess;
    cudaGetLastError();  // cudaErrorNotReady is an answer, not an error to keep
    return done;
  }
  void Destroy(uintptr_t event) override {
    DeviceGuard guard(device_);
    cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event));
    cudaGetLastError();
  }
  uint64_t Trim() override {
    DeviceGuard guard(device_);
    if (!guard.status().ok) return 0;
    // The frees just enqueued must have run before the pool can return them.
    cudaStreamSynchronize(cudaStreamLegacy);
    cudaMemPool_t pool = nullptr;
    uint64_t before = 0;
    uint64_t after = 0;
    if (cudaDeviceGetDefaultMemPool(&pool, device_) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &before) == cudaSuccess) {
      cudaMemPoolTrimTo(pool, 0);
      if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &after) != cudaSuccess)
        after = before;
    }
    cudaGetLastError();
    return before > after ? before - after : 0;
  }

 private:
  int device_;
};

// One cache per device, made on first use and never destroyed: blocks are
// freed on any thread, after exit has begun too (they are leaked then).
BlockCache* CacheOf(int device, bool create) {
  static std::atomic<BlockCache*> caches[kMaxDevices];
  static std::mutex creating;
  BlockCache* cache = caches[device].load(std::memory_order_acquire);
  if (cache != nullptr || !create) return cache;
  std::lock_guard<std::mutex> lock(creating);
  cache = caches[device].load(std::memory_order_acquire);
  if (cache == nullptr) {
    cache = new BlockCache(new RuntimeBlockAllocator(device));
    caches[device].store(cache, std::memory_order_release);
  }
  return cache;
}
#endif

}  // namespace

CudaMemory::CudaMemory(MemoryKind kind, int device, void* ptr, uint64_t bytes)
    : NativeMemory(ptr, bytes), kind_(kind), device_(device) {}

MemoryStats Stats(int device) {
  if (device < 0 || device >= kMaxDevices) return {0, 0, 0, 0, 0};
  const DeviceCounters& c = counters[device];
  MemoryStats stats{c.bytes.load(), c.count.load(), c.peak.load(), 0, 0};
#ifdef DLPACK_WITH_CUDA
  if (BlockCache* cache = CacheOf(device, false)) {
    const BlockCacheStats cached = cache->Stats();
    stats.cached_bytes = cached.cached_bytes;
    stats.cached_blocks = cached.cached_blocks;
  }
#endif
  return stats;
}

#ifdef DLPACK_WITH_CUDA

Ref<CudaMemory> CudaMemory::Allocate(MemoryKind kind, int device, uint64_t bytes, bool zeroed,
                                     Status* status) {
  if (device < 0 || device >= kMaxDevices) {
    *status = Invalid("device index out of range");
    return {};
  }
  DeviceGuard guard(device);
  if (!guard.status().ok) {
    *status = guard.status();
    return {};
  }
  CollectShareable();  // frees that waited for importers come first (one atomic load when none)
  void* ptr = nullptr;
  const size_t size =
      bytes == 0 ? 1 : static_cast<size_t>(bytes);  // a valid pointer even when empty
  switch (kind) {
    case MemoryKind::kDevice:
      // A cached block freed on the legacy stream, or a new one from the pool.
      *status = CacheOf(device, true)->Acquire(size, kLegacyStream, &ptr);
      // Zeroed when asked (zeros(); empty() leaves the contents unspecified,
      // as torch.empty does), ordered on the legacy stream, which every later
      // copy also uses.
      if (status->ok && zeroed) *status = Check(cudaMemsetAsync(ptr, 0, size, cudaStreamLegacy));
      break;
    case MemoryKind::kPinned:
      *status = Check(cudaMallocHost(&ptr, size));
      if (status->ok) std::memset(ptr, 0, size);
      break;
    case MemoryKind::kManaged:
      *status =
          TrimmedRetry(device, [&] { return cudaMallocManaged(&ptr, size, cudaMemAttachGlobal); });
      if (status->ok) *status = Check(cudaMemset(ptr, 0, size));
      break;
    case MemoryKind::kShareable:
      *status = TrimmedRetry(device, [&] { return cudaMalloc(&ptr, size); });
      if (status->ok) *status = Check(cudaMemset(ptr, 0, size));
      break;
  }
  if (!status->ok) {
    if (ptr != nullptr) {
      if (kind == MemoryKind::kPinned)
        cudaFreeHost(ptr);
      else if (kind == MemoryKind::kDevice)
        CacheOf(device, true)->Release(ptr, size, kLegacyStream);
      else
        cudaFree(ptr);
    }
    return {};
  }
  CountAllocation(device, static_cast<int64_t>(bytes));
  auto memory = Ref<CudaMemory>::adopt(new CudaMemory(kind, device, ptr, bytes));
  if (kind == MemoryKind::kShareable) AddShareable(memory.get(), device);
  return memory;
}

// Frees an allocation of `kind` and stops counting it. After exit has begun
// the driver may be gone: the memory is leaked rather than freed then.
static void Free(MemoryKind kind, void* ptr, int device, uint64_t bytes) {
  if (kind == MemoryKind::kDevice) {
    // Back to the cache: no CUDA call unless the block is not cached (the
    // cache frees it, making the device current itself).
    if (!ShuttingDown()) CacheOf(device, true)->Release(ptr, bytes == 0 ? 1 : bytes, kLegacyStream);
    CountFree(device, static_cast<int64_t>(bytes));
    return;
  }
  if (!ShuttingDown()) {
    DeviceGuard guard(device);
    if (guard.status().ok) {
      switch (kind) {
        case MemoryKind::kDevice:  // above
          break;
        case MemoryKind::kPinned:  // CudaMemory::Destroy waited for its stream copies
          cudaFreeHost(ptr);
          break;
        case MemoryKind::kManaged:
        case MemoryKind::kShareable:
          cudaFree(ptr);  // synchronises with the device first
          break;
      }
    }
    cudaGetLastError();
  }
  CountFree(device, static_cast<int64_t>(bytes));
}

void CudaMemory::Destroy() noexcept {
  // cudaFreeHost is not stream-ordered, and cudaFree waits for the current
  // device only: a stream copy on any device that still reads or writes
  // pinned or managed memory is waited for here (its event is on the
  // copy's device). After exit has begun the memory is leaked (Free).
  if (ShuttingDown())
    fence_.Forget(RuntimeStreamOps());
  else
    fence_.Wait(RuntimeStreamOps());
  // Shareable memory another process still maps is freed later (CollectShareable).
  if (kind_ != MemoryKind::kShareable || !ReleaseShareable(this, device_)) {
    Free(kind_, base(), device_, length());
  }
  delete this;
}

static void FreeShareable(void* ptr, int device, uint64_t bytes) {
  Free(MemoryKind::kShareable, ptr, device, bytes);
}

Status FenceHostAccess(int device, NativeMemory* memory) {
  HostFence* fence = memory->host_fence();
  if (fence == nullptr) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return fence->Mark(RuntimeStreamOps());
}

Status WaitHostAccess(NativeMemory* memory) {
  HostFence* fence = memory->host_fence();
  return fence == nullptr ? Status{} : fence->Wait(RuntimeStreamOps());
}

int64_t EmptyCache(int device) {
  if (device < 0 || device >= kMaxDevices) return 0;
  // Made if need be: the default pool is trimmed even when this process has
  // not allocated through the cache yet.
  return CacheOf(device, true)->EmptyCache();
}

Status Copy(int device, int other, void* dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return {};
  // cudaMemcpy is ordered after the legacy stream of the current device
  // only: that must be the memory's device, not whichever was current.
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  if (other < 0 || other == device) {
    // cudaMemcpyDefault: unified addressing tells the direction; synchronous
    // with the host and ordered after work on the legacy default stream.
    return Check(cudaMemcpy(dst, src, static_cast<size_t>(bytes), cudaMemcpyDefault));
  }
  // Two devices: bridged with the other's legacy stream both ways, then
  // waited for, as synchronous as cudaMemcpy.
  Status s =
      EnqueueOrderedAcross(RuntimeStreamOps(), device, other, kLegacyStream, [&](uintptr_t on) {
        return Check(
            cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDefault, StreamOf(on)));
      });
  if (!s.ok) return s;
  return Check(cudaStreamSynchronize(cudaStreamLegacy));
}

Status CopyAsync(int device, int other, void* dst, const void* src, uint64_t bytes,
                 uintptr_t stream) {
  if (stream == kLegacyStream) return Copy(device, other, dst, src, bytes);
  if (bytes == 0) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return EnqueueOrderedAcross(RuntimeStreamOps(), device, other, stream, [&](uintptr_t on) {
    return Check(
        cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDefault, StreamOf(on)));
  });
}

#else

Status CopyAsync(int, int, void*, const void*, uint64_t, uintptr_t) {
  int count = 0;
  return DeviceCount(&count);
}

Ref<CudaMemory> CudaMemory::Allocate(MemoryKind, int, uint64_t, bool, Status* status) {
  int count = 0;
  *status = DeviceCount(&count);  // says "not compiled"
  return {};
}

void CudaMemory::Destroy() noexcept {
  fence_.Forget(RuntimeStreamOps());
  CountFree(device_, static_cast<int64_t>(length()));
  delete this;
}

static void FreeShareable(void*, int device, uint64_t bytes) {
  CountFree(device, static_cast<int64_t>(bytes));
}

int64_t EmptyCache(int) { return 0; }

Status FenceHostAccess(int, NativeMemory*) { return {}; }
Status WaitHostAccess(NativeMemory*) { return {}; }

Status Copy(int, int, void*, const void*, uint64_t) {
  int count = 0;
  return DeviceCount(&count);
}

#endif

int CollectShareable() {
  int waiting = 0;
  for (const IpcFree& f : CollectIpc(&waiting)) FreeShareable(f.ptr, f.device, f.bytes);
  return waiting;
}

}  // namespace cuda
}  // namespace dlnode
