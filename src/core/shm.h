// POSIX shared-memory segments for tensors other processes map (API.md
// "Sharing", kind 'shm'). The format and the attach/detach protocol are in
// python/FORMAT.md, which the Python module implements too.
#ifndef DLPACK_NODE_CORE_SHM_H_
#define DLPACK_NODE_CORE_SHM_H_

#include <cstdint>
#include <string>

#include "managed.h"

namespace dlnode {

constexpr uint64_t kShmHeaderSize = 4096;
constexpr uint32_t kShmSlots = 128;

enum class ShmFailure { kNone, kGone, kInvalid, kNoMemory, kSystem };

struct ShmResult {
  ShmFailure failure = ShmFailure::kNone;
  std::string message;
  bool ok() const { return failure == ShmFailure::kNone; }
};

// This process's attachment to a segment (one per process: repeated opens and
// other threads share it). Its data region is the HostMemory; the last
// Release() detaches, and unlinks when no process is attached any more.
class ShmSegment final : public HostMemory {
 public:
  // A new zeroed segment of `data_size` bytes, attached once.
  static ShmSegment* Create(uint64_t data_size, ShmResult* result);
  // A reference to this process's attachment to the segment `name` (no
  // leading slash), attaching if there is none; its data must hold at least
  // `min_data_size` bytes.
  static ShmSegment* Open(const std::string& name, uint64_t min_data_size, ShmResult* result);

  const std::string& name() const { return name_; }

  // Ends the segment's life if no other process is attached: gives up this
  // process's slot and unlinks the name, so that no process can attach any
  // more; returns false, changing nothing, while another process is
  // attached. The mapping stays until the last Release(). Used by CUDA IPC
  // exports, whose ticket segment counts the importing processes.
  bool RetireIfAlone();

 private:
  ShmSegment(std::string name, void* map, uint64_t map_size, uint64_t data_size);
  void Destroy() noexcept override;

  std::string name_;
  void* map_;
  uint64_t map_size_;
};

// Removes segments whose every attached process has died. Best effort;
// returns how many it removed.
int SweepShmSegments();

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_SHM_H_
