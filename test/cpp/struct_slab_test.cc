// The struct slab (struct_slab.h): the process-wide pool and its limit,
// Find() over every entry, the entry states native code moves (adoption,
// hand-back, deletion), the deleter as a consumer calls it (alone and from
// many threads, with and without an owner), ManagedTensor's use of the slab,
// and the counters stats() sums.
//
// The tests play lib/struct_slab.js: they fill a struct, set its state word and
// bump the header's doubles with plain stores into the slab's memory, as the
// typed arrays over it do. Slabs are process-wide and never freed, so every
// test gives back each slab it acquires with no struct left out (TearDown
// checks), and counters are compared as differences.
#include "struct_slab.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "managed.h"

namespace {

using dlnode::ForeignStorage;
using dlnode::ManagedTensor;
using dlnode::SlabOwner;
using dlnode::StructSlab;

constexpr int kEntries = StructSlab::kEntries;
constexpr int32_t kFree = StructSlab::kFree;
constexpr int32_t kOut = StructSlab::kOut;
constexpr int32_t kAdopted = StructSlab::kAdopted;
constexpr int32_t kReleased = StructSlab::kReleased;

// The environment's side of a slab: counts the entries its deleters free.
class CountingOwner final : public SlabOwner {
 public:
  void EntryReleased() noexcept override { released.fetch_add(1, std::memory_order_relaxed); }
  int count() const { return released.load(std::memory_order_relaxed); }
  std::atomic<int> released{0};
};

// --- lib/struct_slab.js, in C++ ----------------------------------------------------

char* EntryAt(StructSlab* slab, int entry) {
  return slab->memory() + StructSlab::kHeaderSize + entry * StructSlab::kEntrySize;
}

DLManagedTensorVersioned* StructAt(StructSlab* slab, int entry) {
  return reinterpret_cast<DLManagedTensorVersioned*>(EntryAt(slab, entry));
}

// The state word, read and written as an Int32Array element (a plain access,
// as JS makes outside its Atomics calls).
int32_t StateOf(StructSlab* slab, int entry) {
  int32_t state;
  std::memcpy(&state, EntryAt(slab, entry) + StructSlab::kStateOffset, sizeof(state));
  return state;
}

void SetState(StructSlab* slab, int entry, int32_t state) {
  std::memcpy(EntryAt(slab, entry) + StructSlab::kStateOffset, &state, sizeof(state));
}

// The deletion count, as JS's Uint32Array reads it.
uint32_t Deletions(StructSlab* slab) {
  uint32_t deleted;
  std::memcpy(&deleted, slab->memory() + StructSlab::kDeletedOffset, sizeof(deleted));
  return deleted;
}

// f64[index]++ on the header's filled or taken count.
void Bump(StructSlab* slab, size_t offset) {
  double value;
  std::memcpy(&value, slab->memory() + offset, sizeof(value));
  value += 1;
  std::memcpy(slab->memory() + offset, &value, sizeof(value));
}

const int64_t kShape[] = {2, 3};
const int64_t kStrides[] = {3, 1};

// fillStruct(): every field as JS writes it, shape and strides in the entry's
// own arrays, the filled count bumped and the state set last.
DLManagedTensorVersioned* Fill(StructSlab* slab, int entry, void* data) {
  EXPECT_EQ(StateOf(slab, entry), kFree) << "JS fills only free entries";
  char* at = EntryAt(slab, entry);
  auto* shape = reinterpret_cast<int64_t*>(at + StructSlab::kShapeOffset);
  auto* strides = reinterpret_cast<int64_t*>(at + StructSlab::kStridesOffset);
  std::copy(std::begin(kShape), std::end(kShape), shape);
  std::copy(std::begin(kStrides), std::end(kStrides), strides);
  DLManagedTensorVersioned* self = StructAt(slab, entry);
  self->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  self->manager_ctx = slab;
  self->deleter = StructSlab::deleter();
  self->flags = 0;
  DLTensor& t = self->dl_tensor;
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 0;
  const int32_t epoch = slab->epoch();
  std::memcpy(at + StructSlab::kEpochOffset, &epoch, sizeof(epoch));
  Bump(slab, StructSlab::kFilledOffset);
  SetState(slab, entry, kOut);
  return self;
}

// takeStruct(): JS takes its own struct back (kOut -> kFree).
void TakeBack(StructSlab* slab, int entry) {
  ASSERT_EQ(StateOf(slab, entry), kOut) << "only a struct still out is taken back";
  SetState(slab, entry, kFree);
  Bump(slab, StructSlab::kTakenOffset);
}

// sweep(): an entry whose deleter ran is free again.
void Sweep(StructSlab* slab, int entry) {
  ASSERT_EQ(StateOf(slab, entry), kReleased);
  SetState(slab, entry, kFree);
}

// What a consumer holding the pointer does when it is done.
void Delete(DLManagedTensorVersioned* self) { self->deleter(self); }

// --- Fixture --------------------------------------------------------------------

// Each test gets a slab serving owner_, acquired as a new environment's
// (attach(): entries whose deleters ran are free again). Every slab a test
// acquires and does not detach itself is given back in TearDown, which
// expects no struct still out; leftovers of a failed test are cleared so
// that the tests reusing the slab do not fail with it.
class StructSlabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    owner_ = std::make_shared<CountingOwner>();
    slab_ = Acquire(owner_);
    ASSERT_NE(slab_, nullptr) << "the process has no slab left";
  }

  void TearDown() override {
    for (StructSlab* slab : held_) EXPECT_EQ(slab->Detach(), 0) << "a test left structs out";
    held_.clear();
    for (StructSlab* slab : used_) {
      for (int i = 0; i < kEntries; ++i) SetState(slab, i, kFree);
    }
  }

  StructSlab* Acquire(std::shared_ptr<SlabOwner> owner) {
    StructSlab* slab = StructSlab::Acquire(std::move(owner));
    if (slab == nullptr) return nullptr;
    held_.push_back(slab);
    used_.insert(slab);
    for (int i = 0; i < kEntries; ++i) {
      if (StateOf(slab, i) == kReleased) SetState(slab, i, kFree);
    }
    return slab;
  }

  // Gives `slab` back now (its environment ends); the structs still out.
  int Detach(StructSlab* slab) {
    held_.erase(std::find(held_.begin(), held_.end(), slab));
    return slab->Detach();
  }

  std::shared_ptr<CountingOwner> owner_;
  StructSlab* slab_ = nullptr;
  std::vector<StructSlab*> held_;
  std::set<StructSlab*> used_;
  alignas(16) float data_[6] = {};
};

// --- Acquire and Detach -----------------------------------------------------------

TEST_F(StructSlabTest, AcquiredSlabServesItsOwnerAndStartsFree) {
  // Alone in its process (ctest runs each test so), the slab is a new one.
  EXPECT_EQ(slab_->owner(), owner_);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(slab_->memory()) % 64, 0u) << "entries sit on cache lines";
  for (int i = 0; i < kEntries; ++i) EXPECT_EQ(StateOf(slab_, i), kFree) << i;
  EXPECT_NE(StructSlab::deleter(), nullptr);
}

TEST_F(StructSlabTest, DetachPoolsTheSlabCountsWhatIsOutAndDropsTheOwner) {
  Fill(slab_, 0, data_);                             // out
  ASSERT_TRUE(slab_->Adopt(Fill(slab_, 1, data_)));  // adopted
  Delete(Fill(slab_, 2, data_));                     // released: not out
  Fill(slab_, 3, data_);
  TakeBack(slab_, 3);  // taken back: free
  ASSERT_EQ(owner_->count(), 1);

  std::weak_ptr<CountingOwner> old_owner = owner_;
  owner_.reset();
  ASSERT_FALSE(old_owner.expired()) << "the slab holds its owner while it serves it";
  EXPECT_EQ(Detach(slab_), 2);
  EXPECT_TRUE(old_owner.expired())
      << "a pooled slab must not keep an ended environment's owner alive";
  EXPECT_EQ(slab_->owner(), nullptr);

  // The next environment gets the pooled slab, not a new one; its structs
  // still out stay out, and their deleters now wake the new owner.
  auto next_owner = std::make_shared<CountingOwner>();
  ASSERT_EQ(Acquire(next_owner), slab_);
  EXPECT_EQ(slab_->owner(), next_owner);
  EXPECT_EQ(StateOf(slab_, 0), kOut);
  EXPECT_EQ(StateOf(slab_, 1), kAdopted);
  EXPECT_EQ(StateOf(slab_, 2), kFree);
  Delete(StructAt(slab_, 0));
  slab_->Disown(StructAt(slab_, 1));
  Delete(StructAt(slab_, 1));
  EXPECT_EQ(next_owner->count(), 2);
}

TEST_F(StructSlabTest, AStructIsCountedOnlyWhenTheEnvironmentThatFilledItEnds) {
  DLManagedTensorVersioned* left = Fill(slab_, 0, data_);
  const int32_t first_epoch = slab_->epoch();
  EXPECT_EQ(Detach(slab_), 1);  // the first environment ends with it out: it warns
  auto next_owner = std::make_shared<CountingOwner>();
  ASSERT_EQ(Acquire(next_owner), slab_);
  EXPECT_NE(slab_->epoch(), first_epoch);
  Fill(slab_, 1, data_);
  // The second ends with both out, but filled only one: the other was told already.
  EXPECT_EQ(Detach(slab_), 1);
  ASSERT_EQ(Acquire(next_owner), slab_);
  Delete(left);
  Delete(StructAt(slab_, 1));
  EXPECT_EQ(next_owner->count(), 2);
}

// Issue 20, HIGH 1+2: an import asks who filled the entry, not who holds the slab.
TEST_F(StructSlabTest, FillerOfIsTheOwnerOnlyForEntriesOfItsEpoch) {
  DLManagedTensorVersioned* stale = Fill(slab_, 0, data_);
  EXPECT_EQ(slab_->FillerOf(stale), owner_);
  EXPECT_EQ(Detach(slab_), 1);
  EXPECT_EQ(slab_->FillerOf(stale), nullptr) << "pooled: its environment ended";
  auto next_owner = std::make_shared<CountingOwner>();
  ASSERT_EQ(Acquire(next_owner), slab_);
  EXPECT_EQ(slab_->owner(), next_owner);
  EXPECT_EQ(slab_->FillerOf(stale), nullptr)
      << "a dead environment's entry is not the slab's new owner's";
  DLManagedTensorVersioned* fresh = Fill(slab_, 1, data_);
  EXPECT_EQ(slab_->FillerOf(fresh), next_owner);
  Delete(stale);
  Delete(fresh);
}

TEST_F(StructSlabTest, SlabsServingLiveOwnersAreDistinctAndTheProcessHasALimit) {
  // Takes every slab the process may have, then gives them all back: the
  // pool serves the tests that run after this one.
  std::vector<StructSlab*> taken{slab_};
  auto other_owner = std::make_shared<CountingOwner>();
  for (int i = 0; i < 1000; ++i) {
    StructSlab* slab = Acquire(other_owner);
    if (slab == nullptr) break;
    taken.push_back(slab);
  }
  ASSERT_LT(taken.size(), 1000u) << "Acquire never refused: the slabs are unbounded";
  const std::set<StructSlab*> distinct(taken.begin(), taken.end());
  EXPECT_EQ(distinct.size(), taken.size()) << "two live owners share a slab";
  for (StructSlab* slab : taken) {
    EXPECT_EQ(StructSlab::Find(EntryAt(slab, 0)), slab);
    EXPECT_EQ(StructSlab::Find(EntryAt(slab, kEntries - 1)), slab);
  }

  // At the limit, a slab given back is the next one handed out.
  StructSlab* last = taken.back();
  EXPECT_EQ(Detach(last), 0);
  EXPECT_EQ(Acquire(other_owner), last);
  EXPECT_EQ(last->owner(), other_owner);
}

// --- Find ----------------------------------------------------------------------------

TEST_F(StructSlabTest, FindKnowsTheStartOfEveryEntryAndNothingElse) {
  for (int i = 0; i < kEntries; ++i) EXPECT_EQ(StructSlab::Find(EntryAt(slab_, i)), slab_) << i;

  for (size_t at = 0; at < StructSlab::kHeaderSize; at += 8) {
    EXPECT_EQ(StructSlab::Find(slab_->memory() + at), nullptr) << "header byte " << at;
  }
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, 0) + 1), nullptr);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, 0) + offsetof(DLManagedTensorVersioned, dl_tensor)),
            nullptr);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, 7) + StructSlab::kShapeOffset), nullptr);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, 7) + StructSlab::kStridesOffset), nullptr);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, kEntries - 1) + StructSlab::kStateOffset), nullptr);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, kEntries - 1) + StructSlab::kEntrySize - 1), nullptr);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, kEntries)), nullptr) << "one past the last entry";
  EXPECT_EQ(StructSlab::Find(slab_->memory() + StructSlab::kBytes), nullptr);
  EXPECT_EQ(StructSlab::Find(nullptr), nullptr);
  auto heap = std::make_unique<DLManagedTensorVersioned>();
  EXPECT_EQ(StructSlab::Find(heap.get()), nullptr);
  EXPECT_EQ(StructSlab::Find(data_), nullptr);

  // A second slab's entries are its own.
  StructSlab* other = Acquire(std::make_shared<CountingOwner>());
  ASSERT_NE(other, nullptr);
  ASSERT_NE(other, slab_);
  EXPECT_EQ(StructSlab::Find(EntryAt(other, 0)), other);
  EXPECT_EQ(StructSlab::Find(EntryAt(other, kEntries - 1)), other);
  EXPECT_EQ(StructSlab::Find(EntryAt(slab_, 0)), slab_);
}

// --- Adopt and Disown ----------------------------------------------------------------

TEST_F(StructSlabTest, AnOutStructIsAdoptedOnceUntilDisowned) {
  DLManagedTensorVersioned* out = Fill(slab_, 0, data_);
  EXPECT_TRUE(slab_->Adopt(out));
  EXPECT_EQ(StateOf(slab_, 0), kAdopted);
  EXPECT_FALSE(slab_->Adopt(out)) << "a second adoption would call the deleter twice";
  EXPECT_EQ(StateOf(slab_, 0), kAdopted);

  slab_->Disown(out);  // handed out again (toPointer)
  EXPECT_EQ(StateOf(slab_, 0), kOut);
  EXPECT_TRUE(slab_->Adopt(out));
  slab_->Disown(out);
  TakeBack(slab_, 0);
  EXPECT_EQ(owner_->count(), 0) << "adoption and hand-back free nothing";
}

TEST_F(StructSlabTest, OnlyAnOutStructIsAdopted) {
  EXPECT_FALSE(slab_->Adopt(EntryAt(slab_, 1))) << "free: nobody holds it";
  EXPECT_EQ(StateOf(slab_, 1), kFree);

  DLManagedTensorVersioned* deleted = Fill(slab_, 2, data_);
  Delete(deleted);
  EXPECT_FALSE(slab_->Adopt(deleted)) << "released: its deleter already ran";
  EXPECT_EQ(StateOf(slab_, 2), kReleased);

  DLManagedTensorVersioned* taken = Fill(slab_, 3, data_);
  TakeBack(slab_, 3);
  EXPECT_FALSE(slab_->Adopt(taken)) << "taken back by JS";
  EXPECT_EQ(StateOf(slab_, 3), kFree);
}

// --- The deleter ---------------------------------------------------------------------

TEST_F(StructSlabTest, TheDeleterReleasesTheEntryCountsAndTellsTheOwnerOnce) {
  const uint32_t deleted = Deletions(slab_);
  DLManagedTensorVersioned* a = Fill(slab_, 0, data_);
  DLManagedTensorVersioned* b = Fill(slab_, 1, data_);
  DLManagedTensorVersioned* c = Fill(slab_, 2, data_);

  Delete(a);
  EXPECT_EQ(StateOf(slab_, 0), kReleased);
  EXPECT_EQ(Deletions(slab_) - deleted, 1u);
  EXPECT_EQ(owner_->count(), 1);
  EXPECT_EQ(StateOf(slab_, 1), kOut) << "its neighbours are untouched";
  EXPECT_EQ(a->dl_tensor.data, data_) << "the struct itself is left for JS";

  // JS frees the entry and fills it again: one more deletion, one more call.
  Sweep(slab_, 0);
  a = Fill(slab_, 0, data_);
  Delete(a);
  EXPECT_EQ(Deletions(slab_) - deleted, 2u);
  EXPECT_EQ(owner_->count(), 2);

  // An adopted struct is deleted by its adopter the same way.
  ASSERT_TRUE(slab_->Adopt(b));
  Delete(b);
  EXPECT_EQ(StateOf(slab_, 1), kReleased);
  EXPECT_EQ(Deletions(slab_) - deleted, 3u);
  EXPECT_EQ(owner_->count(), 3);

  // The environment ends with `c` out: its deleter still runs, and tells nobody.
  EXPECT_EQ(Detach(slab_), 1);
  Delete(c);
  EXPECT_EQ(StateOf(slab_, 2), kReleased);
  EXPECT_EQ(Deletions(slab_) - deleted, 4u);
  EXPECT_EQ(owner_->count(), 3);
}

// Issue 20, LOW 10: out or adopted -> released once; every later call is ignored.
TEST_F(StructSlabTest, ASecondDeleteChangesNothing) {
  const uint32_t deleted = Deletions(slab_);
  DLManagedTensorVersioned* a = Fill(slab_, 0, data_);
  Delete(a);
  Delete(a);
  EXPECT_EQ(StateOf(slab_, 0), kReleased);
  EXPECT_EQ(Deletions(slab_) - deleted, 1u);
  EXPECT_EQ(owner_->count(), 1);
  Sweep(slab_, 0);
  Delete(a);  // after JS freed the entry: it stays free
  EXPECT_EQ(StateOf(slab_, 0), kFree);
  EXPECT_EQ(Deletions(slab_) - deleted, 1u);
  EXPECT_EQ(owner_->count(), 1);
}

TEST_F(StructSlabTest, InsideKnowsEveryByteOfEverySlab) {
  const char* first = EntryAt(slab_, 0);
  EXPECT_TRUE(StructSlab::Inside(slab_->memory()));
  EXPECT_TRUE(StructSlab::Inside(first + 8));
  EXPECT_TRUE(StructSlab::Inside(slab_->memory() + StructSlab::kBytes - 1));
  EXPECT_FALSE(StructSlab::Inside(slab_->memory() + StructSlab::kBytes));
  EXPECT_FALSE(StructSlab::Inside(data_));
  EXPECT_EQ(StructSlab::Find(first + 8), nullptr);
}

TEST_F(StructSlabTest, DeletersFromManyThreadsAreEachCountedOnce) {
  // Each thread deletes its own entries, half of them directly and half
  // through an adopting ManagedTensor; JS frees and refills between rounds.
  constexpr int kThreads = 8;
  constexpr int kPerThread = kEntries / kThreads;
  constexpr int kRounds = 20;
  const uint32_t deleted = Deletions(slab_);
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kEntries; ++i) {
      if (round > 0) Sweep(slab_, i);
      Fill(slab_, i, data_);
    }
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([this, &go, t] {
        while (!go.load()) std::this_thread::yield();
        for (int i = t * kPerThread; i < (t + 1) * kPerThread; ++i) {
          DLManagedTensorVersioned* self = StructAt(slab_, i);
          if (i % 2 == 0) {
            Delete(self);
          } else {
            EXPECT_TRUE(ManagedTensor::Adopt(self)) << i;
            ManagedTensor(self, true).reset();
          }
        }
      });
    }
    go = true;
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < kEntries; ++i) {
      ASSERT_EQ(StateOf(slab_, i), kReleased) << "round " << round << ", entry " << i;
    }
  }
  EXPECT_EQ(Deletions(slab_) - deleted, static_cast<uint32_t>(kEntries * kRounds));
  EXPECT_EQ(owner_->count(), kEntries * kRounds);
}

TEST_F(StructSlabTest, DeletersRacingTheEnvironmentsEndStillReleaseEveryEntry) {
  // The owner is dropped while deleters run on other threads: each of them
  // tells the owner or nobody, and the owner dies with the last reference.
  constexpr int kThreads = 4;
  constexpr int kPerThread = kEntries / kThreads;
  const uint32_t deleted = Deletions(slab_);
  for (int i = 0; i < kEntries; ++i) Fill(slab_, i, data_);
  std::weak_ptr<CountingOwner> watch = owner_;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, &go, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = t * kPerThread; i < (t + 1) * kPerThread; ++i) Delete(StructAt(slab_, i));
    });
  }
  go = true;
  const int out = Detach(slab_);
  for (std::thread& t : threads) t.join();
  EXPECT_GE(out, 0);
  EXPECT_LE(out, kEntries);
  for (int i = 0; i < kEntries; ++i) EXPECT_EQ(StateOf(slab_, i), kReleased) << i;
  EXPECT_EQ(Deletions(slab_) - deleted, static_cast<uint32_t>(kEntries));
  EXPECT_LE(owner_->count(), kEntries) << "an owner told more often than structs were deleted";
  owner_.reset();
  EXPECT_TRUE(watch.expired()) << "no deleter kept the ended owner";
}

// --- ManagedTensor ---------------------------------------------------------------------

TEST_F(StructSlabTest, ManagedTensorAdoptsAnOutStructOnceAndItsResetDeletesIt) {
  const uint32_t deleted = Deletions(slab_);
  DLManagedTensorVersioned* a = Fill(slab_, 0, data_);
  ASSERT_TRUE(ManagedTensor::Adopt(a));
  EXPECT_EQ(StateOf(slab_, 0), kAdopted)
      << "the slab's state word is the record, not the address set";
  EXPECT_FALSE(ManagedTensor::Adopt(a));
  ManagedTensor held(a, true);
  held.reset();
  EXPECT_EQ(StateOf(slab_, 0), kReleased);
  EXPECT_EQ(Deletions(slab_) - deleted, 1u);
  EXPECT_EQ(owner_->count(), 1);
  held.reset();
  EXPECT_EQ(owner_->count(), 1) << "nothing held: no second deletion";
  EXPECT_FALSE(ManagedTensor::Adopt(a)) << "deleted: not adopted again";

  // Freed by JS and filled again at the same address: adoptable again.
  Sweep(slab_, 0);
  a = Fill(slab_, 0, data_);
  ASSERT_TRUE(ManagedTensor::Adopt(a));
  { ManagedTensor dropped(a, true); }
  EXPECT_EQ(StateOf(slab_, 0), kReleased);
  EXPECT_EQ(owner_->count(), 2);
}

TEST_F(StructSlabTest, ManagedTensorRefusesAFreeEntry) {
  // A plain address would be entered in the adoption record; a slab entry
  // nobody holds is not adoptable.
  EXPECT_FALSE(ManagedTensor::Adopt(EntryAt(slab_, 4)));
  EXPECT_EQ(StateOf(slab_, 4), kFree);
}

TEST_F(StructSlabTest, ManagedTensorReleaseHandsTheStructOutAgain) {
  DLManagedTensorVersioned* b = Fill(slab_, 1, data_);
  ASSERT_TRUE(ManagedTensor::Adopt(b));
  ManagedTensor held(b, true);
  EXPECT_EQ(held.release(), b);
  EXPECT_EQ(StateOf(slab_, 1), kOut);
  EXPECT_EQ(owner_->count(), 0) << "handed out, not deleted";
  ASSERT_TRUE(ManagedTensor::Adopt(b)) << "out again: adoptable once more";
  ManagedTensor(b, true).release();
  TakeBack(slab_, 1);  // and JS may take it back
}

TEST_F(StructSlabTest, ForeignStorageOverASlabStructDeletesItOnTheLastRelease) {
  // The native import path: the adopted struct becomes a NativeMemory whose
  // last reference runs the slab's deleter, here on another thread.
  DLManagedTensorVersioned* a = Fill(slab_, 0, data_);
  ASSERT_TRUE(ManagedTensor::Adopt(a));
  auto* storage = new ForeignStorage(ManagedTensor(a, true), data_, sizeof(data_));
  storage->Retain();
  storage->Release();
  EXPECT_EQ(StateOf(slab_, 0), kAdopted);
  std::thread([storage] { storage->Release(); }).join();
  EXPECT_EQ(StateOf(slab_, 0), kReleased);
  EXPECT_EQ(owner_->count(), 1);
}

// --- Counters ----------------------------------------------------------------------------

TEST_F(StructSlabTest, StatsSumWhatJsFilledAndTookBackAndWhatWasDeleted) {
  const int64_t made = dlnode::SlabStructsMade();
  const int64_t freed = dlnode::SlabStructsFreed();
  const int64_t slab_filled = slab_->filled();
  const int64_t slab_freed = slab_->freed();
  DLManagedTensorVersioned* a = Fill(slab_, 0, data_);
  Fill(slab_, 1, data_);
  Fill(slab_, 2, data_);
  EXPECT_EQ(dlnode::SlabStructsMade() - made, 3);
  EXPECT_EQ(dlnode::SlabStructsFreed() - freed, 0);

  TakeBack(slab_, 1);
  EXPECT_EQ(dlnode::SlabStructsFreed() - freed, 1);
  Delete(a);
  EXPECT_EQ(dlnode::SlabStructsFreed() - freed, 2);

  // Every slab counts, not only the one in use.
  StructSlab* other = Acquire(std::make_shared<CountingOwner>());
  ASSERT_NE(other, nullptr);
  Fill(other, 0, data_);
  EXPECT_EQ(dlnode::SlabStructsMade() - made, 4);
  TakeBack(other, 0);
  EXPECT_EQ(dlnode::SlabStructsFreed() - freed, 3);

  ASSERT_TRUE(slab_->Adopt(StructAt(slab_, 2)));
  ManagedTensor(StructAt(slab_, 2), true).reset();
  EXPECT_EQ(dlnode::SlabStructsMade() - made, 4);
  EXPECT_EQ(dlnode::SlabStructsFreed() - freed, 4) << "every struct made is freed once";
  EXPECT_EQ(slab_->filled() - slab_filled, 3);
  EXPECT_EQ(slab_->freed() - slab_freed, 3);
}

}  // namespace
