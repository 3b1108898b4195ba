// CUDA IPC bookkeeping (src/core/cuda_ipc.h) on the paths that need no
// device: handles and tickets are checked before CUDA is asked, a failed open
// keeps no ticket attachment, and memory that was not allocated for sharing
// is refused. The device paths are tested from Node (test/cuda-ipc.test.js).
#include "cuda_ipc.h"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>

#include "ipc_ticket.h"
#include "managed.h"

namespace {

namespace cuda = dlnode::cuda;

// The slots a ticket holds (python/FORMAT.md "Tickets": int32 pids from byte 16).
int Slots(int fd) {
  int32_t pids[dlnode::kTicketSlots];
  if (pread(fd, pids, sizeof pids, 16) != static_cast<ssize_t>(sizeof pids)) return -1;
  int used = 0;
  for (int32_t pid : pids) used += pid != 0;
  return used;
}

// Plain host memory: not a shareable CUDA allocation.
class PlainMemory final : public dlnode::NativeMemory {
 public:
  PlainMemory() : NativeMemory(bytes_, sizeof bytes_) {}

 private:
  void Destroy() noexcept override { delete this; }
  char bytes_[16] = {};
};

cuda::IpcShare Share(const std::string& ticket, std::string handle = std::string(128, '0'),
                     int64_t fd = 1 << 30) {
  cuda::IpcShare share;
  share.handle = std::move(handle);
  share.ticket = ticket;
  share.pid = getpid();
  share.fd = fd;
  share.device = 0;
  share.size = 64;
  return share;
}

bool HasDevice() {
  int count = 0;
  return cuda::DeviceCount(&count).ok && count > 0;
}

TEST(CudaIpc, MalformedHandlesAreInvalidBeforeAnythingIsOpened) {
  for (const std::string& handle :
       {std::string("xyz"), std::string(128, 'A'), std::string(127, '0'), std::string(130, '0'),
        std::string(127, '0') + "g"}) {
    cuda::IpcResult r;
    EXPECT_FALSE(cuda::OpenIpc(Share("dlpack-" + std::string(32, '0'), handle), &r));
    EXPECT_EQ(r.failure, cuda::IpcFailure::kMalformed) << handle;
  }
}

TEST(CudaIpc, ATicketThatIsGoneOrMalformedIsRefused) {
  cuda::IpcResult gone;
  EXPECT_FALSE(cuda::OpenIpc(Share("dlpack-" + std::string(32, '0')), &gone));
  EXPECT_EQ(gone.failure, cuda::IpcFailure::kGone);
  cuda::IpcResult bad;
  EXPECT_FALSE(cuda::OpenIpc(Share("../etc/passwd"), &bad));
  EXPECT_EQ(bad.failure, cuda::IpcFailure::kMalformed);
}

TEST(CudaIpc, AFailedOpenGivesItsTicketAttachmentBack) {
  if (HasDevice()) GTEST_SKIP() << "a CUDA device is present: the open would reach the driver";
  dlnode::ShmResult shm;
  const unsigned char zeros[dlnode::kTicketHandleBytes] = {};
  std::unique_ptr<dlnode::IpcTicket> ticket = dlnode::IpcTicket::Create(zeros, &shm);
  ASSERT_NE(ticket, nullptr) << shm.message;
  EXPECT_EQ(Slots(ticket->fd()), 1);
  cuda::IpcResult r;
  EXPECT_FALSE(cuda::OpenIpc(Share(ticket->name(), std::string(128, '0'), ticket->fd()), &r));
  EXPECT_EQ(r.failure, cuda::IpcFailure::kCudaUnavailable) << r.detail;
  EXPECT_STREQ(r.code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
  EXPECT_FALSE(r.message.empty());
  EXPECT_EQ(Slots(ticket->fd()), 1);  // the failed open gave its slot back
  EXPECT_EQ(cuda::CountIpc().opened, 0);
}

// Issue 20 LOW 11: the ticket is checked before CUDA is asked.
TEST(CudaIpc, AHandlePairedWithAnotherAllocationsTicketIsRefused) {
  dlnode::ShmResult shm;
  const unsigned char zeros[dlnode::kTicketHandleBytes] = {};
  std::unique_ptr<dlnode::IpcTicket> ticket = dlnode::IpcTicket::Create(zeros, &shm);
  ASSERT_NE(ticket, nullptr) << shm.message;
  cuda::IpcResult r;
  EXPECT_FALSE(cuda::OpenIpc(Share(ticket->name(), std::string(128, 'a'), ticket->fd()), &r));
  EXPECT_EQ(r.failure, cuda::IpcFailure::kInvalid);
  EXPECT_NE(r.message.find("another CUDA allocation"), std::string::npos) << r.message;
  EXPECT_EQ(Slots(ticket->fd()), 1);  // no slot taken
  EXPECT_EQ(cuda::CountIpc().opened, 0);
}

TEST(CudaIpc, MemoryNotAllocatedForSharingIsRefused) {
  auto* memory = new PlainMemory();
  cuda::IpcShare share;
  const cuda::IpcResult r = cuda::ShareIpc(memory, &share);
  EXPECT_EQ(r.failure, cuda::IpcFailure::kNotShareable);
  EXPECT_NE(r.message.find("shared: true"), std::string::npos) << r.message;
  EXPECT_FALSE(cuda::ReleaseShareable(memory, 0));  // unknown memory: the caller frees it now
  memory->Release();
}

TEST(CudaIpc, NothingWaitsWhenNothingWasExported) {
  int waiting = -1;
  EXPECT_TRUE(cuda::CollectIpc(&waiting).empty());
  EXPECT_EQ(waiting, 0);
  const cuda::IpcCounts counts = cuda::CountIpc();
  EXPECT_EQ(counts.exported, 0);
  EXPECT_EQ(counts.waiting, 0);
}

}  // namespace
