// Shared memory for tensors other processes map (docs/API.md "Sharing", kind
// 'shm') and the tickets of CUDA IPC exports. The format and protocol are in
// python/FORMAT.md, which the Python module implements too.
//
// A segment is a sealed memfd (memfd_create with MFD_ALLOW_SEALING, then
// F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL): no name in /dev/shm, so nothing
// a neighbour can plant or a sweep must reclaim; the kernel frees it with its
// last descriptor or mapping, however its holders end; and no holder can
// shrink it under another's mapping (SIGBUS). Each holder keeps its own
// descriptor open; another process of the same user reopens the file through
// /proc/<pid>/fd/<fd> of any holder, after checking the link's name (a
// random token), the file's identity, owner and seals. This is PyTorch's
// `file_descriptor` strategy, reached by path instead of SCM_RIGHTS so that
// the descriptor stays JSON.
#ifndef DLPACK_NODE_CORE_SHM_H_
#define DLPACK_NODE_CORE_SHM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "managed.h"

namespace dlnode {

constexpr uint32_t kShmSlots = 128;
constexpr size_t kTicketHandleBytes = 64;  // a cudaIpcMemHandle_t (cuda_ipc.h)

enum class ShmFailure {
  kNone,
  kGone,       // the place no longer holds that segment (its process ended or closed it)
  kMalformed,  // a name or place outside python/FORMAT.md's grammar (lib/sharing.js refuses it
               // first)
  kInvalid,    // a file that is not such a segment, too small
  kDenied,     // the place cannot be opened (another user's process, or one not inspectable)
  kNoMemory,   // no room for a new segment
  kSystem,
};

struct ShmResult {
  ShmFailure failure = ShmFailure::kNone;
  std::string message;
  bool ok() const { return failure == ShmFailure::kNone; }
};

// Where a descriptor says a segment is open: its name ('dlpack-' and 32
// lowercase hex digits, the memfd's name) and a process and descriptor
// number that hold it.
struct ShmPlace {
  std::string name;
  int64_t pid = 0;
  int64_t fd = -1;
};

// The name grammar (python/FORMAT.md "Names"): 'dlpack-' + 32 lowercase hex digits.
bool ValidShmName(const std::string& name);

// This process's hold on a segment (one per process: repeated opens and
// other threads share it): a descriptor and a mapping of its data. The last
// Release() unmaps and closes; the kernel frees the memory once no process
// holds it.
class ShmSegment final : public NativeMemory {
 public:
  // A new zeroed, sealed segment of `data_size` bytes.
  static Ref<ShmSegment> Create(uint64_t data_size, ShmResult* result);
  // A reference to this process's hold on the segment `place.name`, opening
  // it through `place` if this process holds none; its data must hold at
  // least `min_data_size` bytes.
  static Ref<ShmSegment> Open(const ShmPlace& place, uint64_t min_data_size, ShmResult* result);

  const std::string& name() const { return name_; }
  int fd() const { return fd_; }

 private:
  ShmSegment(std::string name, int fd, void* map, uint64_t map_size, uint64_t data_size);
  void Destroy() noexcept override;

  std::string name_;
  int fd_;
  void* map_;
  uint64_t map_size_;
};

// A CUDA IPC export's ticket (cuda_ipc.h): a one-page sealed memfd whose
// slots hold the pid of every process that maps the allocation, and the
// allocation's handle (a handle paired with another allocation's ticket is
// refused). Its memfd name marks it a ticket: it never opens as a segment,
// nor a segment as a ticket. Its lock is
// flock on the ticket itself, never taken under a process-wide mutex except
// without waiting (RetireIfAlone).
class ShmTicket {
 public:
  // A new ticket of the allocation `handle` (kTicketHandleBytes) names,
  // holding this process's slot.
  static std::unique_ptr<ShmTicket> Create(const unsigned char* handle, ShmResult* result);
  // Attaches to the ticket at `place`: takes a slot for this process, unless
  // the ticket is retired (kGone) or belongs to another allocation than
  // `handle` (kInvalid). May wait for another process's lock.
  static std::unique_ptr<ShmTicket> Open(const ShmPlace& place, const unsigned char* handle,
                                         ShmResult* result);
  // Gives up this process's slot (if still held) and closes.
  ~ShmTicket();
  ShmTicket(const ShmTicket&) = delete;
  ShmTicket& operator=(const ShmTicket&) = delete;

  const std::string& name() const { return name_; }
  int fd() const { return fd_; }

  // Ends the ticket's life if no other live process holds a slot: marks it
  // retired (later attaches fail) and gives up this process's slot. Returns
  // false, changing nothing, while another process is attached or holds the
  // lock right now (it never waits); the caller asks again later.
  bool RetireIfAlone();

 private:
  ShmTicket(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}

  std::string name_;
  int fd_;
  bool attached_ = true;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_SHM_H_
