// A per-device cache of freed small blocks of CUDA device memory, so that a
// loop of `empty([256], { device: 'cuda' })` + `dispose()` reuses blocks
// instead of calling cudaMallocAsync and cudaFreeAsync each time (the
// figures are in bench/README.md, "CUDA").
//
// Size classes: a request of n bytes takes a block of the next power of two
// of at least kMinBlock bytes; requests above max_block are never cached.
// The cache holds at most limit bytes per device; a block freed when it is
// full goes back to the allocator at once.
//
// The stream rule (as torch's caching allocator, c10/cuda/CUDACachingAllocator.cpp):
// a block is cached with the stream its free was ordered on. A request on
// that same stream may take it at once: everything the stream does with the
// block's old contents is enqueued before anything the new owner enqueues.
// A request on another stream may take it only after an event recorded on
// the freeing stream has completed; the event is recorded when such a
// request first looks at the block, and until it completes that request gets
// fresh memory; one miss records at most one event. A block freed on the
// per-thread default stream (value 2, a different stream on every thread)
// gets its event at the free and is never taken as "the same stream".
// (This library orders its own device work on the legacy
// stream, src/core/stream_order.h, so today every block is freed and reused
// there.)
//
// When the allocator fails (out of memory) the cache gives every block back,
// trims the allocator and tries the allocation once more; EmptyCache() gives
// the blocks back and trims on demand (dl.cuda.emptyCache(), docs/API.md
// "CUDA"). Both trim even when the cache held nothing: blocks above
// max_block never enter it, and the pool keeps their bytes after they are
// freed (its release threshold is kept high, cuda_memory.cc). The device calls sit
// behind BlockAllocator, so test/cpp/block_cache_test.cc drives the cache
// with a fake one. Thread-safe: blocks are freed on whichever thread drops
// the last reference.
#ifndef DLPACK_NODE_CORE_BLOCK_CACHE_H_
#define DLPACK_NODE_CORE_BLOCK_CACHE_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda_runtime.h"

namespace dlnode {
namespace cuda {

// The device memory calls the cache makes (the runtime's in cuda_memory.cc).
class BlockAllocator {
 public:
  virtual ~BlockAllocator() = default;
  // cudaMallocAsync of `bytes` ordered on `stream`.
  virtual Status Allocate(uint64_t bytes, uintptr_t stream, void** ptr) = 0;
  // cudaFreeAsync ordered on `stream`.
  virtual void Free(void* ptr, uintptr_t stream) = 0;
  // Records an event on `stream` (after everything enqueued there so far).
  virtual Status Record(uintptr_t stream, uintptr_t* event) = 0;
  // Whether `event` has completed (cudaEventQuery); never blocks.
  virtual bool Done(uintptr_t event) = 0;
  virtual void Destroy(uintptr_t event) = 0;
  // Hands memory the allocator keeps (freed blocks, large ones included)
  // back to the driver (the pool's trim), so that other processes can have
  // it; returns the bytes handed back.
  virtual uint64_t Trim() = 0;
};

struct BlockCacheStats {
  int64_t cached_bytes = 0;  // in the cache now (not counted as allocated)
  int64_t cached_blocks = 0;
  int64_t hits = 0;         // requests served from the cache
  int64_t misses = 0;       // requests that went to the allocator
  int64_t oom_flushes = 0;  // times the cache was emptied and trimmed to retry an allocation
};

class BlockCache {
 public:
  static constexpr uint64_t kMinBlock = 512;
  static constexpr uint64_t kDefaultMaxBlock = 1 << 20;  // 1 MiB
  static constexpr uint64_t kDefaultLimit = 64 << 20;    // 64 MiB per device

  explicit BlockCache(BlockAllocator* allocator, uint64_t max_block = kDefaultMaxBlock,
                      uint64_t limit = kDefaultLimit);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;
  ~BlockCache();  // gives every cached block back

  // The block size a request of `bytes` gets (the request itself when it is
  // too large to cache).
  uint64_t BlockSize(uint64_t bytes) const;

  // A block of at least `bytes` usable on `stream` (from the cache, else from
  // the allocator, emptying the cache and retrying once if that fails).
  Status Acquire(uint64_t bytes, uintptr_t stream, void** ptr);

  // Gives back a block Acquire(`bytes`) returned, its last use ordered on
  // `stream`: cached, or freed when it is too large or the cache is full.
  void Release(void* ptr, uint64_t bytes, uintptr_t stream);

  // Frees every cached block and trims the allocator, always; returns the
  // bytes the trim handed back to the driver (the cached blocks' among them).
  int64_t EmptyCache();

  BlockCacheStats Stats() const;

 private:
  struct Block {
    void* ptr;
    uintptr_t stream;
    uintptr_t event;  // 0 until another stream asks for this block
  };
  // Index of the size class of a cacheable block size.
  int ClassOf(uint64_t block_size) const;
  // Takes a block of `klass` usable on `stream`, or returns nullptr. Locked.
  void* TakeLocked(int klass, uintptr_t stream);
  // Moves every block out of the cache. Locked.
  std::vector<Block> DrainLocked();
  // Frees drained blocks (outside the lock: the allocator may be slow).
  void FreeAll(const std::vector<Block>& blocks);

  BlockAllocator* allocator_;
  uint64_t max_block_;
  uint64_t limit_;
  mutable std::mutex mutex_;
  std::vector<std::vector<Block>> classes_;  // by size class, most recent last
  BlockCacheStats stats_;
};

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_BLOCK_CACHE_H_
