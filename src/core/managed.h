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
  enum class Kind { kJsBuffer, kForeign };
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
  // Calls the producer's deleter unless it is NULL (DLPack allows NULL).
  void CallDeleter() const noexcept;
  bool own() const;
};

// Foreign memory adopted on import. Reference counted: the JS owner, each
// external ArrayBuffer over it and each capsule re-exporting it hold one
// reference; the producer's deleter runs when the last is released, on the
// releasing thread.
class ForeignStorage final : public Keepalive {
 public:
  ForeignStorage(AnyManaged managed, void* base, uint64_t length);
  ForeignStorage(const ForeignStorage&) = delete;
  ForeignStorage& operator=(const ForeignStorage&) = delete;

  Kind kind() const override { return Kind::kForeign; }
  void Retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release() noexcept override;

  void* base() const { return base_; }
  uint64_t length() const { return length_; }

 private:
  ~ForeignStorage() = default;
  std::atomic<int64_t> refs_{1};
  AnyManaged managed_;
  void* base_;
  uint64_t length_;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_MANAGED_H_
