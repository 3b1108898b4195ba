// Managed tensors: the fields NewVersioned/NewLegacy fill in, the single
// allocation, the deleter releasing the Keepalive exactly once, TakeOwn,
// ForeignStorage's reference count across threads, and the record of adopted
// structs. Every test checks that the process-wide live counters return to
// where they started.
#include "managed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "stats.h"

namespace {

using dlnode::ExportSpec;
using dlnode::ForeignStorage;
using dlnode::Keepalive;
using dlnode::ManagedTensor;
using dlnode::Ref;
namespace stats = dlnode::stats;

// A Keepalive that counts its releases instead of freeing anything.
class CountingKeepalive final : public Keepalive {
 public:
  Kind kind() const override { return Kind::kJsBuffer; }
  void Release() noexcept override { releases.fetch_add(1); }
  std::atomic<int> releases{0};
};

// Snapshot of the live counters, compared again in TearDown.
class ManagedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    managed_before_ = stats::managed_live.load();
    foreign_before_ = stats::foreign_live.load();
  }
  void TearDown() override {
    EXPECT_EQ(stats::managed_live.load(), managed_before_) << "a managed tensor leaked";
    EXPECT_EQ(stats::foreign_live.load(), foreign_before_) << "a foreign tensor leaked";
  }

  ExportSpec Spec(int32_t ndim, const int64_t* shape, const int64_t* strides) {
    ExportSpec spec{};
    spec.data = data_;
    spec.device = {kDLCPU, 0};
    spec.ndim = ndim;
    spec.dtype = {kDLFloat, 32, 1};
    spec.shape = shape;
    spec.strides = strides;
    spec.flags = 0;
    return spec;
  }

  // The fixture's counting keepalive, as the reference a new struct takes.
  Ref<Keepalive> Keep() { return Ref<Keepalive>::adopt(&keepalive_); }

  int64_t managed_before_ = 0;
  int64_t foreign_before_ = 0;
  CountingKeepalive keepalive_;
  alignas(16) float data_[64] = {};
};

const int64_t kShape[] = {2, 3, 4};
const int64_t kStrides[] = {1, 2, 6};  // column-major, to tell it from a copy of shape

template <typename Managed>
void ExpectSingleAllocationLayout(const Managed* self, int ndim) {
  const DLTensor& t = self->dl_tensor;
  const auto* tail =
      reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(self) + sizeof(Managed));
  EXPECT_EQ(t.shape, tail) << "shape must follow the struct in the same allocation";
  EXPECT_EQ(t.strides, tail + ndim) << "strides must follow shape";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.shape) % alignof(int64_t), 0u);
}

TEST_F(ManagedTest, NewVersionedFillsEveryField) {
  const int64_t live = stats::managed_live.load();
  ExportSpec spec = Spec(3, kShape, kStrides);
  spec.device = {kDLCUDAHost, 2};
  spec.dtype = {kDLComplex, 128, 1};
  spec.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  DLManagedTensorVersioned* m = dlnode::NewVersioned(spec, Keep());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(stats::managed_live.load(), live + 1);

  EXPECT_EQ(m->version.major, 1u);
  EXPECT_EQ(m->version.minor, 3u);
  EXPECT_EQ(m->flags, DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED);
  EXPECT_EQ(m->manager_ctx, &keepalive_);
  EXPECT_NE(m->deleter, nullptr);
  const DLTensor& t = m->dl_tensor;
  EXPECT_EQ(&dlnode::TensorOf(m), &t);
  EXPECT_EQ(t.data, data_);
  EXPECT_EQ(t.device.device_type, kDLCUDAHost);
  EXPECT_EQ(t.device.device_id, 2);
  EXPECT_EQ(t.ndim, 3);
  EXPECT_EQ(t.dtype.code, kDLComplex);
  EXPECT_EQ(t.dtype.bits, 128);
  EXPECT_EQ(t.dtype.lanes, 1);
  EXPECT_EQ(t.byte_offset, 0u);
  ASSERT_NE(t.shape, nullptr);
  ASSERT_NE(t.strides, nullptr);
  EXPECT_NE(t.shape, kShape) << "shape must be copied, not borrowed";
  EXPECT_NE(t.strides, kStrides) << "strides must be copied, not borrowed";
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(t.shape[i], kShape[i]);
    EXPECT_EQ(t.strides[i], kStrides[i]);
  }
  ExpectSingleAllocationLayout(m, 3);

  m->deleter(m);
  EXPECT_EQ(keepalive_.releases.load(), 1);
  EXPECT_EQ(stats::managed_live.load(), live);
}

TEST_F(ManagedTest, NewLegacyFillsEveryField) {
  const int64_t live = stats::managed_live.load();
  const int64_t shape[] = {5, 7};
  const int64_t strides[] = {7, 1};
  ExportSpec spec = Spec(2, shape, strides);
  spec.dtype = {kDLInt, 16, 1};
  spec.flags = DLPACK_FLAG_BITMASK_READ_ONLY;  // legacy has nowhere to put it
  DLManagedTensor* m = dlnode::NewLegacy(spec, Keep());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(stats::managed_live.load(), live + 1);

  EXPECT_EQ(m->manager_ctx, &keepalive_);
  EXPECT_NE(m->deleter, nullptr);
  const DLTensor& t = m->dl_tensor;
  EXPECT_EQ(&dlnode::TensorOf(m), &t);
  EXPECT_EQ(t.data, data_);
  EXPECT_EQ(t.device.device_type, kDLCPU);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.dtype.code, kDLInt);
  EXPECT_EQ(t.dtype.bits, 16);
  EXPECT_EQ(t.dtype.lanes, 1);
  EXPECT_EQ(t.byte_offset, 0u);
  EXPECT_EQ(t.shape[0], 5);
  EXPECT_EQ(t.shape[1], 7);
  EXPECT_EQ(t.strides[0], 7);
  EXPECT_EQ(t.strides[1], 1);
  ExpectSingleAllocationLayout(m, 2);

  m->deleter(m);
  EXPECT_EQ(keepalive_.releases.load(), 1);
  EXPECT_EQ(stats::managed_live.load(), live);
}

TEST_F(ManagedTest, ZeroDimHasNullShapeAndStrides) {
  DLManagedTensorVersioned* v = dlnode::NewVersioned(Spec(0, nullptr, nullptr), Keep());
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->dl_tensor.ndim, 0);
  EXPECT_EQ(v->dl_tensor.shape, nullptr);
  EXPECT_EQ(v->dl_tensor.strides, nullptr);
  v->deleter(v);

  DLManagedTensor* l = dlnode::NewLegacy(Spec(0, nullptr, nullptr), Keep());
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->dl_tensor.shape, nullptr);
  EXPECT_EQ(l->dl_tensor.strides, nullptr);
  l->deleter(l);
  EXPECT_EQ(keepalive_.releases.load(), 2);
}

TEST_F(ManagedTest, MaximumNdimFitsInTheTail) {
  std::vector<int64_t> shape(64, 1);
  std::vector<int64_t> strides(64);
  for (int i = 0; i < 64; ++i) strides[i] = 1000 + i;
  DLManagedTensorVersioned* m =
      dlnode::NewVersioned(Spec(64, shape.data(), strides.data()), Keep());
  ASSERT_NE(m, nullptr);
  ExpectSingleAllocationLayout(m, 64);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(m->dl_tensor.shape[i], 1);
    EXPECT_EQ(m->dl_tensor.strides[i], 1000 + i);
  }
  m->deleter(m);
}

TEST_F(ManagedTest, DeleterMayRunOnAnotherThread) {
  DLManagedTensorVersioned* v = dlnode::NewVersioned(Spec(3, kShape, kStrides), Keep());
  DLManagedTensor* l = dlnode::NewLegacy(Spec(3, kShape, kStrides), Keep());
  ASSERT_NE(v, nullptr);
  ASSERT_NE(l, nullptr);
  std::thread([v, l] {
    v->deleter(v);
    l->deleter(l);
  }).join();
  EXPECT_EQ(keepalive_.releases.load(), 2);
}

TEST_F(ManagedTest, NullKeepaliveIsAllowed) {
  ExportSpec spec = Spec(1, kShape, kStrides);
  DLManagedTensorVersioned* m = dlnode::NewVersioned(spec, Ref<Keepalive>());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->manager_ctx, nullptr);
  m->deleter(m);
  EXPECT_EQ(keepalive_.releases.load(), 0);
}

void ForeignVersionedDeleter(DLManagedTensorVersioned*) {}
void ForeignLegacyDeleter(DLManagedTensor*) {}

TEST_F(ManagedTest, IsOwnDeleterTellsOursFromForeign) {
  DLManagedTensorVersioned* v = dlnode::NewVersioned(Spec(3, kShape, kStrides), Keep());
  DLManagedTensor* l = dlnode::NewLegacy(Spec(3, kShape, kStrides), Keep());
  ASSERT_NE(v, nullptr);
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(dlnode::IsOwnDeleter(v));
  EXPECT_TRUE(dlnode::IsOwnDeleter(l));
  {
    ManagedTensor mv(v, true);
    ManagedTensor ml(l, false);
    EXPECT_TRUE(mv.own());
    EXPECT_TRUE(ml.own());
    EXPECT_EQ(mv.tensor(), &v->dl_tensor);
    EXPECT_EQ(ml.tensor(), &l->dl_tensor);
    EXPECT_EQ(mv.release(), v);  // the raw deleters below free them
    EXPECT_EQ(ml.release(), l);
  }

  DLManagedTensorVersioned foreign_v{};
  foreign_v.deleter = &ForeignVersionedDeleter;
  DLManagedTensor foreign_l{};
  foreign_l.deleter = &ForeignLegacyDeleter;
  EXPECT_FALSE(dlnode::IsOwnDeleter(&foreign_v));
  EXPECT_FALSE(dlnode::IsOwnDeleter(&foreign_l));
  {
    ManagedTensor mv(&foreign_v, true);
    ManagedTensor ml(&foreign_l, false);
    EXPECT_FALSE(mv.own());
    EXPECT_FALSE(ml.own());
    mv.release();
    ml.release();
  }
  foreign_v.deleter = nullptr;
  foreign_l.deleter = nullptr;
  EXPECT_FALSE(dlnode::IsOwnDeleter(&foreign_v));
  EXPECT_FALSE(dlnode::IsOwnDeleter(&foreign_l));

  v->deleter(v);
  l->deleter(l);
}

TEST_F(ManagedTest, TakeOwnFreesAndHandsBackTheKeepaliveUnreleased) {
  const int64_t live = stats::managed_live.load();
  DLManagedTensorVersioned* v = dlnode::NewVersioned(Spec(3, kShape, kStrides), Keep());
  DLManagedTensor* l = dlnode::NewLegacy(Spec(3, kShape, kStrides), Keep());
  ASSERT_NE(v, nullptr);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(stats::managed_live.load(), live + 2);

  EXPECT_EQ(dlnode::TakeOwn(v).release(), &keepalive_);
  EXPECT_EQ(dlnode::TakeOwn(l).release(), &keepalive_);
  EXPECT_EQ(keepalive_.releases.load(), 0) << "TakeOwn must not release";
  EXPECT_EQ(stats::managed_live.load(), live);
}

// --- ForeignStorage ------------------------------------------------------------

// A producer's managed tensor whose deleter counts its calls.
std::atomic<int> g_foreign_deletes{0};
void CountingVersionedDeleter(DLManagedTensorVersioned*) { g_foreign_deletes.fetch_add(1); }
void CountingLegacyDeleter(DLManagedTensor*) { g_foreign_deletes.fetch_add(1); }

class ForeignStorageTest : public ManagedTest {
 protected:
  void SetUp() override {
    ManagedTest::SetUp();
    g_foreign_deletes = 0;
  }
};

TEST_F(ForeignStorageTest, RecordsBaseAndLengthAndKind) {
  DLManagedTensorVersioned producer{};
  producer.deleter = &CountingVersionedDeleter;
  auto* storage = new ForeignStorage(ManagedTensor(&producer, true), data_, sizeof(data_));
  EXPECT_EQ(stats::foreign_live.load(), foreign_before_ + 1);
  EXPECT_EQ(storage->base(), data_);
  EXPECT_EQ(storage->length(), sizeof(data_));
  EXPECT_EQ(storage->kind(), Keepalive::Kind::kNative);
  storage->Release();
  EXPECT_EQ(g_foreign_deletes.load(), 1);
}

TEST_F(ForeignStorageTest, LastReleaseCallsTheDeleterOnce) {
  DLManagedTensor producer{};
  producer.deleter = &CountingLegacyDeleter;
  auto* storage = new ForeignStorage(ManagedTensor(&producer, false), data_, sizeof(data_));
  storage->Retain();
  storage->Retain();
  storage->Release();
  storage->Release();
  EXPECT_EQ(g_foreign_deletes.load(), 0);
  EXPECT_EQ(stats::foreign_live.load(), foreign_before_ + 1);
  storage->Release();
  EXPECT_EQ(g_foreign_deletes.load(), 1);
  EXPECT_EQ(stats::foreign_live.load(), foreign_before_);
}

TEST_F(ForeignStorageTest, RetainAndReleaseFromManyThreads) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20000;
  for (bool versioned : {true, false}) {
    g_foreign_deletes = 0;
    DLManagedTensorVersioned producer_v{};
    producer_v.deleter = &CountingVersionedDeleter;
    DLManagedTensor producer_l{};
    producer_l.deleter = &CountingLegacyDeleter;
    ManagedTensor managed =
        versioned ? ManagedTensor(&producer_v, true) : ManagedTensor(&producer_l, false);
    auto* storage = new ForeignStorage(std::move(managed), data_, sizeof(data_));
    // One reference per thread, taken before it starts; the initial one is
    // dropped while the threads run, so whichever thread ends last deletes.
    for (int i = 0; i < kThreads; ++i) storage->Retain();
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&go, storage] {
        while (!go.load()) std::this_thread::yield();
        for (int r = 0; r < kRounds; ++r) {
          storage->Retain();
          storage->Release();
        }
        storage->Release();
      });
    }
    go = true;
    storage->Release();
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(g_foreign_deletes.load(), 1) << (versioned ? "versioned" : "legacy");
    EXPECT_EQ(stats::foreign_live.load(), foreign_before_);
  }
}

TEST_F(ForeignStorageTest, NullDeleterIsNeverCalled) {
  // DLPack allows a NULL deleter; calling it would crash.
  DLManagedTensorVersioned producer_v{};
  DLManagedTensor producer_l{};
  auto* v = new ForeignStorage(ManagedTensor(&producer_v, true), data_, sizeof(data_));
  auto* l = new ForeignStorage(ManagedTensor(&producer_l, false), data_, sizeof(data_));
  EXPECT_EQ(stats::foreign_live.load(), foreign_before_ + 2);
  v->Retain();
  std::thread([v] { v->Release(); }).join();
  v->Release();
  l->Release();
  EXPECT_EQ(stats::foreign_live.load(), foreign_before_);
}

TEST_F(ForeignStorageTest, ReExportingAdoptedMemoryChainsTheReleases) {
  // Import adopts a producer's tensor, then exports it again: the new managed
  // tensor's Keepalive is the ForeignStorage, so the producer's deleter runs
  // only when both the importer's reference and the re-export are gone.
  DLManagedTensorVersioned producer{};
  producer.deleter = &CountingVersionedDeleter;
  auto* storage = new ForeignStorage(ManagedTensor(&producer, true), data_, sizeof(data_));
  storage->Retain();
  DLManagedTensorVersioned* reexport =
      dlnode::NewVersioned(Spec(3, kShape, kStrides), Ref<Keepalive>::adopt(storage));
  ASSERT_NE(reexport, nullptr);
  storage->Release();
  EXPECT_EQ(g_foreign_deletes.load(), 0);
  reexport->deleter(reexport);
  EXPECT_EQ(g_foreign_deletes.load(), 1);
}

}  // namespace

TEST(ManagedTensorAdopt, AStructIsAdoptedOnceUntilItsDeleterRunsOrItIsHandedBack) {
  DLManagedTensorVersioned producer{};  // NULL deleter: dropping it only ends the adoption
  ASSERT_TRUE(ManagedTensor::Adopt(&producer));
  EXPECT_FALSE(ManagedTensor::Adopt(&producer));  // the address is what is owned, whatever the ABI
  ManagedTensor managed(&producer, true);
  EXPECT_EQ(managed.release(), &producer);  // handed back (toPointer)
  ASSERT_TRUE(ManagedTensor::Adopt(&producer));
  managed = ManagedTensor(&producer, false);
  std::thread([m = std::move(managed)]() mutable {
    m.reset();
  }).join();  // deleted, on another thread
  ASSERT_TRUE(ManagedTensor::Adopt(&producer));
  ManagedTensor(&producer, true).release();
  EXPECT_TRUE(ManagedTensor::Adopt(&producer));  // released: adoptable again
  ManagedTensor(&producer, true).reset();
}

TEST(ManagedTensorAdopt, ThousandsOfAdoptionsStayExactThroughGrowthAndHandBacks) {
  // Neighbouring structs, as an allocator hands them out; the record grows
  // past its first size several times and erases from the middle of runs.
  constexpr int kCount = 5000;
  std::vector<DLManagedTensorVersioned> structs(kCount);  // NULL deleters
  const auto hand_back = [&](int i) { ManagedTensor(&structs[i], true).release(); };
  for (auto& s : structs) ASSERT_TRUE(ManagedTensor::Adopt(&s));
  for (auto& s : structs) EXPECT_FALSE(ManagedTensor::Adopt(&s));
  for (int i = 0; i < kCount; i += 2) hand_back(i);  // every other one leaves
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(ManagedTensor::Adopt(&structs[i]), i % 2 == 0)
        << i;  // those come back, the rest stay
  }
  for (int i = kCount - 1; i >= 0; --i) hand_back(i);
  for (auto& s : structs) ASSERT_TRUE(ManagedTensor::Adopt(&s));
  for (int i = 0; i < kCount; ++i) hand_back(i);
}

TEST(ManagedTensorAdopt, RandomAdoptionsAndHandBacksMatchASetModel) {
  // Deletion by backward shift must keep every later member of a probe run
  // reachable, including one whose home is the slot being emptied. Evenly
  // spaced addresses hash to evenly spread slots, so the structs are a random
  // subset of a larger array, numerous enough to load the record (process-wide,
  // never shrinking) near its limit of half full whatever ran before; a fixed
  // seed makes any failure repeatable.
  constexpr int kCount = 10000;
  std::vector<DLManagedTensorVersioned> pool(kCount * 10);  // NULL deleters
  std::mt19937 rng(12345);
  std::vector<DLManagedTensorVersioned*> structs;
  for (auto& s : pool) structs.push_back(&s);
  std::shuffle(structs.begin(), structs.end(), rng);
  structs.resize(kCount);
  std::vector<bool> adopted(kCount, false);
  for (int step = 0; step < 200000; ++step) {
    const int i = static_cast<int>(rng() % kCount);
    if (adopted[i] && rng() % 2 == 0) {
      ManagedTensor(structs[i], true).release();  // handed back
      adopted[i] = false;
    } else {
      ASSERT_EQ(ManagedTensor::Adopt(structs[i]), !adopted[i]) << "step " << step << ", " << i;
      adopted[i] = true;
    }
  }
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(ManagedTensor::Adopt(structs[i]), !adopted[i]) << i;
    ManagedTensor(structs[i], true).release();
  }
}

namespace {

std::atomic<int> g_owned_deletes{0};
void CountingOwnedDeleter(DLManagedTensorVersioned*) { g_owned_deletes.fetch_add(1); }
void CountingOwnedLegacyDeleter(DLManagedTensor*) { g_owned_deletes.fetch_add(1); }

// ManagedTensor: the one owner of a struct; every way out calls the deleter
// at most once.
TEST(ManagedTensor, DestructorCallsTheDeleterOnce) {
  g_owned_deletes = 0;
  DLManagedTensorVersioned v{};
  v.deleter = &CountingOwnedDeleter;
  DLManagedTensor l{};
  l.deleter = &CountingOwnedLegacyDeleter;
  {
    ManagedTensor a(&v, true);
    ManagedTensor b(&l, false);
    EXPECT_TRUE(a);
    EXPECT_EQ(a.as_versioned(), &v);
    EXPECT_EQ(b.as_versioned(), nullptr);
    EXPECT_EQ(a.tensor(), &v.dl_tensor);
    EXPECT_EQ(b.tensor(), &l.dl_tensor);
  }
  EXPECT_EQ(g_owned_deletes.load(), 2);
}

TEST(ManagedTensor, MovesCarryOwnershipAndLeaveTheSourceEmpty) {
  g_owned_deletes = 0;
  DLManagedTensorVersioned v{};
  v.deleter = &CountingOwnedDeleter;
  {
    ManagedTensor a(&v, true);
    ManagedTensor b(std::move(a));
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): the moved-from state is the contract
    EXPECT_EQ(b.get(), &v);
    ManagedTensor c;
    c = std::move(b);
    EXPECT_FALSE(b);                // NOLINT(bugprone-use-after-move)
    c = std::move(c);               // self-move keeps it
    EXPECT_EQ(c.get(), &v);         // NOLINT(bugprone-use-after-move): self-move is the contract
    ManagedTensor d(std::move(a));  // moving an empty one again: still nothing owned
    EXPECT_FALSE(d);
    EXPECT_EQ(g_owned_deletes.load(), 0);
  }
  EXPECT_EQ(g_owned_deletes.load(), 1);
}

TEST(ManagedTensor, AssigningOverAHeldStructDeletesTheOldOne) {
  g_owned_deletes = 0;
  DLManagedTensorVersioned first{};
  first.deleter = &CountingOwnedDeleter;
  DLManagedTensor second{};
  second.deleter = &CountingOwnedLegacyDeleter;
  ManagedTensor held(&first, true);
  held = ManagedTensor(&second, false);
  EXPECT_EQ(g_owned_deletes.load(), 1);
  EXPECT_FALSE(held.versioned());
  held.reset();
  held.reset();  // nothing left: no second call
  EXPECT_EQ(g_owned_deletes.load(), 2);
}

TEST(ManagedTensor, ReleaseHandsTheStructOutWithoutTheDeleter) {
  g_owned_deletes = 0;
  DLManagedTensorVersioned v{};
  v.deleter = &CountingOwnedDeleter;
  void* out = nullptr;
  {
    ManagedTensor a(&v, true);
    out = a.release();
    EXPECT_FALSE(a);
    EXPECT_EQ(a.release(), nullptr);
  }
  EXPECT_EQ(out, &v);
  EXPECT_EQ(g_owned_deletes.load(), 0);
}

TEST(ManagedTensor, NullDeleterIsNeverCalled) {
  DLManagedTensorVersioned v{};
  DLManagedTensor l{};
  ManagedTensor(&v, true).reset();
  { ManagedTensor dropped(&l, false); }
  SUCCEED();
}

TEST_F(ManagedTest, TakeOwnFreesOurStructAndHandsBackItsKeepalive) {
  DLManagedTensorVersioned* v = dlnode::NewVersioned(Spec(3, kShape, kStrides), Keep());
  ASSERT_NE(v, nullptr);
  ManagedTensor managed(v, true);
  ASSERT_TRUE(managed.own());
  Ref<Keepalive> keepalive = managed.TakeOwn();
  EXPECT_FALSE(managed);
  EXPECT_EQ(keepalive.get(), &keepalive_);
  EXPECT_EQ(keepalive_.releases.load(), 0);
  keepalive.reset();
  EXPECT_EQ(keepalive_.releases.load(), 1);
}

// Ref<T>: move-only; a copy is spelled share() or retain().
class Counted {
 public:
  void Retain() { ++refs; }
  void Release() {
    ++releases;
    --refs;
  }
  int refs = 1;
  int releases = 0;
};

TEST(Ref, DropReleasesOnceAndSharingRetains) {
  Counted c;
  {
    Ref<Counted> a = Ref<Counted>::adopt(&c);
    EXPECT_EQ(a.get(), &c);
    Ref<Counted> b = a.share();
    EXPECT_EQ(c.refs, 2);
    Ref<Counted> d = Ref<Counted>::retain(&c);
    EXPECT_EQ(c.refs, 3);
  }
  EXPECT_EQ(c.refs, 0);
  EXPECT_EQ(c.releases, 3);
}

TEST(Ref, MovesTransferAndDoubleMovesReleaseNothingTwice) {
  Counted c;
  {
    Ref<Counted> a = Ref<Counted>::adopt(&c);
    Ref<Counted> b(std::move(a));
    EXPECT_FALSE(a);               // NOLINT(bugprone-use-after-move)
    Ref<Counted> d(std::move(a));  // NOLINT(bugprone-use-after-move): moving an empty Ref
    EXPECT_FALSE(d);
    Ref<Counted> e;
    e = std::move(b);
    e = std::move(e);        // self-move keeps it
    EXPECT_EQ(e.get(), &c);  // NOLINT(bugprone-use-after-move): self-move is the contract
    EXPECT_EQ(c.releases, 0);
  }
  EXPECT_EQ(c.releases, 1);
}

TEST(Ref, AssigningOverAHeldReferenceReleasesTheOld) {
  Counted first;
  Counted second;
  Ref<Counted> r = Ref<Counted>::adopt(&first);
  r = Ref<Counted>::adopt(&second);
  EXPECT_EQ(first.releases, 1);
  EXPECT_EQ(second.releases, 0);
  r.reset();
  r.reset();
  EXPECT_EQ(second.releases, 1);
}

TEST(Ref, ReleaseHandsTheReferenceOutAndUpcastsMoveIt) {
  Counted c;
  Ref<Counted> a = Ref<Counted>::adopt(&c);
  Counted* out = a.release();
  EXPECT_EQ(out, &c);
  EXPECT_FALSE(a);
  EXPECT_EQ(c.releases, 0);
  EXPECT_EQ(Ref<Counted>::retain(nullptr).get(), nullptr);

  // Ref<Derived> -> Ref<Base>, as a ForeignStorage reference becomes a Keepalive.
  CountingKeepalive keepalive;
  class Derived final : public Keepalive {
   public:
    explicit Derived(CountingKeepalive* k) : k_(k) {}
    Kind kind() const override { return Kind::kNative; }
    void Release() noexcept override { k_->Release(); }
    CountingKeepalive* k_;
  } derived(&keepalive);
  {
    Ref<Keepalive> base = Ref<Derived>::adopt(&derived);
    EXPECT_EQ(base.get(), &derived);
  }
  EXPECT_EQ(keepalive.releases.load(), 1);
}

}  // namespace
