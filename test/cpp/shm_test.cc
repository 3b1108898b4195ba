// The shared-memory segment protocol (python/FORMAT.md) and the 'local'
// share registry, in one process and across a fork()ed child.
#include "shm.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>

#include "share_registry.h"

namespace {

using dlnode::ShmFailure;
using dlnode::ShmResult;
using dlnode::ShmSegment;

bool Exists(const std::string& name) {
  struct stat st;
  return stat(("/dev/shm/" + name).c_str(), &st) == 0;
}

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

TEST(ShmSegment, CreateGivesZeroedPageAlignedData) {
  ShmResult r;
  ShmSegment* s = ShmSegment::Create(100, &r);
  ASSERT_NE(s, nullptr) << r.message;
  EXPECT_EQ(s->length(), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s->base()) % 4096, 0u);
  EXPECT_EQ(s->name().rfind("dlpack-", 0), 0u);
  const auto* bytes = static_cast<const unsigned char*>(s->base());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bytes[i], 0);
  const std::string name = s->name();
  EXPECT_TRUE(Exists(name));
  s->Release();
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegment, UnlinkedOnlyWhenTheLastAttachmentDetaches) {
  ShmResult r;
  ShmSegment* a = ShmSegment::Create(16, &r);
  ASSERT_NE(a, nullptr);
  const std::string name = a->name();
  ShmSegment* b = ShmSegment::Open(name, 16, &r);
  ASSERT_NE(b, nullptr) << r.message;
  std::memcpy(b->base(), "shared", 7);
  EXPECT_STREQ(static_cast<const char*>(a->base()), "shared");
  a->Release();
  EXPECT_TRUE(Exists(name));
  b->Release();
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegment, RetainKeepsOneAttachmentUntilTheLastReference) {
  ShmResult r;
  ShmSegment* a = ShmSegment::Create(8, &r);
  const std::string name = a->name();
  a->Retain();
  a->Release();
  EXPECT_TRUE(Exists(name));
  a->Release();
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegment, OpenRefusesMissingForeignAndTooSmallSegments) {
  ShmResult r;
  EXPECT_EQ(ShmSegment::Open("dlpack-0-doesnotexist", 0, &r), nullptr);
  EXPECT_EQ(r.failure, ShmFailure::kGone);
  EXPECT_EQ(ShmSegment::Open("../etc/passwd", 0, &r), nullptr);
  EXPECT_EQ(r.failure, ShmFailure::kInvalid);
  EXPECT_EQ(ShmSegment::Open("dlpack-a/b", 0, &r), nullptr);
  EXPECT_EQ(r.failure, ShmFailure::kInvalid);
  ShmSegment* a = ShmSegment::Create(8, &r);
  EXPECT_EQ(ShmSegment::Open(a->name(), 9, &r), nullptr);
  EXPECT_EQ(r.failure, ShmFailure::kInvalid);
  EXPECT_NE(r.message.find("fewer than"), std::string::npos) << r.message;
  a->Release();
}

TEST(ShmSegment, ADeadProcessIsPrunedAndTheSegmentRemoved) {
  ShmResult r;
  ShmSegment* a = ShmSegment::Create(8, &r);
  const std::string name = a->name();
  AttachedChild child([&] {
    ShmResult cr;
    return std::string(ShmSegment::Open(name, 8, &cr) != nullptr ? "y" : "n");
  });
  EXPECT_EQ(child.reply(), "y");
  child.Kill();
  a->Release();  // prunes the dead child's slot: nobody is left
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegment, SweepRemovesOrphansAndKeepsLiveSegments) {
  ShmResult r;
  ShmSegment* live = ShmSegment::Create(8, &r);
  AttachedChild child([] {
    ShmResult cr;
    ShmSegment* orphan = ShmSegment::Create(8, &cr);
    return orphan != nullptr ? orphan->name() : std::string();
  });
  const std::string name = child.reply();
  ASSERT_FALSE(name.empty());
  child.Kill();
  ASSERT_TRUE(Exists(name));
  EXPECT_GE(dlnode::SweepShmSegments(), 1);
  EXPECT_FALSE(Exists(name));
  EXPECT_TRUE(Exists(live->name()));
  live->Release();
}

TEST(ShareRegistry, OpenersHoldTheirOwnReferences) {
  namespace reg = dlnode::share_registry;
  ShmResult r;
  ShmSegment* s = ShmSegment::Create(8, &r);
  const std::string name = s->name();
  const int64_t before = reg::Size();
  const uint64_t id = reg::Add(s, "cpu");
  EXPECT_NE(id, 0u);
  EXPECT_EQ(reg::Size(), before + 1);
  std::string device;
  dlnode::HostMemory* opened = reg::Acquire(id, &device);
  ASSERT_EQ(opened, s);
  EXPECT_EQ(device, "cpu");  // what the sharer said, for the opener to check
  s->Release();       // the sharer's own reference
  reg::Remove(id);    // the sharer unpublishes
  EXPECT_EQ(reg::Acquire(id, &device), nullptr);
  EXPECT_TRUE(Exists(name));  // the opener still holds it
  opened->Release();
  EXPECT_FALSE(Exists(name));
  reg::Remove(id);  // unknown now: ignored
  EXPECT_EQ(reg::Size(), before);
}

}  // namespace

namespace {

TEST(ShmSegment, OneProcessSharesOneAttachment) {
  ShmResult r;
  ShmSegment* a = ShmSegment::Create(8, &r);
  const std::string name = a->name();
  ShmSegment* b = ShmSegment::Open(name, 8, &r);
  ShmSegment* c = ShmSegment::Open(name, 8, &r);
  EXPECT_EQ(a, b);  // the same mapping, one slot
  EXPECT_EQ(b, c);
  EXPECT_EQ(ShmSegment::Open(name, 9, &r), nullptr);
  a->Release();
  b->Release();
  EXPECT_TRUE(Exists(name));
  c->Release();
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegment, AForkedChildTakesItsOwnSlot) {
  ShmResult r;
  ShmSegment* a = ShmSegment::Create(8, &r);
  const std::string name = a->name();
  AttachedChild child([&] {
    ShmResult cr;
    ShmSegment* b = ShmSegment::Open(name, 8, &cr);
    return std::string(b != nullptr && b != a ? "y" : "n");
  });
  EXPECT_EQ(child.reply(), "y");
  a->Release();
  EXPECT_TRUE(Exists(name));  // the live child's own slot keeps it
  child.Kill();
  EXPECT_GE(dlnode::SweepShmSegments(), 1);
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegment, RetireIfAloneWaitsForOtherProcessesThenStopsAttaches) {
  ShmResult r;
  ShmSegment* ticket = ShmSegment::Create(0, &r);
  ASSERT_NE(ticket, nullptr) << r.message;
  const std::string name = ticket->name();
  {
    AttachedChild child([&] {
      ShmResult cr;
      return std::string(ShmSegment::Open(name, 0, &cr) != nullptr ? "y" : "n");
    });
    ASSERT_EQ(child.reply(), "y");
    EXPECT_FALSE(ticket->RetireIfAlone());  // the child is attached
    EXPECT_TRUE(Exists(name));
    child.Kill();
  }
  EXPECT_TRUE(ticket->RetireIfAlone());  // the dead child's slot is pruned
  EXPECT_FALSE(Exists(name));
  ShmResult late;
  EXPECT_EQ(ShmSegment::Open(name, 0, &late), nullptr);  // nobody attaches a retired ticket
  EXPECT_EQ(late.failure, ShmFailure::kGone);
  EXPECT_TRUE(ticket->RetireIfAlone());  // again: still alone, nothing to undo
  ticket->Release();                     // unmaps; the name is gone already
}

TEST(ShmSegment, RetireIfAloneIgnoresThisProcessesOtherReferences) {
  ShmResult r;
  ShmSegment* ticket = ShmSegment::Create(0, &r);
  ASSERT_NE(ticket, nullptr) << r.message;
  ShmSegment* again = ShmSegment::Open(ticket->name(), 0, &r);  // the same attachment
  ASSERT_EQ(again, ticket);
  EXPECT_TRUE(ticket->RetireIfAlone());
  again->Release();
  ticket->Release();
}

}  // namespace
