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

// Where Linux lists the virtio devices of a virtual machine.
constexpr const char* kVirtioDevices = "/sys/bus/virtio/devices";

// Whether this machine is a virtual machine whose memory balloon reports free
// pages to its host: a device of `virtio_devices` (kVirtioDevices, or a test's
// copy) whose `device` reads 0x0005 (a memory balloon) and whose `features`,
// one '0' or '1' per feature bit from bit 0, has bit 5 set
// (VIRTIO_BALLOON_F_REPORTING; the bits the driver negotiated). The host then
// takes free guest memory back in blocks of 2 MiB and faults each block in
// again, whole, when the guest touches it; a huge page is always one such
// block. On the benchmark VM that made the advice bimodal per process, now
// faster and now slower than without it (bench/README.md "Compute", "huge
// pages follow the machine"). False when the directory is
// missing or unreadable (bare metal, other hypervisors, other systems).
bool FreePagesGoBackToHost(const char* virtio_devices);

// Whether the library advises its large buffers as huge pages, given the
// environment variable DLPACK_HUGE_PAGES (`setting`, nullptr when unset):
// "1" yes, "0" no, anything else (unset, "auto") yes unless
// FreePagesGoBackToHost(virtio_devices).
bool HugePageAdviceWanted(const char* setting, const char* virtio_devices);

}  // namespace dlcore

#endif  // DLPACK_NODE_CORE_PAGES_H_
