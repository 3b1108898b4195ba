// CUDA memory owned by this library (docs/API.md "CUDA"): device memory from the
// block cache (block_cache.h) over the stream-ordered pool, device memory other processes can map
// (cuda_ipc.h), pinned host memory and managed memory.
// Reference counted like every NativeMemory; the last release frees it on the
// releasing thread, or leaks it on purpose once the process is exiting.
#ifndef DLPACK_NODE_CORE_CUDA_MEMORY_H_
#define DLPACK_NODE_CORE_CUDA_MEMORY_H_

#include <cstdint>

#include "cuda_runtime.h"
#include "managed.h"
#include "stream_order.h"

namespace dlnode {
namespace cuda {

// X(jsName, Constant, value); lib/cuda.js reads them from init()
// (src/addon/convention.h). kShareable is plain cudaMalloc memory: legacy
// CUDA IPC cannot export memory from a stream-ordered pool.
#define DLNODE_MEMORY_KINDS(X) \
  X(device, kDevice, 0)        \
  X(pinned, kPinned, 1)        \
  X(managed, kManaged, 2)      \
  X(shareable, kShareable, 3)

enum class MemoryKind {
#define DLNODE_MEMORY_KIND(js, constant, value) constant = (value),
  DLNODE_MEMORY_KINDS(DLNODE_MEMORY_KIND)
#undef DLNODE_MEMORY_KIND
};

// allocated_bytes counts what live allocations asked for; blocks in the
// block cache (block_cache.h) are not allocated: they are cached_bytes
// (whole blocks, so a cached 256-byte request counts 512).
struct MemoryStats {
  int64_t allocated_bytes;
  int64_t allocations;
  int64_t peak_allocated_bytes;
  int64_t cached_bytes;
  int64_t cached_blocks;
};

class CudaMemory final : public NativeMemory {
 public:
  // Memory of `bytes` on `device`; nullptr with `status` on failure (out of
  // memory is a status, never a crash). Host-visible kinds (pinned, managed)
  // and shareable memory are always zeroed; device memory only when `zeroed`
  // (docs/API.md "empty() on a CUDA device": its contents are unspecified, as
  // torch.empty's, and a copy's result is written whole).
  static Ref<CudaMemory> Allocate(MemoryKind kind, int device, uint64_t bytes, bool zeroed,
                                  Status* status);

  MemoryKind memory_kind() const { return kind_; }
  int device() const { return device_; }
  HostFence* host_fence() override {
    return kind_ == MemoryKind::kPinned || kind_ == MemoryKind::kManaged ? &fence_ : nullptr;
  }

 private:
  CudaMemory(MemoryKind kind, int device, void* ptr, uint64_t bytes);
  void Destroy() noexcept override;
  MemoryKind kind_;
  int device_;
  HostFence fence_;
};

// After a copy on a stream other than the legacy one, enqueued with
// `device` current, read or wrote `memory`: when it is host-visible memory
// this library allocated, its next host access waits for that copy
// (stream_order.h, HostFence). Any other memory: nothing to do.
Status FenceHostAccess(int device, NativeMemory* memory);

// Before the host reads or writes `memory` (lib/storage.js buffer()): waits
// for the copies FenceHostAccess marked. Returns at once when none is pending.
Status WaitHostAccess(NativeMemory* memory);

// Copies `bytes` between any two addresses CUDA can see (device, pinned,
// managed or pageable host memory), synchronously with respect to the host,
// with `device` (the CUDA memory's; the destination's when both are) current
// and ordered after its legacy stream; `other`, the other side's device when
// it is CUDA memory of another device (else -1), is ordered with it both
// ways (stream_order.h EnqueueOrderedAcross).
Status Copy(int device, int other, void* dst, const void* src, uint64_t bytes);

// The same copy enqueued on `stream` of `device` (stream_order.h: after
// earlier work on the legacy streams of `device` and `other`, and before
// later work there), returning at once when both sides are device or pinned
// memory; pageable host memory makes it synchronous, as CUDA does. On the
// legacy stream it is Copy().
Status CopyAsync(int device, int other, void* dst, const void* src, uint64_t bytes,
                 uintptr_t stream);

// Frees the kShareable allocations whose CudaMemory is gone and whose
// importers all let go (cuda_ipc.h CollectIpc; counted in Stats until then);
// returns how many still wait for importers.
int CollectShareable();

// This process's allocations through CudaMemory on `device`.
MemoryStats Stats(int device);

// Frees the blocks `device`'s block cache holds and trims its pool, always
// (waits for the legacy stream first); returns the bytes the pool handed
// back to the driver.
int64_t EmptyCache(int device);

constexpr int kMaxDevices = 64;

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_MEMORY_H_
