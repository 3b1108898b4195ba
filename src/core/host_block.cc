#include "host_block.h"

#include <cstdlib>
#include <new>

#include "pages.h"
#include "stats.h"

namespace dlnode {

HostBlock::HostBlock(void* base, uint64_t length) : NativeMemory(base, length) {
  stats::host_blocks_live.fetch_add(1, std::memory_order_relaxed);
  stats::host_blocks_made.fetch_add(1, std::memory_order_relaxed);
}

Ref<HostBlock> HostBlock::Allocate(uint64_t length, bool zeroed, bool advise_huge_pages) {
  if (length == 0 || length > PTRDIFF_MAX) return Ref<HostBlock>();
  const auto size = static_cast<size_t>(length);
  void* base = zeroed ? std::calloc(1, size) : std::malloc(size);
  if (base == nullptr) return Ref<HostBlock>();
  if (advise_huge_pages && size >= dlcore::kHugePageAdviceMin) {
    dlcore::AdviseHugePages(base, size);
    stats::huge_page_requests.fetch_add(1, std::memory_order_relaxed);
  }
  auto* block = new (std::nothrow) HostBlock(base, length);
  if (block == nullptr) {
    std::free(base);
    return Ref<HostBlock>();
  }
  return Ref<HostBlock>::adopt(block);
}

void HostBlock::Destroy() noexcept {
  std::free(base());
  stats::host_blocks_live.fetch_sub(1, std::memory_order_relaxed);
  stats::host_blocks_freed.fetch_add(1, std::memory_order_relaxed);
  delete this;
}

}  // namespace dlnode
