// Managed tensors this library produces, and foreign ones it adopts.
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

// Something that keeps a tensor's memory alive. Release() may be called from
// any thread, exactly once, and must not touch JavaScript.
class Keepalive {
 public:
  enum class Kind { kJsBuffer, kHost };
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
  Keepalive* keepalive;
};

DLTensor& TensorOf(DLManagedTensorVersioned* t);
DLTensor& TensorOf(DLManagedTensor* t);

// Allocate and fill a managed tensor whose deleter is ours. Returns nullptr
// when the allocation fails (the keepalive is then not taken).
DLManagedTensorVersioned* NewVersioned(const ExportSpec& spec);
DLManagedTensor* NewLegacy(const ExportSpec& spec);

// True when the deleter is this library's, so manager_ctx is a Keepalive.
bool IsOwnDeleter(const DLManagedTensorVersioned* t);
bool IsOwnDeleter(const DLManagedTensor* t);

// Free one of our managed tensors without releasing its Keepalive, and hand
// the Keepalive to the caller (the import fast path takes it over).
Keepalive* TakeOwn(DLManagedTensorVersioned* t);
Keepalive* TakeOwn(DLManagedTensor* t);

// A managed tensor of either ABI, owned by whoever holds this handle.
struct AnyManaged {
  void* ptr = nullptr;
  bool versioned = false;

  // The DLTensor inside; the caller has checked the version first.
  DLTensor* tensor() const;
  // Calls the producer's deleter unless it is NULL (DLPack allows NULL), and
  // ends the adoption (Disown) first.
  void CallDeleter() const noexcept;
  bool own() const;

  // Process-wide record of the structs adopted from native code and not yet
  // deleted or handed back: adopting one twice would call its deleter twice.
  // Adopt() returns false when `ptr` is already adopted; Disown() ends the
  // adoption where the struct leaves without its deleter (handed back by
  // toPointer, or freed by TakeOwn). Any thread.
  bool Adopt() const;
  void Disown() const noexcept;
};

// CPU-accessible memory owned natively and shared by reference count: the JS
// owner, each external ArrayBuffer over it, each capsule re-exporting it and
// each thread that opened it hold one reference. The last Release() frees it,
// on the releasing thread.
class HostMemory : public Keepalive {
 public:
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  Kind kind() const override { return Kind::kHost; }
  void Retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Retains unless the last reference is already gone (Destroy has begun).
  bool TryRetain() noexcept;
  void Release() noexcept override;

  void* base() const { return base_; }
  uint64_t length() const { return length_; }

 protected:
  HostMemory(void* base, uint64_t length) : base_(base), length_(length) {}
  virtual ~HostMemory() = default;
  // Frees the memory and deletes this object (the last reference is gone).
  virtual void Destroy() noexcept = 0;

 private:
  std::atomic<int64_t> refs_{1};
  void* base_;
  uint64_t length_;
};

// Memory adopted from a DLPack producer: Destroy() runs the producer's deleter.
class ForeignStorage final : public HostMemory {
 public:
  ForeignStorage(AnyManaged managed, void* base, uint64_t length);

 private:
  void Destroy() noexcept override;
  AnyManaged managed_;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_MANAGED_H_
