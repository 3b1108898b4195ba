// src/core/pages.h: huge-page advice covers the whole 2 MiB pages inside a
// buffer, nothing outside it, and never touches the contents.
#include "../../src/core/pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <filesystem>

namespace {

using dlcore::AdviseHugePages;
using dlcore::kHugePageSize;

bool ThpCompiledIn() {
  return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
}

TEST(Pages, SmallBuffersAreLeftAlone) {
  static char small[1 << 20];
  EXPECT_EQ(AdviseHugePages(small, sizeof small), 0u);
  EXPECT_EQ(AdviseHugePages(nullptr, std::size_t{64} << 20), 0u);
}

TEST(Pages, AdvisesTheWholeHugePagesInsideOnly) {
  if (!ThpCompiledIn()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  const std::size_t size = std::size_t{16} << 20;
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(map);
  bytes[size - 1] = 7;
  // A buffer starting 1 byte past a page boundary and ending 1 byte short of one.
  unsigned char* data = bytes + 1;
  const std::size_t length = size - 2;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + kHugePageSize - 1) / kHugePageSize * kHugePageSize;
  const std::uintptr_t end = (start + length) / kHugePageSize * kHugePageSize;
  EXPECT_EQ(AdviseHugePages(data, length), end - first);
  EXPECT_EQ(bytes[size - 1], 7);  // contents unchanged
  EXPECT_EQ(bytes[0], 0);
  munmap(map, size);
}

}  // namespace
