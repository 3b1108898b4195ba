#include "scratch.h"

#include <cstdlib>
#include <string>

namespace dlnode {
namespace compute {

namespace {
constexpr uint64_t kAlign = 64;  // a cache line, and a whole AVX-512 register
}  // namespace

void* AllocateScratch(uint64_t bytes) {
  // aligned_alloc wants a multiple of the alignment.
  if (bytes > UINT64_MAX - kAlign || bytes > SIZE_MAX - kAlign) return nullptr;
  const uint64_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  return std::aligned_alloc(kAlign, static_cast<size_t>(rounded == 0 ? kAlign : rounded));
}

void FreeScratch(void* p) { std::free(p); }

ComputeResult OutOfMemory(const char* what, uint64_t bytes) {
  return Failed(ComputeFailure::kOutOfMemory, std::string("Expected ") + std::to_string(bytes) +
                                                  " bytes of scratch memory for " + what +
                                                  ", received none (out of memory)");
}

}  // namespace compute
}  // namespace dlnode
