#include "cuda_ipc.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "libstdcxx_floor.h"

#include "ipc_ticket.h"

#ifdef DLPACK_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace dlnode {
namespace cuda {
namespace {

static_assert(kIpcHandleBytes == kTicketHandleBytes, "a ticket holds its allocation's handle");

// What this process knows of one allocation it exported or opened.
struct Entry {
  std::shared_ptr<IpcTicket> ticket;  // null until first shared
  std::string handle;
  int device = 0;
  bool opened = false;  // a mapping of another process's allocation
};

// An exported allocation whose CudaMemory is gone while importers hold it.
struct Waiting {
  void* ptr;
  int device;
  uint64_t bytes;
  std::shared_ptr<IpcTicket> ticket;
};

// Process-wide on purpose, like the memory: any thread may share, open or
// release. Never destroyed (releases may run at exit). Nothing waits for
// another process under the mutex: tickets are attached and detached outside
// it, and retired without waiting (IpcTicket::RetireIfAlone).
struct Registry {
  std::mutex mutex;
  std::condition_variable opened;  // an open in progress (`opening`) ended
  std::unordered_map<const NativeMemory*, Entry> by_memory;
  std::unordered_map<std::string, NativeMemory*> by_ticket;
  std::unordered_set<std::string> opening;
  std::vector<Waiting> waiting;
  std::atomic<int> waiting_count{0};
};

Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

IpcResult Fail(IpcFailure failure, std::string message) {
  return Failed(failure, std::move(message));
}

IpcResult FailCuda(const Status& status, const std::string& what) {
  CudaResult cuda = ResultOf(status, what);
  return Failed(
      cuda.failure == CudaFailure::kUnavailable ? IpcFailure::kCudaUnavailable : IpcFailure::kCuda,
      std::move(cuda.message), std::move(cuda.detail));
}

// The memory of `ticket` is gone: `why` says how.
IpcResult Gone(const std::string& ticket, const std::string& why) {
  return Fail(IpcFailure::kGone,
              "The CUDA memory of ticket '" + ticket + "' " + why + " (before it was opened)");
}

IpcResult FailShm(const ShmResult& shm, const std::string& ticket) {
  switch (shm.failure) {
    case ShmFailure::kGone:
      return Gone(ticket, "was released by its exporter");
    case ShmFailure::kNoMemory:
      return Fail(IpcFailure::kNoMemory, shm.message);
    case ShmFailure::kDenied:
      return Fail(IpcFailure::kNotShareable, shm.message);
    case ShmFailure::kMalformed:
      return Fail(IpcFailure::kMalformed, shm.message);
    default:
      return Fail(IpcFailure::kInvalid, shm.message);
  }
}

IpcResult TooSmall(uint64_t holds, uint64_t needs) {
  return Fail(IpcFailure::kInvalid, HoldsFewerBytes("The shared CUDA allocation", holds, needs));
}

std::string Hex(const unsigned char* bytes, int n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text(static_cast<size_t>(n) * 2, '0');
  for (int i = 0; i < n; ++i) {
    text[2 * i] = kDigits[bytes[i] >> 4];
    text[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return text;
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool Unhex(const std::string& text, unsigned char* bytes, int n) {
  if (text.size() != static_cast<size_t>(n) * 2) return false;
  for (int i = 0; i < n; ++i) {
    const int high = DigitValue(text[2 * i]);
    const int low = DigitValue(text[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    bytes[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return true;
}

// The CUDA side of sharing. Each returns a Status ("not compiled" without
// CUDA support, where no shareable memory can exist).
#ifdef DLPACK_WITH_CUDA
static_assert(sizeof(cudaIpcMemHandle_t) == kIpcHandleBytes, "CUDA IPC handles are 64 bytes");

Status GetHandle(void* ptr, int device, unsigned char* handle) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  cudaIpcMemHandle_t h;
  const Status s = StatusOf(cudaIpcGetMemHandle(&h, ptr));
  if (s.ok) std::memcpy(handle, h.reserved, kIpcHandleBytes);
  return s;
}

// Everything this library enqueued that writes the memory (the memset of
// zeros({ shared: true }), the copy of shareMemory()/toShared(), stream
// copies, which the legacy stream waits for) has run: another process that
// opens the handle orders nothing after this one's streams.
Status SettleWrites(int device) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return StatusOf(cudaStreamSynchronize(cudaStreamLegacy));
}

// cuMemGetAddressRange (driver API, reached through the runtime so that no
// driver library is linked): the size of the allocation holding `ptr`.
bool AllocationSize(void* ptr, uint64_t* size) {
  using GetAddressRange = int (*)(unsigned long long*, size_t*, unsigned long long);  // NOLINT
  static const GetAddressRange get = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      fn = nullptr;
    }
    return reinterpret_cast<GetAddressRange>(fn);
  }();
  unsigned long long base = 0;  // NOLINT: CUdeviceptr
  size_t bytes = 0;
  if (get == nullptr || get(&base, &bytes, reinterpret_cast<uintptr_t>(ptr)) != 0) return false;
  *size = bytes - (reinterpret_cast<uintptr_t>(ptr) - base);
  return true;
}

// Maps `handle`; `*mapped` is the size of the allocation mapped, or
// UINT64_MAX when the driver cannot say.
Status OpenHandle(const unsigned char* handle, int device, void** ptr, uint64_t* mapped) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  cudaIpcMemHandle_t h;
  std::memcpy(h.reserved, handle, kIpcHandleBytes);
  const Status s = StatusOf(cudaIpcOpenMemHandle(ptr, h, cudaIpcMemLazyEnablePeerAccess));
  if (s.ok && !AllocationSize(*ptr, mapped)) *mapped = UINT64_MAX;
  return s;
}

void CloseHandle(void* ptr, int device) {
  if (ShuttingDown()) return;  // the driver may be gone: leave it to process exit
  DeviceGuard guard(device);
  if (guard.status().ok) cudaIpcCloseMemHandle(ptr);
  cudaGetLastError();
}
#else
Status NoCuda() {
  int count = 0;
  return DeviceCount(&count);  // says "not compiled"
}
Status GetHandle(void*, int, unsigned char*) { return NoCuda(); }
Status SettleWrites(int) { return NoCuda(); }
Status OpenHandle(const unsigned char*, int, void**, uint64_t*) { return NoCuda(); }
void CloseHandle(void*, int) {}
#endif

// Another process's allocation mapped into this one.
class OpenedMemory final : public NativeMemory {
 public:
  OpenedMemory(void* ptr, uint64_t size, int device, std::shared_ptr<IpcTicket> ticket)
      : NativeMemory(ptr, size), device_(device), ticket_(std::move(ticket)) {}

 private:
  void Destroy() noexcept override {
    Entry entry;  // its ticket reference goes outside the mutex, below
    {
      Registry& r = registry();
      std::lock_guard<std::mutex> guard(r.mutex);
      auto found = r.by_memory.find(this);
      if (found != r.by_memory.end()) {
        entry = std::move(found->second);
        r.by_memory.erase(found);
      }
      auto it = r.by_ticket.find(ticket_->name());
      if (it != r.by_ticket.end() && it->second == this) r.by_ticket.erase(it);
    }
    // Unmapped before the slot goes: the exporter frees once no slot is left.
    CloseHandle(base(), device_);
    entry.ticket.reset();
    ticket_.reset();  // detaches (it may wait for the ticket's lock)
    delete this;
  }

  int device_;
  std::shared_ptr<IpcTicket> ticket_;
};

}  // namespace

void AddShareable(NativeMemory* memory, int device) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  Entry& e = r.by_memory[memory];
  e.device = device;
}

bool ReleaseShareable(NativeMemory* memory, int device) {
  Registry& r = registry();
  std::shared_ptr<IpcTicket> ticket;  // released after the mutex
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = r.by_memory.find(memory);
  if (it == r.by_memory.end()) return false;
  ticket = std::move(it->second.ticket);
  r.by_memory.erase(it);
  if (ticket == nullptr) return false;  // never shared
  // Retired under the mutex, before the ticket leaves by_ticket: an open in
  // this process meanwhile finds the memory gone, never a stale mapping.
  const bool alone = ticket->RetireIfAlone();
  r.by_ticket.erase(ticket->name());
  if (alone) return false;
  r.waiting.push_back({memory->base(), device, memory->length(), std::move(ticket)});
  r.waiting_count.store(static_cast<int>(r.waiting.size()));
  return true;
}

IpcResult ShareIpc(NativeMemory* memory, IpcShare* out) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = r.by_memory.find(memory);
  if (it == r.by_memory.end()) {
    return Fail(IpcFailure::kNotShareable,
                "Expected CUDA device memory allocated for sharing (dl.empty(shape, { device: "
                "'cuda', shared: "
                "true })) or opened from a 'cuda-ipc' descriptor, received other CUDA memory");
  }
  Entry& e = it->second;
  if (e.ticket == nullptr) {
    unsigned char handle[kIpcHandleBytes];
    const Status s = GetHandle(memory->base(), e.device, handle);
    if (!s.ok) return FailCuda(s, "cudaIpcGetMemHandle");
    ShmResult shm;
    std::unique_ptr<IpcTicket> ticket =
        IpcTicket::Create(handle, &shm);  // a new file: nobody else to wait for
    if (ticket == nullptr) return FailShm(shm, "(new)");
    e.ticket = std::move(ticket);
    e.handle = Hex(handle, kIpcHandleBytes);
    r.by_ticket[e.ticket->name()] = memory;
  }
  // Every share, not only the first: the memory may have been written since.
  const Status settled = SettleWrites(e.device);
  if (!settled.ok) return FailCuda(settled, "cudaStreamSynchronize");
  out->handle = e.handle;
  out->ticket = e.ticket->name();
  out->pid = getpid();
  out->fd = e.ticket->fd();
  out->device = e.device;
  out->size = memory->length();
  return {};
}

Ref<NativeMemory> OpenIpc(const IpcShare& share, IpcResult* result) {
  unsigned char handle[kIpcHandleBytes];
  if (!Unhex(share.handle, handle, kIpcHandleBytes)) {
    *result =
        Fail(IpcFailure::kMalformed, "Expected 128 lowercase hex digits for the CUDA IPC handle");
    return {};
  }
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mutex);
  // One open of a ticket at a time in this process: a second waits (not
  // holding the mutex) and then finds the first one's mapping.
  r.opened.wait(lock, [&] { return r.opening.count(share.ticket) == 0; });
  // Exported or opened here already: the same memory (a process cannot map
  // its own allocation, and maps another's once).
  auto known = r.by_ticket.find(share.ticket);
  if (known != r.by_ticket.end()) {
    NativeMemory* known_memory = known->second;
    auto entry = r.by_memory.find(known_memory);
    if (entry != r.by_memory.end() && entry->second.handle != share.handle) {
      *result = Fail(IpcFailure::kInvalid, "Ticket '" + share.ticket +
                                               "' belongs to another CUDA allocation than the "
                                               "descriptor's handle names");
      return {};
    }
    if (!known_memory->TryRetain()) {
      *result = Gone(share.ticket, "is being released");
      return {};
    }
    lock.unlock();  // a last Release() takes the lock
    auto memory = Ref<NativeMemory>::adopt(known_memory);
    if (memory->length() < share.size) {
      *result = TooSmall(memory->length(), share.size);
      return {};
    }
    return memory;
  }
  for (const Waiting& w : r.waiting) {
    if (w.ticket->name() == share.ticket) {
      *result = Gone(share.ticket, "was released by its exporter (this process)");
      return {};
    }
  }
  r.opening.insert(share.ticket);
  lock.unlock();
  // Outside the mutex: attaching may wait for another process's ticket lock.
  Ref<NativeMemory> memory;
  ShmResult shm;
  std::shared_ptr<IpcTicket> ticket =
      IpcTicket::Open({share.ticket, share.pid, share.fd}, handle, &shm);
  if (ticket == nullptr) {
    *result = FailShm(shm, share.ticket);
  } else {
    void* ptr = nullptr;
    uint64_t mapped = 0;
    const Status s = OpenHandle(handle, share.device, &ptr, &mapped);
    if (!s.ok || mapped < share.size) {
      if (s.ok) CloseHandle(ptr, share.device);
      ticket.reset();  // after the unmapping, as every importer does
      *result = s.ok ? TooSmall(mapped, share.size) : FailCuda(s, "cudaIpcOpenMemHandle");
    } else {
      memory = Ref<NativeMemory>::adopt(new OpenedMemory(ptr, share.size, share.device, ticket));
    }
  }
  lock.lock();
  r.opening.erase(share.ticket);
  if (memory) {
    r.by_memory[memory.get()] = {std::move(ticket), share.handle, share.device, true};
    r.by_ticket[share.ticket] = memory.get();
  }
  r.opened.notify_all();
  return memory;
}

std::vector<IpcFree> CollectIpc(int* waiting) {
  Registry& r = registry();
  std::vector<IpcFree> frees;
  *waiting = r.waiting_count.load();
  if (*waiting == 0) return frees;
  std::lock_guard<std::mutex> guard(r.mutex);
  for (size_t i = 0; i < r.waiting.size();) {
    Waiting& w = r.waiting[i];
    if (!w.ticket->RetireIfAlone()) {  // never waits: a busy ticket is asked again later
      ++i;
      continue;
    }
    frees.push_back({w.ptr, w.device, w.bytes});
    r.waiting[i] = std::move(r.waiting.back());
    r.waiting.pop_back();
  }
  r.waiting_count.store(static_cast<int>(r.waiting.size()));
  *waiting = r.waiting_count.load();
  return frees;
}

IpcCounts CountIpc() {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  IpcCounts counts{0, 0, static_cast<int>(r.waiting.size())};
  for (const auto& entry : r.by_memory) {
    if (entry.second.opened) {
      ++counts.opened;
    } else {
      ++counts.exported;
    }
  }
  return counts;
}

}  // namespace cuda
}  // namespace dlnode
