// src/core/pages.h: huge-page advice covers the whole 2 MiB pages inside a
// buffer, nothing outside it, and never touches the contents.
#include "../../src/core/pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using dlcore::AdviseHugePages;
using dlcore::FreePagesGoBackToHost;
using dlcore::HugePageAdviceWanted;
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

// A stand-in for /sys/bus/virtio/devices: one directory per device with its
// `device` and `features` files, as Linux writes them.
class FakeVirtio {
 public:
  explicit FakeVirtio(const std::string& name = "sys") {
    root_ = std::filesystem::temp_directory_path() /
            ("dlpack-virtio-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" + name);
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~FakeVirtio() { std::filesystem::remove_all(root_); }
  FakeVirtio(const FakeVirtio&) = delete;
  FakeVirtio& operator=(const FakeVirtio&) = delete;

  void Add(const std::string& name, const std::string& device, const std::string& features) {
    const std::filesystem::path dir = root_ / name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "device") << device << "\n";
    std::ofstream(dir / "features") << features << "\n";
  }
  std::string Path() const { return root_.string(); }

 private:
  std::filesystem::path root_;
};

// Bit 5 (VIRTIO_BALLOON_F_REPORTING) is the sixth character.
const char kReporting[] = "0110010100000000000000000000000010000000000000000000000000000000";
const char kNotReporting[] = "0110000100000000000000000000000010000000000000000000000000000000";

TEST(Pages, ABalloonThatReportsFreePagesIsFound) {
  FakeVirtio sys;
  sys.Add("virtio0", "0x0001", kReporting);  // a network device: bit 5 means something else
  EXPECT_FALSE(FreePagesGoBackToHost(sys.Path().c_str()));
  sys.Add("virtio1", "0x0005", kNotReporting);  // a balloon without reporting
  EXPECT_FALSE(FreePagesGoBackToHost(sys.Path().c_str()));
  sys.Add("virtio2", "0x0005", kReporting);
  EXPECT_TRUE(FreePagesGoBackToHost(sys.Path().c_str()));
}

TEST(Pages, MissingOrOddFilesMeanNoReporting) {
  EXPECT_FALSE(FreePagesGoBackToHost("/nonexistent/dlpack/virtio"));
  FakeVirtio sys;
  EXPECT_FALSE(FreePagesGoBackToHost(sys.Path().c_str()));  // no devices
  sys.Add("virtio0", "0x0005", "01100");                    // too short to hold bit 5
  sys.Add("virtio1", "0x00050", kReporting);                // another id
  sys.Add("virtio2", "", kReporting);
  std::filesystem::create_directories(sys.Path() + "/virtio3");  // no files at all
  EXPECT_FALSE(FreePagesGoBackToHost(sys.Path().c_str()));
}

TEST(Pages, TheSettingOverridesWhatTheMachineSays) {
  FakeVirtio reporting("reporting");
  reporting.Add("virtio0", "0x0005", kReporting);
  FakeVirtio plain("plain");
  plain.Add("virtio0", "0x0005", kNotReporting);
  for (const FakeVirtio* sys : {&reporting, &plain}) {
    EXPECT_TRUE(HugePageAdviceWanted("1", sys->Path().c_str()));
    EXPECT_FALSE(HugePageAdviceWanted("0", sys->Path().c_str()));
  }
  for (const char* automatic : {static_cast<const char*>(nullptr), "auto", "", "yes"}) {
    EXPECT_FALSE(HugePageAdviceWanted(automatic, reporting.Path().c_str()));
    EXPECT_TRUE(HugePageAdviceWanted(automatic, plain.Path().c_str()));
  }
  EXPECT_TRUE(HugePageAdviceWanted(nullptr, "/nonexistent/dlpack/virtio"));
}

}  // namespace
