// Managed tensors this library produces, and foreign ones it imports.
//
// A produced tensor is one allocation: the managed struct followed by shape
// and strides (NumPy's layout), freed by one call in the deleter. Whatever
// keeps the memory alive is a Keepalive in manager_ctx; the deleter frees the
// allocation and then releases the Keepalive, from whatever thread calls it.
#ifndef DLPACK_NODE_CORE_MANAGED_H_
#define DLPACK_NODE_CORE_MANAGED_H_

#include <atomic>
#include <cstdint>

#include "dlpack_abi.h"

namespace dlnode {

namespace cuda {
class HostFence;
}  // namespace cuda

// An owning reference to a reference-counted object: Release() runs when
// it is dropped. Move-only, so that every new reference is visible in the
// code: share() and retain() take one (T::Retain), adopt() wraps one already
// held (a fresh object starts with one), release() hands one out to a C API
// that releases it later. T needs Release(); share() and retain() also need
// Retain(), so a Ref<Keepalive> (release-once, no Retain) works as long as it
// is not shared.
template <typename T>
class Ref {
 public:
  Ref() = default;
  static Ref adopt(T* object) noexcept { return Ref(object); }
  // A new reference to an object someone else holds (T::Retain).
  static Ref retain(T* object) noexcept {
    if (object != nullptr) object->Retain();
    return Ref(object);
  }
  Ref(Ref&& other) noexcept : object_(other.object_) { other.object_ = nullptr; }
  template <typename U>
  Ref(Ref<U>&& other) noexcept : object_(other.release()) {}  // NOLINT: upcast, as a pointer does
  Ref& operator=(Ref&& other) noexcept {
    if (this != &other) {
      T* doomed = object_;
      object_ = other.object_;
      other.object_ = nullptr;
      if (doomed != nullptr) doomed->Release();
    }
    return *this;
  }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { reset(); }

  // A second reference to the same object.
  Ref share() const noexcept { return retain(object_); }
  // Releases the reference now (it may be the last one).
  void reset() noexcept {
    T* doomed = object_;
    object_ = nullptr;
    if (doomed != nullptr) doomed->Release();
  }
  // Hands the reference to the caller, who must release it.
  T* release() noexcept {
    T* out = object_;
    object_ = nullptr;
    return out;
  }
  T* get() const noexcept { return object_; }
  T* operator->() const noexcept { return object_; }
  explicit operator bool() const noexcept { return object_ != nullptr; }

 private:
  explicit Ref(T* object) noexcept : object_(object) {}
  T* object_ = nullptr;
};

// Something that keeps a tensor's memory alive. Release() may be called from
// any thread, exactly once, and must not touch JavaScript.
class Keepalive {
 public:
  enum class Kind { kJsBuffer, kNative };
  virtual Kind kind() const = 0;
  virtual void Release() noexcept = 0;

 protected:
  ~Keepalive() = default;
};

struct ExportSpec {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  const int64_t* shape;
  const int64_t* strides;
  uint64_t flags;  // versioned only
};

DLTensor& TensorOf(DLManagedTensorVersioned* t);
DLTensor& TensorOf(DLManagedTensor* t);

// Allocate and fill a managed tensor whose deleter is ours and whose
// manager_ctx is `keepalive` (which may be empty). The deleter releases the
// keepalive; when the allocation fails this returns nullptr and the keepalive
// is released here.
DLManagedTensorVersioned* NewVersioned(const ExportSpec& spec, Ref<Keepalive> keepalive);
DLManagedTensor* NewLegacy(const ExportSpec& spec, Ref<Keepalive> keepalive);

// True when the deleter is this library's, so manager_ctx is a Keepalive.
bool IsOwnDeleter(const DLManagedTensorVersioned* t);
bool IsOwnDeleter(const DLManagedTensor* t);

// Free one of our managed tensors without releasing its Keepalive, and hand
// the Keepalive to the caller (the import fast path takes it over).
Ref<Keepalive> TakeOwn(DLManagedTensorVersioned* t);
Ref<Keepalive> TakeOwn(DLManagedTensor* t);

// The owner of one managed tensor of either ABI (DLManagedTensorVersioned or
// the legacy DLManagedTensor). Move-only: dropping a ManagedTensor that still
// holds its struct calls the producer's deleter, exactly once (none when the
// deleter is NULL, which DLPack allows); release() hands the struct out
// without calling it (toPointer), and TakeOwn() frees one of our own.
//
// Adoption: a process-wide record of the structs adopted from native code
// (fromPointer) and not yet deleted or handed back, since adopting one twice
// would call its deleter twice. Adopt() enters an address before a
// ManagedTensor takes it; every way the struct leaves a ManagedTensor
// (deleter, release(), TakeOwn()) ends its adoption. Any thread.
class ManagedTensor {
 public:
  ManagedTensor() = default;
  ManagedTensor(void* ptr, bool versioned) noexcept : ptr_(ptr), versioned_(versioned) {}
  ManagedTensor(ManagedTensor&& other) noexcept : ptr_(other.ptr_), versioned_(other.versioned_) {
    other.ptr_ = nullptr;
  }
  ManagedTensor& operator=(ManagedTensor&& other) noexcept;
  ManagedTensor(const ManagedTensor&) = delete;
  ManagedTensor& operator=(const ManagedTensor&) = delete;
  ~ManagedTensor() { reset(); }

  // False when `ptr` is already adopted (held by another ManagedTensor).
  static bool Adopt(const void* ptr);

  explicit operator bool() const { return ptr_ != nullptr; }
  void* get() const { return ptr_; }
  bool versioned() const { return versioned_; }
  // The versioned struct, or nullptr for a legacy one.
  const DLManagedTensorVersioned* as_versioned() const {
    return versioned_ ? static_cast<const DLManagedTensorVersioned*>(ptr_) : nullptr;
  }
  // The DLTensor inside; the caller has checked the version first.
  DLTensor* tensor() const;
  void* manager_ctx() const;
  // Whether the deleter is this library's (manager_ctx is then a Keepalive).
  bool own() const;

  // Calls the deleter now (if a struct is held), then holds nothing.
  void reset() noexcept;
  // Hands the struct out, deleter not called; the caller owns it.
  void* release() noexcept;
  // Our own struct (own()): frees it and hands back its Keepalive unreleased.
  Ref<Keepalive> TakeOwn() noexcept;

 private:
  void* ptr_ = nullptr;
  bool versioned_ = false;
};

// Memory owned natively (host or device: the base of pinned and device CUDA
// memory, shared-memory segments and imported foreign tensors) and shared by
// reference count: the JS owner, each external ArrayBuffer over it, each
// capsule re-exporting it and each thread that opened it hold one reference,
// each a Ref<NativeMemory>. The last Release() frees it, on the releasing
// thread.
class NativeMemory : public Keepalive {
 public:
  NativeMemory(const NativeMemory&) = delete;
  NativeMemory& operator=(const NativeMemory&) = delete;

  // Host-visible CUDA memory this library allocated (pinned, managed): the
  // fence host access waits on (stream_order.h); nullptr for any other.
  virtual cuda::HostFence* host_fence() { return nullptr; }

  Kind kind() const override { return Kind::kNative; }
  void Retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Retains unless the last reference is already gone (Destroy has begun).
  bool TryRetain() noexcept;
  // Whether exactly `n` references are held now (lib/memory.js recycles a
  // block only its owner and that owner's ArrayBuffer hold).
  bool HasRefs(int64_t n) const noexcept { return refs_.load(std::memory_order_acquire) == n; }
  void Release() noexcept override;

  void* base() const { return base_; }
  uint64_t length() const { return length_; }

 protected:
  NativeMemory(void* base, uint64_t length) : base_(base), length_(length) {}
  virtual ~NativeMemory() = default;
  // Frees the memory and deletes this object (the last reference is gone).
  virtual void Destroy() noexcept = 0;

 private:
  std::atomic<int64_t> refs_{1};
  void* base_;
  uint64_t length_;
};

// Memory imported from a DLPack producer: Destroy() runs the producer's deleter.
class ForeignStorage final : public NativeMemory {
 public:
  // The new object holds one reference (take it with Ref<>::adopt).
  ForeignStorage(ManagedTensor&& managed, void* base, uint64_t length);

 private:
  void Destroy() noexcept override;
  ManagedTensor managed_;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_MANAGED_H_
