#include "scratch.h"

#include <cstdlib>

#if defined(DLNODE_SCRATCH_FAULTS)
#include <atomic>
#endif

namespace dlnode {

#if defined(DLNODE_SCRATCH_FAULTS)
namespace {
std::atomic<int64_t> g_fail_after{0};  // 0: off
std::atomic<int64_t> g_live{0};

// Whether this allocation is the one a test asked to fail.
bool Injected() {
  int64_t n = g_fail_after.load(std::memory_order_relaxed);
  while (n > 0) {
    if (g_fail_after.compare_exchange_weak(n, n - 1, std::memory_order_relaxed)) return n == 1;
  }
  return false;
}
}  // namespace

void FailScratchAfter(int64_t n) { g_fail_after.store(n < 0 ? 0 : n, std::memory_order_relaxed); }

int64_t ScratchBlocksLive() { return g_live.load(std::memory_order_relaxed); }
#endif

void* AllocateScratch(uint64_t count, uint64_t size) {
  if (count == 0 || size == 0) return nullptr;  // nothing to hold: not an allocation
  if (count > UINT64_MAX / size || count * size > PTRDIFF_MAX) throw std::bad_alloc();
#if defined(DLNODE_SCRATCH_FAULTS)
  if (Injected()) throw std::bad_alloc();
#endif
  void* p = std::malloc(static_cast<size_t>(count * size));
  if (p == nullptr) throw std::bad_alloc();
#if defined(DLNODE_SCRATCH_FAULTS)
  g_live.fetch_add(1, std::memory_order_relaxed);
#endif
  return p;
}

void FreeScratch(void* p) noexcept {
  if (p == nullptr) return;
#if defined(DLNODE_SCRATCH_FAULTS)
  g_live.fetch_sub(1, std::memory_order_relaxed);
#endif
  std::free(p);
}

}  // namespace dlnode
