// The shared-memory segment protocol (python/FORMAT.md) and the 'local'
// share registry, in one process and across a fork()ed child.
#include "shm.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
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
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    ShmResult cr;
    ShmSegment* b = ShmSegment::Open(name, 8, &cr);
    char c = b != nullptr ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();  // killed below, still attached
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_EQ(c, 'y');
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  a->Release();  // prunes the dead child's slot: nobody is left
  EXPECT_FALSE(Exists(name));
  close(ready[0]);
  close(ready[1]);
}

TEST(ShmSegment, SweepRemovesOrphansAndKeepsLiveSegments) {
  ShmResult r;
  ShmSegment* live = ShmSegment::Create(8, &r);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    ShmResult cr;
    ShmSegment* orphan = ShmSegment::Create(8, &cr);
    const std::string name = orphan != nullptr ? orphan->name() : "";
    (void)!write(ready[1], name.c_str(), name.size() + 1);
    pause();
    _exit(0);
  }
  char name[128] = {};
  ASSERT_GT(read(ready[0], name, sizeof name), 0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(Exists(name));
  EXPECT_GE(dlnode::SweepShmSegments(), 1);
  EXPECT_FALSE(Exists(name));
  EXPECT_TRUE(Exists(live->name()));
  live->Release();
  close(ready[0]);
  close(ready[1]);
}

TEST(ShareRegistry, OpenersHoldTheirOwnReferences) {
  namespace reg = dlnode::share_registry;
  ShmResult r;
  ShmSegment* s = ShmSegment::Create(8, &r);
  const std::string name = s->name();
  const int64_t before = reg::Size();
  const uint64_t id = reg::Add(s);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(reg::Size(), before + 1);
  dlnode::HostMemory* opened = reg::Acquire(id);
  ASSERT_EQ(opened, s);
  s->Release();       // the sharer's own reference
  reg::Remove(id);    // the sharer unpublishes
  EXPECT_EQ(reg::Acquire(id), nullptr);
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
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    ShmResult cr;
    ShmSegment* b = ShmSegment::Open(name, 8, &cr);
    char c = b != nullptr && b != a ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_EQ(c, 'y');
  a->Release();
  EXPECT_TRUE(Exists(name));  // the live child's own slot keeps it
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(dlnode::SweepShmSegments() >= 1, true);
  EXPECT_FALSE(Exists(name));
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
