// Sealed memfd segments and tickets (python/FORMAT.md) and the 'local' share
// registry, in one process and across fork()ed children.
#include "shm.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "ipc_ticket.h"
#include "share_registry.h"

namespace {

using dlnode::IpcTicket;
using dlnode::ShmFailure;
using dlnode::ShmPlace;
using dlnode::ShmResult;
using dlnode::ShmSegment;

// This process holds segment `name` (a descriptor or a mapping): while any
// process does, the kernel keeps its memory.
bool Held(const std::string& name) {
  const std::string link = "/memfd:" + name + " (deleted)";
  for (int fd = 0; fd < 4096; ++fd) {
    char buffer[256];
    const ssize_t n =
        readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buffer, sizeof buffer);
    if (n > 0 && std::string(buffer, n) == link) return true;
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.size() >= link.size() &&
        line.compare(line.size() - link.size(), link.size(), link) == 0)
      return true;
  }
  return false;
}

ShmPlace PlaceOf(const ShmSegment* s) { return {s->name(), getpid(), s->fd()}; }

// Two CUDA IPC handles (the bytes only matter as an identity here).
const unsigned char kHandle[dlnode::kTicketHandleBytes] = {1, 2, 3};
const unsigned char kOtherHandle[dlnode::kTicketHandleBytes] = {3, 2, 1};

// A fork()ed child that runs `attach`, sends back what it returns, and stays
// alive (still attached) until Kill(): a process that dies without detaching.
class AttachedChild {
 public:
  explicit AttachedChild(const std::function<std::string()>& attach) {
    if (pipe(pipe_) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      const std::string reply = attach();
      (void)!write(pipe_[1], reply.c_str(), reply.size() + 1);
      pause();
      _exit(0);
    }
    char buffer[256] = {};
    if (read(pipe_[0], buffer, sizeof buffer - 1) > 0) reply_ = buffer;
  }
  ~AttachedChild() {
    Kill();
    close(pipe_[0]);
    close(pipe_[1]);
  }
  AttachedChild(const AttachedChild&) = delete;
  AttachedChild& operator=(const AttachedChild&) = delete;

  const std::string& reply() const { return reply_; }
  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);  // reaped: a zombie would still count as alive
    pid_ = -1;
  }

 private:
  int pipe_[2] = {-1, -1};
  pid_t pid_ = -1;
  std::string reply_;
};

TEST(ShmSegment, CreateGivesZeroedPageAlignedSealedData) {
  ShmResult r;
  dlnode::Ref<ShmSegment> s = ShmSegment::Create(100, &r);
  ASSERT_TRUE(s) << r.message;
  EXPECT_EQ(s->length(), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s->base()) % 4096, 0u);
  EXPECT_TRUE(dlnode::ValidShmName(s->name())) << s->name();
  const auto* bytes = static_cast<const unsigned char*>(s->base());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bytes[i], 0);
  const int seals = fcntl(s->fd(), F_GET_SEALS);
  EXPECT_EQ(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
            F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  // No holder can cut the file under another's mapping (python/FORMAT.md "Creating": the seals).
  const int peer = open(("/proc/self/fd/" + std::to_string(s->fd())).c_str(), O_RDWR);
  ASSERT_GE(peer, 0);
  EXPECT_NE(ftruncate(peer, 0), 0);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(ftruncate(peer, 1 << 20), 0);
  close(peer);
  const std::string name = s->name();
  EXPECT_TRUE(Held(name));
  s.reset();
  EXPECT_FALSE(Held(name));
}

TEST(ShmSegment, NamesFollowTheGrammar) {
  EXPECT_TRUE(dlnode::ValidShmName("dlpack-" + std::string(32, 'a')));
  for (const std::string& name :
       {std::string("dlpack-") + std::string(31, 'a'),
        std::string("dlpack-") + std::string(33, 'a'),
        std::string("dlpack-") + std::string(31, 'a') + "A",
        std::string("dlpack-") + std::string(31, 'a') + '\0',
        std::string("dlpack-") + std::string(31, 'a') + "/", std::string("../etc/passwd"),
        std::string("Dlpack-") + std::string(32, 'a'), std::string()}) {
    EXPECT_FALSE(dlnode::ValidShmName(name)) << name;
  }
}

TEST(ShmSegment, OneProcessSharesOneHold) {
  ShmResult r;
  dlnode::Ref<ShmSegment> a = ShmSegment::Create(8, &r);
  const std::string name = a->name();
  dlnode::Ref<ShmSegment> b = ShmSegment::Open(PlaceOf(a.get()), 8, &r);
  dlnode::Ref<ShmSegment> c =
      ShmSegment::Open({name, getpid(), 0}, 8, &r);  // found by name, wherever the place says
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(b.get(), c.get());
  EXPECT_FALSE(ShmSegment::Open(PlaceOf(a.get()), 4097, &r));  // more than the sealed page
  EXPECT_EQ(r.failure, ShmFailure::kInvalid);
  a.reset();
  b.reset();
  EXPECT_TRUE(Held(name));
  c.reset();
  EXPECT_FALSE(Held(name));
}

// An Open() that finds the segment too small drops the reference it took, and
// that can be the last one when another thread released meanwhile: it must be
// dropped after the table's mutex is unlocked (Destroy() takes the mutex), or
// the thread deadlocks on itself. A child with an alarm fails fast instead of
// hanging the suite.
TEST(ShmSegment, ATooSmallOpenRacingTheLastReleaseDoesNotDeadlock) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(60);
    constexpr int kRounds = 5000;
    // A releaser spinning on `round` starts each release within nanoseconds
    // of the Open(), so some land inside its window.
    std::atomic<int> round{0};
    std::atomic<int> done{0};
    dlnode::Ref<ShmSegment> a;
    std::thread releaser([&] {
      for (int i = 1; i <= kRounds; i++) {
        while (round.load(std::memory_order_acquire) != i) std::this_thread::yield();
        a.reset();
        done.store(i, std::memory_order_release);
      }
    });
    for (int i = 1; i <= kRounds; i++) {
      ShmResult r;
      a = ShmSegment::Create(8, &r);
      if (!a) _exit(2);
      const ShmPlace place = PlaceOf(a.get());
      round.store(i, std::memory_order_release);
      ShmResult tooSmall;
      dlnode::Ref<ShmSegment> b = ShmSegment::Open(place, 1 << 20, &tooSmall);
      if (b) _exit(3);
      while (done.load(std::memory_order_acquire) != i) std::this_thread::yield();
    }
    releaser.join();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status)
                                 << " (SIGALRM: it deadlocked)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ShmSegment, OpenRefusesBadNamesGonePlacesUnsealedFilesAndTooSmallSegments) {
  ShmResult r;
  EXPECT_FALSE(ShmSegment::Open({"../etc/passwd", getpid(), 0}, 0, &r));
  EXPECT_EQ(r.failure, ShmFailure::kMalformed);
  r = {};
  EXPECT_FALSE(ShmSegment::Open({"dlpack-" + std::string(32, '0'), getpid(), 0}, 0, &r));  // stdin
  EXPECT_EQ(r.failure, ShmFailure::kGone);
  r = {};
  EXPECT_FALSE(ShmSegment::Open({"dlpack-" + std::string(32, '0'), getpid(), 1 << 30}, 0, &r));
  EXPECT_EQ(r.failure, ShmFailure::kGone);
  r = {};
  EXPECT_FALSE(ShmSegment::Open({"dlpack-" + std::string(32, '0'), 0, 3}, 0, &r));
  EXPECT_EQ(r.failure, ShmFailure::kMalformed);
  // The right name on a memfd a peer could still shrink.
  const std::string name = "dlpack-" + std::string(32, 'c');
  const int unsealed = memfd_create(name.c_str(), MFD_CLOEXEC);
  ASSERT_GE(unsealed, 0);
  ASSERT_EQ(ftruncate(unsealed, 4096), 0);
  r = {};
  EXPECT_FALSE(ShmSegment::Open({name, getpid(), unsealed}, 0, &r));
  EXPECT_EQ(r.failure, ShmFailure::kInvalid);
  EXPECT_NE(r.message.find("not sealed"), std::string::npos) << r.message;
  close(unsealed);
}

// The owner check (python/FORMAT.md "Opening": a regular file of this user)
// without a second user: a real segment of this user, opened as if this
// process ran as another uid, is refused before anything is opened.
TEST(ShmSegment, OpenRefusesASegmentAnotherUserOwns) {
  ShmResult r;
  dlnode::Ref<ShmSegment> s = ShmSegment::Create(100, &r);
  ASSERT_TRUE(s) << r.message;
  const ShmPlace place{s->name(), getpid(), s->fd()};
  uint64_t size = 0;
  const int mine =
      dlnode::OpenShmPlace(place, dlnode::PlaceKind::kSegment, 100, geteuid(), &size, &r);
  ASSERT_GE(mine, 0) << r.message;  // the same place opens for its owner
  EXPECT_GE(size, 100u);
  close(mine);
  for (const uid_t other : {geteuid() + 1, static_cast<uid_t>(0), static_cast<uid_t>(65534)}) {
    if (other == geteuid()) continue;
    r = {};
    EXPECT_EQ(dlnode::OpenShmPlace(place, dlnode::PlaceKind::kSegment, 100, other, &size, &r), -1)
        << other;
    EXPECT_EQ(r.failure, ShmFailure::kDenied) << other;
    EXPECT_NE(r.message.find("not a segment of this user"), std::string::npos) << r.message;
  }
}

TEST(ShmSegment, AForkedChildOpensItsOwnHoldThroughTheParentsPlace) {
  ShmResult r;
  dlnode::Ref<ShmSegment> a = ShmSegment::Create(8, &r);
  std::memcpy(a->base(), "parent", 7);
  const ShmPlace place = PlaceOf(a.get());
  AttachedChild child([&] {
    // A fork()ed child inherits the table's entries but starts afresh.
    ShmResult cr;
    const ShmPlace from_parent{place.name, getppid(), place.fd};
    dlnode::Ref<ShmSegment> b = ShmSegment::Open(from_parent, 8, &cr);
    if (!b) return "n:" + cr.message;
    std::memcpy(b->base(), "child", 6);
    return std::string(b.get() != a.get() ? "y" : "n");
  });
  EXPECT_EQ(child.reply(), "y");
  EXPECT_STREQ(static_cast<const char*>(a->base()), "child");
  a.reset();
}

TEST(ShmSegment, OpeningNeverWaitsForAnotherProcesssLock) {
  // A peer holding a lock on a segment must not stall an open in this
  // process. Segments take no lock: an open while a peer holds
  // flock on the file completes (the child dies by alarm() if it waits).
  ShmResult r;
  dlnode::Ref<ShmSegment> a = ShmSegment::Create(8, &r);
  const ShmPlace place = PlaceOf(a.get());
  const std::string path = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(place.fd);
  AttachedChild locker([&] {
    const int fd = open(path.c_str(), O_RDWR);
    return std::string(fd >= 0 && flock(fd, LOCK_EX) == 0 ? "locked" : "n");
  });
  ASSERT_EQ(locker.reply(), "locked");
  AttachedChild opener([&] {
    alarm(10);
    ShmResult cr;
    dlnode::Ref<ShmSegment> b = ShmSegment::Open({place.name, getppid(), place.fd}, 8, &cr);
    return std::string(b ? "opened" : "n:" + cr.message);
  });
  EXPECT_EQ(opener.reply(), "opened");
  a.reset();
}

TEST(IpcTicket, SlotsRetireAndNeverWaitingRetire) {
  ShmResult r;
  std::unique_ptr<IpcTicket> ticket = IpcTicket::Create(kHandle, &r);
  ASSERT_NE(ticket, nullptr) << r.message;
  const ShmPlace place{ticket->name(), getpid(), ticket->fd()};
  {
    AttachedChild child([&] {
      ShmResult cr;
      const ShmPlace from_parent{place.name, getppid(), place.fd};
      return std::string(IpcTicket::Open(from_parent, kHandle, &cr).release() != nullptr
                             ? "y"
                             : "n:" + cr.message);
    });
    ASSERT_EQ(child.reply(), "y");
    EXPECT_FALSE(ticket->RetireIfAlone());  // the child holds a slot
    child.Kill();
  }
  {
    // A peer that holds the ticket's lock: retiring does not wait for it.
    AttachedChild locker([&] {
      const int fd =
          open(("/proc/" + std::to_string(getppid()) + "/fd/" + std::to_string(place.fd)).c_str(),
               O_RDWR);
      return std::string(fd >= 0 && flock(fd, LOCK_EX) == 0 ? "locked" : "n");
    });
    ASSERT_EQ(locker.reply(), "locked");
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(ticket->RetireIfAlone());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // not blocked
    locker.Kill();
  }
  EXPECT_TRUE(ticket->RetireIfAlone());  // the dead child's slot is pruned
  ShmResult late;
  EXPECT_EQ(IpcTicket::Open(place, kHandle, &late), nullptr);  // nobody attaches a retired ticket
  EXPECT_EQ(late.failure, ShmFailure::kGone);
  EXPECT_TRUE(ticket->RetireIfAlone());  // again: nothing to undo
}

TEST(IpcTicket, ASegmentIsNotATicket) {
  ShmResult r;
  dlnode::Ref<ShmSegment> s = ShmSegment::Create(4096, &r);
  ShmResult t;
  EXPECT_EQ(IpcTicket::Open(PlaceOf(s.get()), kHandle, &t), nullptr);
  EXPECT_EQ(t.failure, ShmFailure::kInvalid);
  EXPECT_NE(t.message.find("is a data segment, not a ticket"), std::string::npos) << t.message;
  s.reset();
}

// Issue 20 LOW 11: a ticket never opens as a writable data segment.
TEST(IpcTicket, ATicketIsNotASegment) {
  ShmResult r;
  std::unique_ptr<IpcTicket> ticket = IpcTicket::Create(kHandle, &r);
  ASSERT_NE(ticket, nullptr) << r.message;
  ShmResult s;
  EXPECT_FALSE(ShmSegment::Open({ticket->name(), getpid(), ticket->fd()}, 16, &s));
  EXPECT_EQ(s.failure, ShmFailure::kInvalid);
  EXPECT_NE(s.message.find("is a CUDA-IPC ticket, not a data segment"), std::string::npos)
      << s.message;
  EXPECT_TRUE(ticket->RetireIfAlone());  // nobody took a slot
}

// Issue 20 LOW 11: a handle paired with another allocation's ticket takes no slot in it.
TEST(IpcTicket, ATicketOfAnotherAllocationIsRefused) {
  ShmResult r;
  std::unique_ptr<IpcTicket> ticket = IpcTicket::Create(kHandle, &r);
  ASSERT_NE(ticket, nullptr) << r.message;
  const ShmPlace place{ticket->name(), getpid(), ticket->fd()};
  AttachedChild child([&] {
    ShmResult cr;
    const ShmPlace from_parent{place.name, getppid(), place.fd};
    return std::string(IpcTicket::Open(from_parent, kOtherHandle, &cr).release() != nullptr
                           ? "attached"
                           : cr.message);
  });
  EXPECT_NE(child.reply().find("belongs to another CUDA allocation"), std::string::npos)
      << child.reply();
  EXPECT_TRUE(ticket->RetireIfAlone());  // the child, still alive, holds no slot
}

TEST(ShareRegistry, OpenersHoldTheirOwnReferences) {
  namespace reg = dlnode::share_registry;
  ShmResult r;
  dlnode::Ref<ShmSegment> s = ShmSegment::Create(8, &r);
  const std::string name = s->name();
  const int64_t before = reg::Size();
  const uint64_t id = reg::Add(s.share(), "cpu");
  EXPECT_NE(id, 0u);
  EXPECT_EQ(reg::Size(), before + 1);
  std::string device;
  dlnode::Ref<dlnode::NativeMemory> opened = reg::Acquire(id, &device);
  ASSERT_EQ(opened.get(), s.get());
  EXPECT_EQ(device, "cpu");  // what the sharer said, for the opener to check
  s.reset();                 // the sharer's own reference
  reg::Remove(id);           // the sharer unpublishes
  EXPECT_FALSE(reg::Acquire(id, &device));
  EXPECT_TRUE(Held(name));  // the opener still holds it
  opened.reset();
  EXPECT_FALSE(Held(name));
  reg::Remove(id);  // unknown now: ignored
  EXPECT_EQ(reg::Size(), before);
}

}  // namespace
