// CUDA device memory shared with other processes (docs/API.md "Sharing", kind
// 'cuda-ipc'), through the CUDA runtime's legacy IPC: a 64-byte handle names
// a whole cudaMalloc allocation, and another process maps it with
// cudaIpcOpenMemHandle. Stream-ordered pool memory cannot be exported that
// way, so only memory allocated as MemoryKind::kShareable is shared.
//
// Lifetime: the first share creates a "ticket" (ipc_ticket.h), a sealed
// memfd in which every process that opened the allocation holds a slot. When
// the exporter lets go of the allocation while another process still holds
// the ticket, the free waits: CollectIpc() hands it back to be freed
// (cuda_memory.h CollectShareable) once the ticket is retired (no other process attached; a killed
// process's slot is pruned). Importers close their mapping before giving up their slot. Ticket
// locks are never waited for under this module's mutex.
#ifndef DLPACK_NODE_CORE_CUDA_IPC_H_
#define DLPACK_NODE_CORE_CUDA_IPC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "managed.h"
#include "result.h"

namespace dlnode {
namespace cuda {

constexpr int kIpcHandleBytes = 64;

struct IpcShare {
  std::string handle;  // the cudaIpcMemHandle_t as 128 lowercase hex digits
  std::string ticket;  // the ticket's name
  int64_t pid = 0;     // a process holding the ticket open, and its descriptor number
  int64_t fd = -1;
  int device = 0;
  uint64_t size = 0;  // bytes of the allocation the handle names
};

// How sharing or opening failed: X(Constant, code) (result.h).
#define DLNODE_IPC_FAILURES(X)                                                                 \
  X(kNone, nullptr)                                                                            \
  X(kNotShareable, code::kUnsupported)  /* memory that was not allocated for sharing */        \
  X(kGone, code::kDisposed)             /* the exporter released it before this open */        \
  X(kMalformed, code::kInvalidArgValue) /* a handle or ticket outside its grammar              \
                                           (lib/sharing.js refuses it first) */                \
  X(kInvalid, code::kUnsupported)  /* a ticket that is not one, or a size the mapping lacks */ \
  X(kNoMemory, code::kOutOfMemory) /* no room for the ticket segment */                        \
  X(kCudaUnavailable, code::kCudaUnavailable) /* no driver or device for the CUDA call */      \
  X(kCuda, code::kCuda) /* the CUDA call failed: `detail` is the cudaError name */

DLNODE_DEFINE_FAILURES(IpcFailure, DLNODE_IPC_FAILURES)
using IpcResult = Result<IpcFailure>;

// The share of `memory`: device memory allocated as MemoryKind::kShareable
// (exported on the first call) or memory opened from another process's share.
IpcResult ShareIpc(NativeMemory* memory, IpcShare* out);

// A reference to the memory of `share` in this process, `share.size` bytes
// long: the exporting allocation itself when this process made it, otherwise
// this process's one mapping of the handle (later opens share it).
Ref<NativeMemory> OpenIpc(const IpcShare& share, IpcResult* result);

// An exported allocation whose exporter let go and that no other process
// maps any more, for the caller to free (cuda_memory.h CollectShareable).
struct IpcFree {
  void* ptr;
  int device;
  uint64_t bytes;
};

// Retires the tickets of exported allocations whose exporter let go, once no
// other process holds them, and returns those allocations (this module frees
// no memory); `*waiting` is how many still wait.
std::vector<IpcFree> CollectIpc(int* waiting);

struct IpcCounts {
  int exported;  // shareable allocations alive in this process
  int opened;    // mappings of other processes' allocations
  int waiting;   // frees waiting for importers (CollectIpc)
};
IpcCounts CountIpc();

// For cuda_memory.cc. A new kShareable allocation; and the exporter letting
// go of one: true when the free must wait for importers (CollectIpc returns
// the allocation once none is left), false when the caller frees it now.
void AddShareable(NativeMemory* memory, int device);
bool ReleaseShareable(NativeMemory* memory, int device);

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_IPC_H_
