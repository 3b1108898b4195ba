#include "struct_slab.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace dlnode {

static_assert(sizeof(DLManagedTensorVersioned) == 80, "the entry layout assumes the LP64 struct");
static_assert(StructSlab::kEpochOffset + sizeof(int32_t) <= StructSlab::kEntrySize,
              "an entry holds its words");
static_assert(sizeof(std::atomic<int32_t>) == sizeof(int32_t) &&
                  std::atomic<int32_t>::is_always_lock_free,
              "JS reads the state word as an Int32Array element");
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "JS reads the deletion count as a Uint32Array element");

namespace {

constexpr int kMaxSlabs = 64;

// Every slab ever made, published for lock-free lookup by Find(); slabs are
// never freed, so a pointer read here stays valid.
std::atomic<StructSlab*> slabs[kMaxSlabs];
std::atomic<int> slab_count{0};

struct Pool {
  std::mutex mutex;
  std::vector<StructSlab*> idle;
};

Pool& SlabPool() {
  static auto* pool = new Pool();  // never destroyed: deleters may run at exit
  return *pool;
}

double ReadDouble(const char* at) {
  double value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

}  // namespace

StructSlab::StructSlab() : memory_(static_cast<char*>(std::aligned_alloc(64, kBytes))) {
  if (memory_ == nullptr) throw std::bad_alloc();
  std::memset(memory_, 0, kBytes);
  new (memory_ + kDeletedOffset) std::atomic<uint32_t>(0);
  for (int i = 0; i < kEntries; ++i) {
    char* entry = memory_ + kHeaderSize + i * kEntrySize;
    new (entry + kStateOffset) std::atomic<int32_t>(kFree);
  }
}

StructSlab* StructSlab::Acquire(std::shared_ptr<SlabOwner> owner) {
  StructSlab* slab = nullptr;
  {
    Pool& pool = SlabPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (!pool.idle.empty()) {
      slab = pool.idle.back();
      pool.idle.pop_back();
    } else {
      const int n = slab_count.load(std::memory_order_relaxed);
      if (n == kMaxSlabs) return nullptr;
      slab = new StructSlab();  // never deleted (see slabs)
      slabs[n].store(slab, std::memory_order_release);
      slab_count.store(n + 1, std::memory_order_release);
    }
  }
  std::lock_guard<std::mutex> lock(slab->mutex_);
  slab->owner_ = std::move(owner);
  ++slab->epoch_;
  return slab;
}

int StructSlab::Detach() noexcept {
  std::shared_ptr<SlabOwner> owner;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    owner.swap(owner_);  // dropped below, outside the lock
  }
  int out = 0;
  for (int i = 0; i < kEntries; ++i) {
    const int32_t state = StateOf(i).load(std::memory_order_acquire);
    int32_t epoch;
    std::memcpy(&epoch, memory_ + kHeaderSize + i * kEntrySize + kEpochOffset, sizeof(epoch));
    if ((state == kOut || state == kAdopted) && epoch == epoch_) ++out;
  }
  Pool& pool = SlabPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  pool.idle.push_back(this);
  return out;
}

StructSlab* StructSlab::Find(const void* ptr) noexcept {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  const int n = slab_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    StructSlab* slab = slabs[i].load(std::memory_order_acquire);
    const auto first = reinterpret_cast<uintptr_t>(slab->memory_) + kHeaderSize;
    if (address >= first && address < first + kEntries * kEntrySize &&
        (address - first) % kEntrySize == 0) {
      return slab;
    }
  }
  return nullptr;
}

bool StructSlab::Inside(const void* ptr) noexcept {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  const int n = slab_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    const auto start =
        reinterpret_cast<uintptr_t>(slabs[i].load(std::memory_order_acquire)->memory_);
    if (address >= start && address < start + kBytes) return true;
  }
  return false;
}

bool StructSlab::Adopt(const void* ptr) noexcept {
  int32_t expected = kOut;
  return StateOf(EntryOf(ptr))
      .compare_exchange_strong(expected, kAdopted, std::memory_order_acq_rel);
}

void StructSlab::Disown(const void* ptr) noexcept {
  StateOf(EntryOf(ptr)).store(kOut, std::memory_order_release);
}

std::shared_ptr<SlabOwner> StructSlab::owner() {
  std::lock_guard<std::mutex> lock(mutex_);
  return owner_;
}

std::shared_ptr<SlabOwner> StructSlab::FillerOf(const void* ptr) {
  int32_t epoch;
  std::memcpy(&epoch, memory_ + kHeaderSize + EntryOf(ptr) * kEntrySize + kEpochOffset,
              sizeof(epoch));
  std::lock_guard<std::mutex> lock(mutex_);
  if (epoch != epoch_) return nullptr;
  return owner_;
}

std::atomic<int32_t>& StructSlab::StateOf(int entry) const {
  return *std::launder(reinterpret_cast<std::atomic<int32_t>*>(memory_ + kHeaderSize +
                                                               entry * kEntrySize + kStateOffset));
}

int StructSlab::EntryOf(const void* ptr) const {
  return static_cast<int>((static_cast<const char*>(ptr) - memory_ - kHeaderSize) / kEntrySize);
}

int64_t StructSlab::filled() const {
  return static_cast<int64_t>(ReadDouble(memory_ + kFilledOffset));
}

int64_t StructSlab::freed() const {
  const auto* deleted =
      std::launder(reinterpret_cast<const std::atomic<uint32_t>*>(memory_ + kDeletedOffset));
  return static_cast<int64_t>(ReadDouble(memory_ + kTakenOffset)) +
         static_cast<int64_t>(deleted->load(std::memory_order_relaxed));
}

void StructSlab::Deleter(DLManagedTensorVersioned* self) {
  auto* slab = static_cast<StructSlab*>(self->manager_ctx);
  std::shared_ptr<SlabOwner> owner = slab->owner();
  // Out or adopted -> released, once: a second delete of an entry already
  // released, taken back or free is ignored (before, it marked the entry
  // released whatever its state, counting a deletion twice and handing a
  // free entry to the sweep). One reused since cannot be told apart: that
  // double delete is the consumer's bug, as with any struct.
  std::atomic<int32_t>& state = slab->StateOf(slab->EntryOf(self));
  int32_t expected = state.load(std::memory_order_acquire);
  while (expected == kOut || expected == kAdopted) {
    // The entry is the owner's again from this exchange on: nothing below touches it.
    if (state.compare_exchange_weak(expected, kReleased, std::memory_order_acq_rel)) break;
  }
  if (expected != kOut && expected != kAdopted) return;
  std::launder(reinterpret_cast<std::atomic<uint32_t>*>(slab->memory_ + kDeletedOffset))
      ->fetch_add(1, std::memory_order_release);
  if (owner) owner->EntryReleased();
}

void (*StructSlab::deleter())(DLManagedTensorVersioned*) { return &Deleter; }

int64_t SlabStructsMade() {
  int64_t total = 0;
  const int n = slab_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) total += slabs[i].load(std::memory_order_acquire)->filled();
  return total;
}

int64_t SlabStructsFreed() {
  int64_t total = 0;
  const int n = slab_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) total += slabs[i].load(std::memory_order_acquire)->freed();
  return total;
}

}  // namespace dlnode
