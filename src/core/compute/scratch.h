// Scratch memory of the compute families: every entry that needs some
// allocates all of it here, before it splits work across the pool, and
// reports a failed allocation as ComputeFailure::kOutOfMemory (never a
// throw from a pool thread). AllocateScratch is the one allocation call,
// so that a test can make it fail (the allocation-failure injection of the
// safety work routes through it).
#ifndef DLPACK_NODE_CORE_COMPUTE_SCRATCH_H_
#define DLPACK_NODE_CORE_COMPUTE_SCRATCH_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "compute_result.h"

namespace dlnode {
namespace compute {

// 64-byte aligned, uninitialised; nullptr when it cannot be had (or when
// bytes does not fit a size_t). bytes 0 gives a valid pointer.
void* AllocateScratch(uint64_t bytes);
void FreeScratch(void* p);

// A failed AllocateScratch of `bytes` for `what` ("matmul's packed panels").
ComputeResult OutOfMemory(const char* what, uint64_t bytes);

// n elements of T from AllocateScratch, freed on destruction; move-only.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  ~Scratch() { FreeScratch(data_); }
  Scratch(Scratch&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Scratch& operator=(Scratch&& other) noexcept {
    if (this != &other) {
      FreeScratch(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // Replaces the buffer with one of n elements; false (the old one freed,
  // none held) when it cannot be had.
  bool Allocate(uint64_t n) {
    FreeScratch(data_);
    data_ = nullptr;
    size_ = 0;
    if (n > UINT64_MAX / sizeof(T)) return false;
    data_ = static_cast<T*>(AllocateScratch(n * sizeof(T)));
    if (data_ == nullptr) return false;
    size_ = n;
    return true;
  }
  T* data() const { return data_; }
  uint64_t size() const { return size_; }
  T& operator[](uint64_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_SCRATCH_H_
