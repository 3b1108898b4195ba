#include "managed.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "stats.h"

namespace dlnode {
namespace {

// Shape and strides live right after the struct, in the same allocation.
template <typename Managed>
Managed* Allocate(const ExportSpec& spec) {
  static_assert(sizeof(Managed) % alignof(int64_t) == 0, "tail must be int64-aligned");
  const size_t tail = 2 * static_cast<size_t>(spec.ndim) * sizeof(int64_t);
  auto* self = static_cast<Managed*>(std::calloc(1, sizeof(Managed) + tail));
  if (self == nullptr) return nullptr;
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
  self->manager_ctx = spec.keepalive;
  stats::managed_live.fetch_add(1, std::memory_order_relaxed);
  stats::managed_made.fetch_add(1, std::memory_order_relaxed);
  return self;
}

// Process-wide on purpose (like the share registry): a struct may be adopted
// on one thread and deleted on another, after its environment is gone.
struct Adopted {
  std::mutex mutex;
  std::unordered_set<const void*> pointers;
};

Adopted& AdoptedPointers() {
  static Adopted* adopted = new Adopted();  // never destroyed: deleters may run at exit
  return *adopted;
}

template <typename Managed>
void OwnDeleter(Managed* self) {
  Keepalive* keepalive = TakeOwn(self);
  if (keepalive != nullptr) keepalive->Release();
}

}  // namespace

DLTensor& TensorOf(DLManagedTensorVersioned* t) { return t->dl_tensor; }
DLTensor& TensorOf(DLManagedTensor* t) { return t->dl_tensor; }

DLManagedTensorVersioned* NewVersioned(const ExportSpec& spec) {
  auto* self = Allocate<DLManagedTensorVersioned>(spec);
  if (self == nullptr) return nullptr;
  self->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  self->flags = spec.flags;
  self->deleter = &OwnDeleter<DLManagedTensorVersioned>;
  return self;
}

DLManagedTensor* NewLegacy(const ExportSpec& spec) {
  auto* self = Allocate<DLManagedTensor>(spec);
  if (self == nullptr) return nullptr;
  self->deleter = &OwnDeleter<DLManagedTensor>;
  return self;
}

bool IsOwnDeleter(const DLManagedTensorVersioned* t) {
  return t->deleter == &OwnDeleter<DLManagedTensorVersioned>;
}
bool IsOwnDeleter(const DLManagedTensor* t) { return t->deleter == &OwnDeleter<DLManagedTensor>; }

template <typename Managed>
static Keepalive* TakeOwnImpl(Managed* t) {
  auto* keepalive = static_cast<Keepalive*>(t->manager_ctx);
  std::free(t);
  stats::managed_live.fetch_sub(1, std::memory_order_relaxed);
  stats::managed_freed.fetch_add(1, std::memory_order_relaxed);
  return keepalive;
}
Keepalive* TakeOwn(DLManagedTensorVersioned* t) { return TakeOwnImpl(t); }
Keepalive* TakeOwn(DLManagedTensor* t) { return TakeOwnImpl(t); }

DLTensor* AnyManaged::tensor() const {
  return versioned ? &static_cast<DLManagedTensorVersioned*>(ptr)->dl_tensor
                   : &static_cast<DLManagedTensor*>(ptr)->dl_tensor;
}

bool AnyManaged::Adopt() const {
  Adopted& adopted = AdoptedPointers();
  std::lock_guard<std::mutex> lock(adopted.mutex);
  return adopted.pointers.insert(ptr).second;
}

void AnyManaged::Disown() const noexcept {
  Adopted& adopted = AdoptedPointers();
  std::lock_guard<std::mutex> lock(adopted.mutex);
  adopted.pointers.erase(ptr);
}

void AnyManaged::CallDeleter() const noexcept {
  Disown();  // before the deleter: the address may be reused as soon as it returns
  if (versioned) {
    auto* t = static_cast<DLManagedTensorVersioned*>(ptr);
    if (t->deleter != nullptr) t->deleter(t);
  } else {
    auto* t = static_cast<DLManagedTensor*>(ptr);
    if (t->deleter != nullptr) t->deleter(t);
  }
}

bool AnyManaged::own() const {
  return versioned ? IsOwnDeleter(static_cast<DLManagedTensorVersioned*>(ptr))
                   : IsOwnDeleter(static_cast<DLManagedTensor*>(ptr));
}

bool HostMemory::TryRetain() noexcept {
  int64_t refs = refs_.load(std::memory_order_relaxed);
  while (refs > 0) {
    if (refs_.compare_exchange_weak(refs, refs + 1, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void HostMemory::Release() noexcept {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy();
}

ForeignStorage::ForeignStorage(AnyManaged managed, void* base, uint64_t length)
    : HostMemory(base, length), managed_(managed) {
  stats::foreign_live.fetch_add(1, std::memory_order_relaxed);
  stats::foreign_made.fetch_add(1, std::memory_order_relaxed);
}

void ForeignStorage::Destroy() noexcept {
  managed_.CallDeleter();
  stats::foreign_live.fetch_sub(1, std::memory_order_relaxed);
  stats::foreign_freed.fetch_add(1, std::memory_order_relaxed);
  delete this;
}

}  // namespace dlnode
