#include "block_cache.h"

#include "stream_order.h"

namespace dlnode {
namespace cuda {

BlockCache::BlockCache(BlockAllocator* allocator, uint64_t max_block, uint64_t limit)
    : allocator_(allocator),
      max_block_(max_block < kMinBlock ? kMinBlock : max_block),
      limit_(limit) {
  classes_.resize(ClassOf(BlockSize(max_block_)) + 1);
}

BlockCache::~BlockCache() { EmptyCache(); }

uint64_t BlockCache::BlockSize(uint64_t bytes) const {
  if (bytes > max_block_) return bytes;
  uint64_t size = kMinBlock;
  while (size < bytes) size <<= 1;
  return size;
}

int BlockCache::ClassOf(uint64_t block_size) const {
  int klass = 0;
  for (uint64_t size = kMinBlock; size < block_size; size <<= 1) ++klass;
  return klass;
}

void* BlockCache::TakeLocked(int klass, uintptr_t stream) {
  std::vector<Block>& blocks = classes_[klass];
  // The most recently freed block of the same stream first (warm in cache).
  // The per-thread stream value names another stream on every thread: never
  // the same stream (its blocks carry an event from their free, Release).
  for (size_t i = blocks.size(); i-- > 0;) {
    if (blocks[i].stream != stream || stream == kPerThreadStream) continue;
    Block block = blocks[i];
    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
    if (block.event != 0) allocator_->Destroy(block.event);
    return block.ptr;
  }
  // Another stream's block: only once an event after its free has completed.
  // One miss records one event (on the oldest block without one): this runs
  // under the lock, and a size class may hold hundreds of blocks.
  bool recorded = false;
  for (size_t i = 0; i < blocks.size(); ++i) {
    Block& block = blocks[i];
    if (block.event == 0) {
      if (recorded) continue;
      recorded = true;
      uintptr_t event = 0;
      if (allocator_->Record(block.stream, &event).ok) block.event = event;
      continue;  // just recorded: not complete yet as far as this request knows
    }
    if (!allocator_->Done(block.event)) continue;
    allocator_->Destroy(block.event);
    void* ptr = block.ptr;
    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
    return ptr;
  }
  return nullptr;
}

Status BlockCache::Acquire(uint64_t bytes, uintptr_t stream, void** ptr) {
  const uint64_t size = BlockSize(bytes);
  if (size <= max_block_) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (void* cached = TakeLocked(ClassOf(size), stream)) {
      stats_.cached_bytes -= static_cast<int64_t>(size);
      stats_.cached_blocks -= 1;
      stats_.hits += 1;
      *ptr = cached;
      return {};
    }
    stats_.misses += 1;
  }
  Status s = allocator_->Allocate(size, stream, ptr);
  if (s.ok) return s;
  // Out of memory (or any failure): what the cache holds, or what the pool
  // keeps of freed blocks, may be what is missing. Give it all back and try
  // once more.
  EmptyCache();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.oom_flushes += 1;
  }
  return allocator_->Allocate(size, stream, ptr);
}

void BlockCache::Release(void* ptr, uint64_t bytes, uintptr_t stream) {
  const uint64_t size = BlockSize(bytes);
  if (size <= max_block_) {
    // A free on the per-thread stream is ordered on this thread's: the event
    // must be recorded here, on the freeing thread, not when another thread
    // (whose per-thread stream is another stream) asks for the block.
    uintptr_t event = 0;
    if (stream == kPerThreadStream && !allocator_->Record(stream, &event).ok) {
      allocator_->Free(ptr, stream);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (static_cast<uint64_t>(stats_.cached_bytes) + size <= limit_) {
        classes_[ClassOf(size)].push_back(Block{ptr, stream, event});
        stats_.cached_bytes += static_cast<int64_t>(size);
        stats_.cached_blocks += 1;
        return;
      }
    }
    if (event != 0) allocator_->Destroy(event);
  }
  allocator_->Free(ptr, stream);
}

std::vector<BlockCache::Block> BlockCache::DrainLocked() {
  std::vector<Block> all;
  for (std::vector<Block>& blocks : classes_) {
    all.insert(all.end(), blocks.begin(), blocks.end());
    blocks.clear();
  }
  stats_.cached_bytes = 0;
  stats_.cached_blocks = 0;
  return all;
}

void BlockCache::FreeAll(const std::vector<Block>& blocks) {
  for (const Block& block : blocks) {
    if (block.event != 0) allocator_->Destroy(block.event);
    allocator_->Free(block.ptr, block.stream);
  }
}

int64_t BlockCache::EmptyCache() {
  std::vector<Block> drained;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    drained = DrainLocked();
  }
  FreeAll(drained);
  return static_cast<int64_t>(allocator_->Trim());
}

BlockCacheStats BlockCache::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace cuda
}  // namespace dlnode
