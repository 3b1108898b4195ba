// Page-level advice for large host buffers the library allocates.
#ifndef DLPACK_NODE_CORE_PAGES_H_
#define DLPACK_NODE_CORE_PAGES_H_

#include <cstddef>

namespace dlcore {

// Buffers at least this large are worth backing with transparent huge pages.
constexpr std::size_t kHugePageAdviceMin = std::size_t{4} << 20;
constexpr std::size_t kHugePageSize = std::size_t{2} << 20;

// Asks the kernel to back the whole 2 MiB pages inside [data, data + size)
// with transparent huge pages (madvise MADV_HUGEPAGE), as NumPy does for its
// large arrays. Only advice: untouched pages then fault in 2 MiB at a time
// instead of 4 KiB, which is where a fresh 256 MiB buffer spends its time.
// Returns the bytes advised (0 below kHugePageAdviceMin, where the kernel
// refused, or off Linux); never changes the contents.
std::size_t AdviseHugePages(void* data, std::size_t size);

}  // namespace dlcore

#endif  // DLPACK_NODE_CORE_PAGES_H_
