// The block cache (block_cache.h) against a fake allocator that hands out
// addresses, records every call, can be told to run out of memory, and
// completes events only when told: reuse, size classes, the bound, the
// cross-stream rule, emptying, the out-of-memory retry and the stats. It
// keeps freed bytes until a trim, as the device's pool does. No device is
// needed.
#include "block_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "stream_order.h"

namespace {

using dlnode::cuda::BlockAllocator;
using dlnode::cuda::BlockCache;
using dlnode::cuda::BlockCacheStats;
using dlnode::cuda::kLegacyStream;
using dlnode::cuda::kPerThreadStream;
using dlnode::cuda::Status;

constexpr uintptr_t kStreamA = 0x1000;

class FakeAllocator final : public BlockAllocator {
 public:
  Status Allocate(uint64_t bytes, uintptr_t stream, void** ptr) override {
    ++allocations;
    if (live_bytes + kept_bytes + bytes > capacity) {
      Status s;
      s.ok = false;
      s.name = "cudaErrorMemoryAllocation";
      return s;
    }
    *ptr = reinterpret_cast<void*>(next_);
    next_ += 1 << 24;  // far apart: distinct blocks
    sizes[*ptr] = bytes;
    (void)stream;
    live_bytes += bytes;
    return {};
  }
  void Free(void* ptr, uintptr_t stream) override {
    ASSERT_EQ(sizes.count(ptr), 1u) << "freed twice or never allocated";
    freed_on[ptr] = stream;
    live_bytes -= sizes[ptr];
    kept_bytes += sizes[ptr];
    sizes.erase(ptr);
    ++frees;
  }
  Status Record(uintptr_t stream, uintptr_t* event) override {
    *event = next_event_++;
    recorded[*event] = stream;
    return {};
  }
  bool Done(uintptr_t event) override {
    EXPECT_EQ(recorded.count(event), 1u) << "querying a destroyed event";
    return completed.count(event) != 0;
  }
  void Destroy(uintptr_t event) override {
    EXPECT_EQ(recorded.erase(event), 1u) << "event destroyed twice";
  }
  uint64_t Trim() override {
    ++trims;
    const uint64_t returned = kept_bytes;
    kept_bytes = 0;
    return returned;
  }

  // Like the device's pool with its release threshold at the maximum: freed
  // bytes stay reserved (kept_bytes, none reusable here) until a trim.
  uint64_t capacity = UINT64_MAX;
  uint64_t live_bytes = 0;
  uint64_t kept_bytes = 0;
  int allocations = 0;
  int frees = 0;
  int trims = 0;
  std::map<void*, uint64_t> sizes;
  std::map<void*, uintptr_t> freed_on;
  std::map<uintptr_t, uintptr_t> recorded;  // live events -> stream
  std::set<uintptr_t> completed;

 private:
  uintptr_t next_ = 0x10000000;
  uintptr_t next_event_ = 1;
};

void* Take(BlockCache& cache, uint64_t bytes, uintptr_t stream = kLegacyStream) {
  void* ptr = nullptr;
  const Status s = cache.Acquire(bytes, stream, &ptr);
  EXPECT_TRUE(s.ok) << s.name;
  return ptr;
}

TEST(BlockCache, SizesRoundUpToPowersOfTwoFrom512UpToTheLargestCachedBlock) {
  FakeAllocator fake;
  BlockCache cache(&fake, 1 << 20);
  EXPECT_EQ(cache.BlockSize(1), 512u);
  EXPECT_EQ(cache.BlockSize(512), 512u);
  EXPECT_EQ(cache.BlockSize(513), 1024u);
  EXPECT_EQ(cache.BlockSize(1000), 1024u);
  EXPECT_EQ(cache.BlockSize(1 << 20), 1u << 20);
  EXPECT_EQ(cache.BlockSize((1 << 20) + 1), (1u << 20) + 1)
      << "too large to cache: the request itself";
}

TEST(BlockCache, AFreedBlockIsReusedOnItsStreamWithoutTheAllocator) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  void* a = Take(cache, 1024);
  EXPECT_EQ(fake.sizes[a], 1024u);
  cache.Release(a, 1024, kLegacyStream);
  EXPECT_EQ(fake.frees, 0) << "cached, not freed";
  void* b = Take(cache, 1000);  // same class
  EXPECT_EQ(b, a);
  EXPECT_EQ(fake.allocations, 1);
  const BlockCacheStats s = cache.Stats();
  EXPECT_EQ(s.hits, 1);
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(s.cached_bytes, 0);
  cache.Release(b, 1000, kLegacyStream);
}

TEST(BlockCache, ClassesDoNotMix) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  void* small = Take(cache, 256);
  cache.Release(small, 256, kLegacyStream);
  void* big = Take(cache, 4096);
  EXPECT_NE(big, small) << "a 512-byte block cannot serve 4096 bytes";
  EXPECT_EQ(fake.allocations, 2);
  void* again = Take(cache, 300);
  EXPECT_EQ(again, small);
  cache.Release(big, 4096, kLegacyStream);
  cache.Release(again, 300, kLegacyStream);
  EXPECT_EQ(cache.Stats().cached_blocks, 2);
  EXPECT_EQ(cache.Stats().cached_bytes, 512 + 4096);
}

TEST(BlockCache, LargeBlocksAreNeverCached) {
  FakeAllocator fake;
  BlockCache cache(&fake, 4096);
  void* big = Take(cache, 5000);
  EXPECT_EQ(fake.sizes[big], 5000u) << "not rounded";
  cache.Release(big, 5000, kLegacyStream);
  EXPECT_EQ(fake.frees, 1);
  EXPECT_EQ(cache.Stats().cached_bytes, 0);
  EXPECT_EQ(cache.Stats().misses, 0) << "not a cache request at all";
}

TEST(BlockCache, TheCacheHoldsAtMostItsLimitAndFreesTheRest) {
  FakeAllocator fake;
  BlockCache cache(&fake, 1 << 20, 2048);
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(Take(cache, 512));
  for (void* b : blocks) cache.Release(b, 512, kLegacyStream);
  EXPECT_EQ(cache.Stats().cached_bytes, 2048);
  EXPECT_EQ(cache.Stats().cached_blocks, 4);
  EXPECT_EQ(fake.frees, 1);
  EXPECT_EQ(fake.live_bytes, 2048u);
}

TEST(BlockCache, AnotherStreamWaitsForAnEventAfterTheFree) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  void* a = Take(cache, 512, kLegacyStream);
  cache.Release(a, 512, kLegacyStream);
  // First look from stream A: an event is recorded on the freeing stream,
  // and A gets fresh memory meanwhile.
  void* b = Take(cache, 512, kStreamA);
  EXPECT_NE(b, a);
  ASSERT_EQ(fake.recorded.size(), 1u);
  const uintptr_t event = fake.recorded.begin()->first;
  EXPECT_EQ(fake.recorded[event], kLegacyStream);
  // Not complete yet: still not A's.
  void* c = Take(cache, 512, kStreamA);
  EXPECT_NE(c, a);
  EXPECT_EQ(fake.recorded.size(), 1u) << "one event per block";
  // Complete: A may take it, and the event is destroyed.
  fake.completed.insert(event);
  void* d = Take(cache, 512, kStreamA);
  EXPECT_EQ(d, a);
  EXPECT_TRUE(fake.recorded.empty());
  cache.Release(b, 512, kStreamA);
  cache.Release(c, 512, kStreamA);
  // Blocks last used on A go back to A at once.
  EXPECT_EQ(Take(cache, 512, kStreamA), c);
  cache.Release(c, 512, kStreamA);
  cache.Release(d, 512, kStreamA);
}

// Stream value 2 is each thread's own per-thread stream: a block freed on
// one thread's must not go to another thread's without an event, and the
// event must be recorded at the free, on the freeing thread.
TEST(BlockCache, PerThreadStreamBlocksWaitForAnEventRecordedAtTheFree) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  void* a = Take(cache, 512, kPerThreadStream);
  cache.Release(a, 512, kPerThreadStream);
  ASSERT_EQ(fake.recorded.size(), 1u) << "recorded by Release";
  const uintptr_t event = fake.recorded.begin()->first;
  EXPECT_EQ(fake.recorded[event], kPerThreadStream);
  void* b = Take(cache, 512, kPerThreadStream);  // maybe another thread
  EXPECT_NE(b, a);
  EXPECT_EQ(fake.recorded.size(), 1u);
  fake.completed.insert(event);
  void* c = Take(cache, 512, kPerThreadStream);
  EXPECT_EQ(c, a);
  EXPECT_TRUE(fake.recorded.empty());
  cache.Release(b, 512, kLegacyStream);
  cache.Release(c, 512, kLegacyStream);
}

// A miss from another stream records one event, not one per cached block of
// the class (all under the cache's lock).
TEST(BlockCache, AMissRecordsAtMostOneEvent) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  std::vector<void*> blocks;
  for (int i = 0; i < 6; ++i) blocks.push_back(Take(cache, 512));
  for (void* b : blocks) cache.Release(b, 512, kLegacyStream);
  void* fresh = Take(cache, 512, kStreamA);
  EXPECT_EQ(fake.recorded.size(), 1u);
  void* again = Take(cache, 512, kStreamA);
  EXPECT_EQ(fake.recorded.size(), 2u);
  for (const auto& e : fake.recorded) fake.completed.insert(e.first);
  EXPECT_EQ(Take(cache, 512, kStreamA), blocks[0]) << "the oldest block got the first event";
  cache.Release(fresh, 512, kStreamA);
  cache.Release(again, 512, kStreamA);
}

TEST(BlockCache, TheSameStreamTakesItsBlockEvenWithAnEventPending) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  void* a = Take(cache, 512);
  cache.Release(a, 512, kLegacyStream);
  void* other = Take(cache, 512, kStreamA);  // records an event on a
  EXPECT_EQ(fake.recorded.size(), 1u);
  EXPECT_EQ(Take(cache, 512, kLegacyStream), a);
  EXPECT_TRUE(fake.recorded.empty()) << "the pending event is destroyed with the reuse";
  cache.Release(a, 512, kLegacyStream);
  cache.Release(other, 512, kStreamA);
}

TEST(BlockCache, EmptyCacheFreesEveryBlockOnItsStreamAndTrims) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  void* a = Take(cache, 512);
  void* b = Take(cache, 2048, kStreamA);
  cache.Release(a, 512, kLegacyStream);
  cache.Release(b, 2048, kStreamA);
  void* fresh = Take(cache, 512, kStreamA);  // leaves an event pending on a
  EXPECT_EQ(cache.EmptyCache(), 512 + 2048) << "the blocks' bytes, handed back by the trim";
  EXPECT_EQ(fake.frees, 2);
  EXPECT_EQ(fake.freed_on[a], kLegacyStream);
  EXPECT_EQ(fake.freed_on[b], kStreamA);
  EXPECT_EQ(fake.trims, 1);
  EXPECT_TRUE(fake.recorded.empty()) << "pending events are destroyed with their blocks";
  EXPECT_EQ(cache.Stats().cached_bytes, 0);
  EXPECT_EQ(cache.Stats().cached_blocks, 0);
  EXPECT_EQ(cache.EmptyCache(), 0);
  EXPECT_EQ(fake.trims, 2) << "an empty cache trims too";
  cache.Release(fresh, 512, kStreamA);
}

// A block too large for the cache is freed straight to the pool, which keeps
// its bytes: emptyCache() must trim anyway (it returned 0 and left 8 GiB
// reserved after an 8 GiB tensor was disposed).
TEST(BlockCache, EmptyCacheTrimsWhenOnlyLargeBlocksWereFreed) {
  FakeAllocator fake;
  BlockCache cache(&fake);
  const uint64_t large = BlockCache::kDefaultMaxBlock * 8;
  void* a = Take(cache, large);
  cache.Release(a, large, kLegacyStream);
  EXPECT_EQ(fake.frees, 1) << "not cached";
  EXPECT_EQ(cache.Stats().cached_bytes, 0);
  EXPECT_EQ(fake.kept_bytes, large);
  EXPECT_EQ(cache.EmptyCache(), static_cast<int64_t>(large));
  EXPECT_EQ(fake.trims, 1);
  EXPECT_EQ(fake.kept_bytes, 0u);
}

// The out-of-memory retry trims the pool too when the cache is empty: the
// bytes the pool keeps of freed large blocks are what the request needs.
TEST(BlockCache, OutOfMemoryTrimsThePoolWhenNothingIsCached) {
  FakeAllocator fake;
  const uint64_t large = BlockCache::kDefaultMaxBlock * 4;
  fake.capacity = large;
  BlockCache cache(&fake);
  cache.Release(Take(cache, large), large, kLegacyStream);
  void* again = Take(cache, large);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(fake.trims, 1);
  EXPECT_EQ(fake.allocations, 3) << "one failure, one retry";
  EXPECT_EQ(cache.Stats().oom_flushes, 1);
  cache.Release(again, large, kLegacyStream);
}

TEST(BlockCache, OutOfMemoryEmptiesTheCacheAndRetriesOnce) {
  FakeAllocator fake;
  fake.capacity = 4096;
  BlockCache cache(&fake);
  void* a = Take(cache, 2048);
  void* b = Take(cache, 2048);
  cache.Release(a, 2048, kLegacyStream);
  cache.Release(b, 2048, kLegacyStream);
  // 4096 does not fit beside the two cached 2048-byte blocks: both are
  // freed, the pool trimmed, and the retry succeeds.
  void* big = Take(cache, 4096);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(fake.frees, 2);
  EXPECT_EQ(fake.trims, 1);
  EXPECT_EQ(cache.Stats().oom_flushes, 1);
  EXPECT_EQ(cache.Stats().cached_bytes, 0);
  // Out of memory with nothing to give back: the failure is the caller's,
  // after one trim and one retry.
  void* none = nullptr;
  const int before = fake.allocations;
  const Status s = cache.Acquire(512, kLegacyStream, &none);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.name, "cudaErrorMemoryAllocation");
  EXPECT_EQ(fake.allocations, before + 2) << "tried, trimmed, tried once more";
  EXPECT_EQ(fake.trims, 2);
  cache.Release(big, 4096, kLegacyStream);
}

TEST(BlockCache, TheDestructorGivesEveryBlockBack) {
  FakeAllocator fake;
  {
    BlockCache cache(&fake);
    cache.Release(Take(cache, 512), 512, kLegacyStream);
    cache.Release(Take(cache, 8192), 8192, kLegacyStream);
  }
  EXPECT_EQ(fake.live_bytes, 0u);
  EXPECT_EQ(fake.frees, 2);
}

}  // namespace
