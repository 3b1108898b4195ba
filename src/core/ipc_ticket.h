// The tickets of CUDA IPC exports (cuda_ipc.h): which processes map an
// exported allocation, so that its exporter frees it only once none does.
// Made of a sealed memfd and opened through its place as a segment is
// (shm.h), but never one: python/FORMAT.md "Tickets".
#ifndef DLPACK_NODE_CORE_IPC_TICKET_H_
#define DLPACK_NODE_CORE_IPC_TICKET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "shm.h"

namespace dlnode {

constexpr uint32_t kTicketSlots = 128;
constexpr size_t kTicketHandleBytes = 64;  // a cudaIpcMemHandle_t (cuda_ipc.h)

// A CUDA IPC export's ticket: a one-page sealed memfd whose slots hold the
// pid of every process that maps the allocation, and the allocation's handle
// (a handle paired with another allocation's ticket is refused). Its memfd
// name marks it a ticket: it never opens as a segment, nor a segment as a
// ticket. Its lock is flock on the ticket itself, never taken under a
// process-wide mutex except without waiting (RetireIfAlone).
class IpcTicket {
 public:
  // A new ticket of the allocation `handle` (kTicketHandleBytes) names,
  // holding this process's slot.
  static std::unique_ptr<IpcTicket> Create(const unsigned char* handle, ShmResult* result);
  // Attaches to the ticket at `place`: takes a slot for this process, unless
  // the ticket is retired (kGone) or belongs to another allocation than
  // `handle` (kInvalid). May wait for another process's lock.
  static std::unique_ptr<IpcTicket> Open(const ShmPlace& place, const unsigned char* handle,
                                         ShmResult* result);
  // Gives up this process's slot (if still held) and closes.
  ~IpcTicket();
  IpcTicket(const IpcTicket&) = delete;
  IpcTicket& operator=(const IpcTicket&) = delete;

  const std::string& name() const { return name_; }
  int fd() const { return fd_; }

  // Ends the ticket's life if no other live process holds a slot: marks it
  // retired (later attaches fail) and gives up this process's slot. Returns
  // false, changing nothing, while another process is attached or holds the
  // lock right now (it never waits); the caller asks again later.
  bool RetireIfAlone();

 private:
  IpcTicket(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}

  std::string name_;
  int fd_;
  bool attached_ = true;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_IPC_TICKET_H_
