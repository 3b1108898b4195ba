// Shared memory for tensors other processes map (docs/API.md "Sharing", kind
// 'shm'), and the sealed memfds and places that CUDA IPC tickets
// (ipc_ticket.h) are made of. The format and protocol are in
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

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "managed.h"
#include "result.h"

namespace dlnode {

// How opening or creating a segment failed: X(Constant, code) (result.h). One
// code per kind of mistake, for both kinds of descriptor (docs/errors.md rows
// S13, S15, S27): a field outside its grammar is a bad argument value
// (lib/sharing.js refuses it first; this is the backstop), a well-formed place
// holding nothing this library can use is unsupported.
#define DLNODE_SHM_FAILURES(X)                                                                   \
  X(kNone, nullptr)                                                                              \
  X(kGone, code::kDisposed) /* the place no longer holds that segment (its process ended or      \
                               closed it) */                                                     \
  X(kMalformed, code::kInvalidArgValue) /* a name or place outside python/FORMAT.md's grammar */ \
  X(kInvalid, code::kUnsupported)       /* a file that is not such a segment, too small */       \
  X(kDenied, code::kUnsupported)   /* the place cannot be opened (another user's process, or one \
                                      not inspectable) */                                        \
  X(kNoMemory, code::kOutOfMemory) /* no room for a new segment */                               \
  X(kSystem, code::kUnsupported)

DLNODE_DEFINE_FAILURES(ShmFailure, DLNODE_SHM_FAILURES)
using ShmResult = Result<ShmFailure>;

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

// What a place must hold: a data segment, or a CUDA IPC ticket (ipc_ticket.h),
// whose memfd name carries the suffix '.ticket' so neither opens as the other.
enum class PlaceKind { kSegment, kTicket };

// A failure result; `error` (an errno, 0 for none) is appended as text.
ShmResult ShmFail(ShmFailure failure, const std::string& what, int error = 0);

// The one message for a file or allocation smaller than its descriptor says:
// "<what> holds N bytes, fewer than the M the descriptor needs".
std::string HoldsFewerBytes(const std::string& what, uint64_t holds, uint64_t needs);

// A new sealed memfd of `kind` and `size` bytes (python/FORMAT.md
// "Creating"), named `*name` (a fresh random name); -1 with `*result` set.
int CreateMemfd(PlaceKind kind, uint64_t size, std::string* name, ShmResult* result);

// python/FORMAT.md "Opening": a new read-write descriptor of the memfd of
// `kind` named `place.name` that `place` holds, checked (name, kind, owner,
// seals, at least `min_size` bytes) on descriptors this process opened
// itself, never by path alone; its size in `*size`. -1 with `*result` set.
// `owner` is the user whose file it must be: callers pass geteuid(); tests
// pass another uid to reach the owner check, since only root can make a
// segment another user owns.
int OpenShmPlace(const ShmPlace& place, PlaceKind kind, uint64_t min_size, uid_t owner,
                 uint64_t* size, ShmResult* result);

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

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_SHM_H_
