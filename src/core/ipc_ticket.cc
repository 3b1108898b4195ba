#include "ipc_ticket.h"

#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace dlnode {
namespace {

// python/FORMAT.md "Tickets": the one page of a ticket.
constexpr char kTicketMagic[8] = {'D', 'L', 'P', 'K', 'T', 'K', 'T', 3};
constexpr uint64_t kTicketSize = 4096;
struct TicketHeader {
  char magic[8];
  uint32_t slot_count;
  uint32_t retired;  // 1 once the exporter retired it: nobody attaches any more
  int32_t pids[kTicketSlots];
  unsigned char handle[kTicketHandleBytes];  // the allocation the ticket belongs to
};
static_assert(offsetof(TicketHeader, pids) == 16,
              "python/FORMAT.md: ticket slots start at byte 16");
static_assert(offsetof(TicketHeader, handle) == 16 + 4 * kTicketSlots,
              "python/FORMAT.md: the ticket's handle follows its slots");
static_assert(sizeof(TicketHeader) <= kTicketSize, "the header fits its page");

bool Alive(int32_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

// Holds flock on a ticket for a scope; `locked()` is false when a
// non-blocking attempt found it held.
class TicketLock {
 public:
  TicketLock(int fd, bool wait) : fd_(fd) {
    int r;
    while ((r = flock(fd_, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
    }
    locked_ = r == 0;
  }
  ~TicketLock() {
    if (locked_) flock(fd_, LOCK_UN);
  }
  TicketLock(const TicketLock&) = delete;
  TicketLock& operator=(const TicketLock&) = delete;
  bool locked() const { return locked_; }

 private:
  int fd_;
  bool locked_ = false;
};

bool ReadTicket(int fd, TicketHeader* h) {
  return pread(fd, h, sizeof *h, 0) == static_cast<ssize_t>(sizeof *h) &&
         std::memcmp(h->magic, kTicketMagic, sizeof kTicketMagic) == 0 &&
         h->slot_count == kTicketSlots;
}

bool WriteTicket(int fd, const TicketHeader& h) {
  return pwrite(fd, &h, sizeof h, 0) == static_cast<ssize_t>(sizeof h);
}

// Clears the slots of dead processes; returns how many other live processes hold one.
int PruneOthers(TicketHeader* h) {
  const auto self = static_cast<int32_t>(getpid());
  int others = 0;
  for (int32_t& pid : h->pids) {
    if (pid == 0 || pid == self) continue;
    if (Alive(pid)) {
      ++others;
    } else {
      pid = 0;
    }
  }
  return others;
}

bool TakeSlot(TicketHeader* h) {
  for (int32_t& pid : h->pids) {
    if (pid == 0) {
      pid = static_cast<int32_t>(getpid());
      return true;
    }
  }
  return false;
}

void DropSlot(TicketHeader* h) {
  for (int32_t& pid : h->pids) {
    if (pid == static_cast<int32_t>(getpid())) {
      pid = 0;
      return;
    }
  }
}

}  // namespace

std::unique_ptr<IpcTicket> IpcTicket::Create(const unsigned char* handle, ShmResult* result) {
  std::string name;
  const int fd = CreateMemfd(PlaceKind::kTicket, kTicketSize, &name, result);
  if (fd < 0) return nullptr;
  std::unique_ptr<IpcTicket> ticket(new IpcTicket(name, fd));
  TicketHeader h{};
  std::memcpy(h.magic, kTicketMagic, sizeof kTicketMagic);
  h.slot_count = kTicketSlots;
  h.pids[0] = static_cast<int32_t>(getpid());
  std::memcpy(h.handle, handle, kTicketHandleBytes);
  if (!WriteTicket(fd, h)) {
    const int error = errno;
    ticket->attached_ = false;
    *result = ShmFail(ShmFailure::kSystem, "Could not write the ticket", error);
    return nullptr;
  }
  return ticket;
}

std::unique_ptr<IpcTicket> IpcTicket::Open(const ShmPlace& place, const unsigned char* handle,
                                           ShmResult* result) {
  uint64_t size = 0;
  const int fd = OpenShmPlace(place, PlaceKind::kTicket, kTicketSize, geteuid(), &size, result);
  if (fd < 0) return nullptr;
  std::unique_ptr<IpcTicket> ticket(new IpcTicket(place.name, fd));
  ticket->attached_ = false;
  TicketLock lock(fd, true);
  TicketHeader h;
  if (!ReadTicket(fd, &h)) {
    *result = ShmFail(ShmFailure::kInvalid, "Segment '" + place.name + "' is not a ticket");
    return nullptr;
  }
  if (h.retired != 0) {
    *result = ShmFail(ShmFailure::kGone, "Ticket '" + place.name + "' was retired by its exporter");
    return nullptr;
  }
  if (std::memcmp(h.handle, handle, kTicketHandleBytes) != 0) {
    *result = ShmFail(ShmFailure::kInvalid, "Ticket '" + place.name +
                                                "' belongs to another CUDA allocation than the "
                                                "descriptor's handle names");
    return nullptr;
  }
  PruneOthers(&h);
  if (!TakeSlot(&h)) {
    *result =
        ShmFail(ShmFailure::kSystem, "Ticket '" + place.name + "' has no free slot (128 in use)");
    return nullptr;
  }
  if (!WriteTicket(fd, h)) {
    const int error = errno;
    *result = ShmFail(ShmFailure::kSystem, "Could not write ticket '" + place.name + "'", error);
    return nullptr;
  }
  ticket->attached_ = true;
  return ticket;
}

IpcTicket::~IpcTicket() {
  if (attached_) {
    TicketLock lock(fd_, true);
    TicketHeader h;
    if (ReadTicket(fd_, &h)) {
      DropSlot(&h);
      WriteTicket(fd_, h);
    }
  }
  close(fd_);
}

bool IpcTicket::RetireIfAlone() {
  if (!attached_) return true;  // retired already
  TicketLock lock(fd_, false);
  if (!lock.locked()) return false;  // another process is attaching or detaching: later
  TicketHeader h;
  if (!ReadTicket(fd_, &h)) return false;
  if (PruneOthers(&h) != 0) {
    WriteTicket(fd_, h);
    return false;
  }
  DropSlot(&h);
  h.retired = 1;
  if (!WriteTicket(fd_, h)) return false;
  attached_ = false;
  return true;
}

}  // namespace dlnode
