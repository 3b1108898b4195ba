#include "pages.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace dlcore {

std::size_t AdviseHugePages(void* data, std::size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || size < kHugePageAdviceMin) return 0;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + kHugePageSize - 1) & ~(kHugePageSize - 1);
  const std::uintptr_t end = (start + size) & ~(kHugePageSize - 1);
  if (end <= first) return 0;
  const std::size_t length = end - first;
  return madvise(reinterpret_cast<void*>(first), length, MADV_HUGEPAGE) == 0 ? length : 0;
#else
  (void)data;
  (void)size;
  return 0;
#endif
}

}  // namespace dlcore
