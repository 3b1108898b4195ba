#include "pages.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

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

namespace {

// The first line of a small sysfs file, or "" when it cannot be read.
std::string FirstLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return line;
}

constexpr const char* kBalloonDevice = "0x0005";  // VIRTIO_ID_BALLOON
constexpr std::size_t kReportingBit = 5;          // VIRTIO_BALLOON_F_REPORTING

}  // namespace

bool FreePagesGoBackToHost(const char* virtio_devices) {
  std::error_code error;
  std::filesystem::directory_iterator it(virtio_devices, error);
  if (error) return false;
  for (const std::filesystem::directory_iterator end; it != end; it.increment(error)) {
    if (error) return false;
    const std::filesystem::path device = it->path();
    if (FirstLine(device / "device") != kBalloonDevice) continue;
    const std::string features = FirstLine(device / "features");
    if (features.size() > kReportingBit && features[kReportingBit] == '1') return true;
  }
  return false;
}

bool HugePageAdviceWanted(const char* setting, const char* virtio_devices) {
  if (setting != nullptr && std::strcmp(setting, "1") == 0) return true;
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return false;
  return !FreePagesGoBackToHost(virtio_devices);
}

}  // namespace dlcore
