#include "managed.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "stats.h"
#include "struct_slab.h"

namespace dlnode {
namespace {

// Shape and strides live right after the struct, in the same allocation.
template <typename Managed>
Managed* Allocate(const ExportSpec& spec, Ref<Keepalive> keepalive) {
  static_assert(sizeof(Managed) % alignof(int64_t) == 0, "tail must be int64-aligned");
  const size_t tail = 2 * static_cast<size_t>(spec.ndim) * sizeof(int64_t);
  auto* self = static_cast<Managed*>(std::calloc(1, sizeof(Managed) + tail));
  if (self == nullptr) return nullptr;  // `keepalive` is released on return
  DLTensor& t = TensorOf(self);
  t.data = spec.data;
  t.device = spec.device;
  t.ndim = spec.ndim;
  t.dtype = spec.dtype;
  t.byte_offset = 0;
  if (spec.ndim > 0) {
    auto* arrays = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(self) + sizeof(Managed));
    std::memcpy(arrays, spec.shape, spec.ndim * sizeof(int64_t));
    std::memcpy(arrays + spec.ndim, spec.strides, spec.ndim * sizeof(int64_t));
    t.shape = arrays;
    t.strides = arrays + spec.ndim;
  }  // ndim == 0: shape and strides stay NULL (DLPack 1.3 allows it)
  self->manager_ctx = keepalive.release();  // released by OwnDeleter
  stats::managed_live.fetch_add(1, std::memory_order_relaxed);
  stats::managed_made.fetch_add(1, std::memory_order_relaxed);
  return self;
}

// A set of addresses by open addressing (linear probing, deletion by
// backward shift): adopting and disowning allocate nothing once the table has
// grown, where a node-based set allocates and frees on every adoption (a
// measurable share of the pointer round trip, bench/README.md).
class PointerSet {
 public:
  bool Insert(const void* p) {
    if (p == nullptr) return !std::exchange(has_null_, true);
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    size_t i = Home(p);
    for (; slots_[i] != nullptr; i = Next(i)) {
      if (slots_[i] == p) return false;
    }
    slots_[i] = p;
    ++size_;
    return true;
  }

  void Erase(const void* p) {
    if (p == nullptr) {
      has_null_ = false;
      return;
    }
    if (size_ == 0) return;
    size_t hole = Home(p);
    for (; slots_[hole] != p; hole = Next(hole)) {
      if (slots_[hole] == nullptr) return;
    }
    // Shift later members of the probe run back into the hole, so that no
    // lookup meets an empty slot before its address.
    for (size_t j = Next(hole); slots_[j] != nullptr; j = Next(j)) {
      const size_t home = Home(slots_[j]);
      const bool reachable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (reachable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = nullptr;
    --size_;
  }

 private:
  size_t Home(const void* p) const {
    return static_cast<size_t>(
        (reinterpret_cast<uintptr_t>(p) >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> shift_);
  }
  size_t Next(size_t i) const { return (i + 1) & (slots_.size() - 1); }

  void Grow() {
    std::vector<const void*> old(slots_.empty() ? 64 : slots_.size() * 2, nullptr);
    old.swap(slots_);
    shift_ = 64;
    for (size_t n = slots_.size(); n > 1; n >>= 1) --shift_;
    size_ = 0;
    for (const void* p : old) {
      if (p != nullptr) Insert(p);
    }
  }

  std::vector<const void*> slots_;  // a power of two long, at most half full
  size_t size_ = 0;
  int shift_ = 64;
  bool has_null_ = false;
};

// Process-wide on purpose (like the share registry): a struct may be adopted
// on one thread and deleted on another, after its environment is gone.
struct Adopted {
  std::mutex mutex;
  PointerSet pointers;
};

Adopted& AdoptedPointers() {
  static Adopted* adopted = new Adopted();  // never destroyed: deleters may run at exit
  return *adopted;
}

template <typename Managed>
void OwnDeleter(Managed* self) {
  TakeOwn(self);  // the returned Ref releases the keepalive
}

}  // namespace

DLTensor& TensorOf(DLManagedTensorVersioned* t) { return t->dl_tensor; }
DLTensor& TensorOf(DLManagedTensor* t) { return t->dl_tensor; }

DLManagedTensorVersioned* NewVersioned(const ExportSpec& spec, Ref<Keepalive> keepalive) {
  auto* self = Allocate<DLManagedTensorVersioned>(spec, std::move(keepalive));
  if (self == nullptr) return nullptr;
  self->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  self->flags = spec.flags;
  self->deleter = &OwnDeleter<DLManagedTensorVersioned>;
  return self;
}

DLManagedTensor* NewLegacy(const ExportSpec& spec, Ref<Keepalive> keepalive) {
  auto* self = Allocate<DLManagedTensor>(spec, std::move(keepalive));
  if (self == nullptr) return nullptr;
  self->deleter = &OwnDeleter<DLManagedTensor>;
  return self;
}

bool IsOwnDeleter(const DLManagedTensorVersioned* t) {
  return t->deleter == &OwnDeleter<DLManagedTensorVersioned>;
}
bool IsOwnDeleter(const DLManagedTensor* t) { return t->deleter == &OwnDeleter<DLManagedTensor>; }

template <typename Managed>
static Ref<Keepalive> TakeOwnImpl(Managed* t) {
  auto* keepalive = static_cast<Keepalive*>(t->manager_ctx);
  std::free(t);
  stats::managed_live.fetch_sub(1, std::memory_order_relaxed);
  stats::managed_freed.fetch_add(1, std::memory_order_relaxed);
  return Ref<Keepalive>::adopt(keepalive);
}
Ref<Keepalive> TakeOwn(DLManagedTensorVersioned* t) { return TakeOwnImpl(t); }
Ref<Keepalive> TakeOwn(DLManagedTensor* t) { return TakeOwnImpl(t); }

namespace {
// The adoption of `ptr` ends. A slab struct (struct_slab.h) keeps its own
// record in its state word: handed out again (release()) it is out once
// more; deleted (reset()) its deleter marks it.
void Disown(const void* ptr, bool handed_out) noexcept {
  if (StructSlab* slab = StructSlab::Find(ptr)) {
    if (handed_out) slab->Disown(ptr);
    return;
  }
  Adopted& adopted = AdoptedPointers();
  std::lock_guard<std::mutex> lock(adopted.mutex);
  adopted.pointers.Erase(ptr);
}
}  // namespace

bool ManagedTensor::Adopt(const void* ptr) {
  if (StructSlab* slab = StructSlab::Find(ptr)) return slab->Adopt(ptr);
  Adopted& adopted = AdoptedPointers();
  std::lock_guard<std::mutex> lock(adopted.mutex);
  return adopted.pointers.Insert(ptr);
}

ManagedTensor& ManagedTensor::operator=(ManagedTensor&& other) noexcept {
  if (this != &other) {
    ManagedTensor doomed(std::move(*this));  // its deleter runs after the move
    ptr_ = other.ptr_;
    versioned_ = other.versioned_;
    other.ptr_ = nullptr;
  }
  return *this;
}

DLTensor* ManagedTensor::tensor() const {
  return versioned_ ? &static_cast<DLManagedTensorVersioned*>(ptr_)->dl_tensor
                    : &static_cast<DLManagedTensor*>(ptr_)->dl_tensor;
}

void* ManagedTensor::manager_ctx() const {
  return versioned_ ? static_cast<DLManagedTensorVersioned*>(ptr_)->manager_ctx
                    : static_cast<DLManagedTensor*>(ptr_)->manager_ctx;
}

bool ManagedTensor::own() const {
  return versioned_ ? IsOwnDeleter(static_cast<DLManagedTensorVersioned*>(ptr_))
                    : IsOwnDeleter(static_cast<DLManagedTensor*>(ptr_));
}

void ManagedTensor::reset() noexcept {
  void* ptr = ptr_;
  if (ptr == nullptr) return;
  ptr_ = nullptr;      // before the deleter, which may re-enter through a Keepalive
  Disown(ptr, false);  // before the deleter too: the address may be reused as soon as it returns
  if (versioned_) {
    auto* t = static_cast<DLManagedTensorVersioned*>(ptr);
    if (t->deleter != nullptr) t->deleter(t);
  } else {
    auto* t = static_cast<DLManagedTensor*>(ptr);
    if (t->deleter != nullptr) t->deleter(t);
  }
}

void* ManagedTensor::release() noexcept {
  void* ptr = ptr_;
  ptr_ = nullptr;
  if (ptr != nullptr) Disown(ptr, true);
  return ptr;
}

Ref<Keepalive> ManagedTensor::TakeOwn() noexcept {
  void* ptr = release();
  return versioned_ ? dlnode::TakeOwn(static_cast<DLManagedTensorVersioned*>(ptr))
                    : dlnode::TakeOwn(static_cast<DLManagedTensor*>(ptr));
}

bool NativeMemory::TryRetain() noexcept {
  int64_t refs = refs_.load(std::memory_order_relaxed);
  while (refs > 0) {
    if (refs_.compare_exchange_weak(refs, refs + 1, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void NativeMemory::Release() noexcept {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy();
}

ForeignStorage::ForeignStorage(ManagedTensor&& managed, void* base, uint64_t length)
    : NativeMemory(base, length), managed_(std::move(managed)) {
  stats::foreign_live.fetch_add(1, std::memory_order_relaxed);
  stats::foreign_made.fetch_add(1, std::memory_order_relaxed);
}

void ForeignStorage::Destroy() noexcept {
  managed_.reset();
  stats::foreign_live.fetch_sub(1, std::memory_order_relaxed);
  stats::foreign_freed.fetch_add(1, std::memory_order_relaxed);
  delete this;
}

}  // namespace dlnode
