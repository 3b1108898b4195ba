// Scratch memory of one engine call: the reductions' partial sums, softmax's
// lane buffers, topk's candidates, normalize's per-channel values, the staged
// source of an overlapping copy. The rule (issue 37, finding 2): scratch is
// allocated on the caller's thread before the work is split across the pool
// (src/core/parallel.h), so a failed allocation is reported before any
// element is written and never inside a pool task. A failure throws
// std::bad_alloc, which every binding reports as ERR_DLPACK_OUT_OF_MEMORY,
// on the JS thread (Guarded) and from a libuv job (src/addon/async_op.h).
//
// The memory comes from malloc, never operator new: a request past what the
// machine has returns NULL (glibc; AddressSanitizer too with
// allocator_may_return_null=1) where ASan's operator new would abort.
//
// Tests (built with DLNODE_SCRATCH_FAULTS, which CMake defines for the
// GoogleTest build only) can make the n-th allocation from now fail and count
// the blocks alive, to prove that every engine entry that allocates reports
// the failure and leaks nothing. The npm build has neither: no cost there.
#ifndef DLPACK_NODE_CORE_SCRATCH_H_
#define DLPACK_NODE_CORE_SCRATCH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace dlnode {

// `count` elements of `size` bytes, aligned for any scalar (malloc's
// alignment), or throws std::bad_alloc (also when count * size overflows).
void* AllocateScratch(uint64_t count, uint64_t size);
void FreeScratch(void* p) noexcept;

#if defined(DLNODE_SCRATCH_FAULTS)
// The allocation `n` allocations from now (1: the next) fails, once; 0 turns
// it off. Any thread; tests run one engine call at a time.
void FailScratchAfter(int64_t n);
// Scratch blocks allocated and not yet freed.
int64_t ScratchBlocksLive();
#endif

// `count` default-initialised Ts (T trivially destructible), freed with the
// object. Move-only.
template <class T>
class Scratch {
  static_assert(std::is_trivially_destructible<T>::value, "scratch holds plain values");

 public:
  Scratch() = default;
  explicit Scratch(int64_t count)
      : data_(static_cast<T*>(AllocateScratch(Unsigned(count), sizeof(T)))),
        count_(count < 0 ? 0 : count) {
    std::uninitialized_default_construct_n(data_, static_cast<size_t>(count_));
  }
  Scratch(Scratch&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  Scratch& operator=(Scratch&& other) noexcept {
    if (this != &other) {
      FreeScratch(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { FreeScratch(data_); }

  T* data() const { return data_; }
  T& operator[](int64_t i) const { return data_[i]; }
  int64_t size() const { return count_; }

 private:
  static uint64_t Unsigned(int64_t count) { return count < 0 ? 0 : static_cast<uint64_t>(count); }
  T* data_ = nullptr;
  int64_t count_ = 0;
};

// `slots` runs of `per_slot` elements each: one per chunk of a split loop
// (ParallelForChunks in parallel.h: slot i belongs to the task running chunk
// i), or one per output element (the partial sums of a reduction). A count
// whose product overflows is a std::bad_alloc, as is any count too large.
template <class T>
Scratch<T> ScratchSlots(int64_t per_slot, int64_t slots) {
  if (per_slot < 0 || slots < 0 ||
      (slots != 0 && per_slot > INT64_MAX / static_cast<int64_t>(sizeof(T)) / slots)) {
    throw std::bad_alloc();
  }
  return Scratch<T>(per_slot * slots);
}

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_SCRATCH_H_
