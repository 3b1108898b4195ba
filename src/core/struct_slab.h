// A slab of DLManagedTensorVersioned structs that JavaScript fills in place
// (lib/struct_slab.js), so that handing a tensor of JS memory to native code
// (toPointer) and taking it back (fromPointer) cross no Node-API call.
//
// The memory is allocated once and never freed: a deleter may run on any
// thread, long after the environment that filled the struct has ended. A
// slab serves one environment at a time; when that environment ends it goes
// back to a process-wide pool, and its entries still out stay valid until
// their deleters run.
//
// Each entry is a struct, its shape and strides (ndim <= kEntryDims: a
// tensor with more dimensions, up to layout.h's kMaxDims, gets a heap struct)
// and a state word (DLNODE_SLAB_STATES):
//   kFree      JS may fill it.
//   kOut       handed out by toPointer(); whoever holds the pointer owns it.
//   kAdopted   adopted natively (fromPointer fell back to the native path:
//              another environment's entry, or a struct changed since JS
//              wrote it); a second adoption is refused, as for any struct.
//   kReleased  its deleter ran; the JS owner drops the memory's hold and
//              frees the entry (the owner is woken through SlabOwner).
// JS moves kFree -> kOut (it alone holds a free entry), kOut -> kFree when it
// takes its own struct back (Atomics.compareExchange), and kReleased -> kFree.
// Native code moves kOut <-> kAdopted and kOut/kAdopted -> kReleased.
//
// The header's counters are what stats() reports for these structs: JS
// counts the structs it fills and takes back, the deleter the ones deleted.
// The deletion count is an atomic (any thread adds to it). The fill and
// take-back counts are doubles only the owning JS thread writes, with plain
// stores, and stats() reads them from any thread without synchronisation:
// from another thread they are approximate (a count may lag the struct it
// counts), exact on the owning thread.
//
// JS learns every number here at load, through Convention()
// (src/addon/convention.cc): the states, the struct's field offsets
// (offsetof) and the slab's layout; lib/struct_slab.js writes none of them.
#ifndef DLPACK_NODE_CORE_STRUCT_SLAB_H_
#define DLPACK_NODE_CORE_STRUCT_SLAB_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "dlpack_abi.h"

namespace dlnode {

// Whoever serves the slab's environment: told when a deleter frees an entry.
// Any thread, never re-entrantly from JS.
class SlabOwner {
 public:
  virtual ~SlabOwner() = default;
  virtual void EntryReleased() noexcept = 0;
};

// The entry states: X(jsName, Constant, value).
#define DLNODE_SLAB_STATES(X) \
  X(free, kFree, 0)           \
  X(out, kOut, 1)             \
  X(adopted, kAdopted, 2)     \
  X(released, kReleased, 3)

// The DLManagedTensorVersioned fields JS writes: X(jsName, byte offset,
// bytes). dtypeCode, dtypeBits and dtypeLanes lie inside the dtype word JS
// writes whole.
#define DLNODE_VERSIONED_AT(field) offsetof(DLManagedTensorVersioned, field)
#define DLNODE_TENSOR_AT(field) \
  (offsetof(DLManagedTensorVersioned, dl_tensor) + offsetof(DLTensor, field))
#define DLNODE_STRUCT_FIELDS(X)                                                \
  X(major, DLNODE_VERSIONED_AT(version) + offsetof(DLPackVersion, major), 4)   \
  X(minor, DLNODE_VERSIONED_AT(version) + offsetof(DLPackVersion, minor), 4)   \
  X(context, DLNODE_VERSIONED_AT(manager_ctx), sizeof(void*))                  \
  X(deleter, DLNODE_VERSIONED_AT(deleter), sizeof(void*))                      \
  X(flags, DLNODE_VERSIONED_AT(flags), 8)                                      \
  X(data, DLNODE_TENSOR_AT(data), sizeof(void*))                               \
  X(deviceType, DLNODE_TENSOR_AT(device) + offsetof(DLDevice, device_type), 4) \
  X(deviceId, DLNODE_TENSOR_AT(device) + offsetof(DLDevice, device_id), 4)     \
  X(ndim, DLNODE_TENSOR_AT(ndim), 4)                                           \
  X(dtype, DLNODE_TENSOR_AT(dtype), 4)                                         \
  X(dtypeCode, DLNODE_TENSOR_AT(dtype) + offsetof(DLDataType, code), 1)        \
  X(dtypeBits, DLNODE_TENSOR_AT(dtype) + offsetof(DLDataType, bits), 1)        \
  X(dtypeLanes, DLNODE_TENSOR_AT(dtype) + offsetof(DLDataType, lanes), 2)      \
  X(shape, DLNODE_TENSOR_AT(shape), sizeof(void*))                             \
  X(strides, DLNODE_TENSOR_AT(strides), sizeof(void*))                         \
  X(byteOffset, DLNODE_TENSOR_AT(byte_offset), 8)                              \
  X(end, sizeof(DLManagedTensorVersioned), 0) /* the struct's size */

// The slab's layout as JS reads it: X(jsName, StructSlab constant).
#define DLNODE_SLAB_LAYOUT(X)      \
  X(entries, kEntries)             \
  X(entrySize, kEntrySize)         \
  X(entryDims, kEntryDims)         \
  X(headerSize, kHeaderSize)       \
  X(shapeOffset, kShapeOffset)     \
  X(stridesOffset, kStridesOffset) \
  X(stateOffset, kStateOffset)     \
  X(epochOffset, kEpochOffset)     \
  X(deletedOffset, kDeletedOffset) \
  X(filledOffset, kFilledOffset)   \
  X(takenOffset, kTakenOffset)

class StructSlab {
 public:
  static constexpr int kEntries = 256;
  // The dimensions an entry holds (its shape and strides arrays); below
  // layout.h's kMaxDims, the most a tensor may have.
  static constexpr int kEntryDims = 8;
  static constexpr size_t kEntrySize = 256;
  static constexpr size_t kHeaderSize = 64;
  // Within an entry: the struct at 0, then shape, strides and the state word.
  static constexpr size_t kShapeOffset = sizeof(DLManagedTensorVersioned);
  static constexpr size_t kStridesOffset = kShapeOffset + kEntryDims * sizeof(int64_t);
  static constexpr size_t kStateOffset = kStridesOffset + kEntryDims * sizeof(int64_t);
  // The epoch of the environment that filled the entry (JS writes it): the
  // one whose end may warn about it, and whose liveness an import asks
  // (FillerOf).
  static constexpr size_t kEpochOffset = kStateOffset + sizeof(int32_t);
  // Within the header: the deletions (native, atomic), then the structs JS
  // filled and took back (doubles JS writes).
  static constexpr size_t kDeletedOffset = 0;
  static constexpr size_t kFilledOffset = 8;
  static constexpr size_t kTakenOffset = 16;
  static constexpr size_t kBytes = kHeaderSize + kEntries * kEntrySize;

  enum State : int32_t {
#define DLNODE_SLAB_STATE(js, constant, value) constant = (value),
    DLNODE_SLAB_STATES(DLNODE_SLAB_STATE)
#undef DLNODE_SLAB_STATE
  };

  // A slab for `owner`, from the pool or new; nullptr when the process
  // already has kMaxSlabs (JS then makes heap structs natively).
  static StructSlab* Acquire(std::shared_ptr<SlabOwner> owner);
  // The owner has ended: the slab goes back to the pool. Returns how many of
  // the structs it filled are still out (kOut or kAdopted); structs an
  // earlier owner left out were counted when that one ended.
  int Detach() noexcept;
  // Changes with every Acquire; JS writes it into each entry it fills.
  int32_t epoch() const { return epoch_; }

  // The slab whose entry starts at `ptr`, or nullptr. Any thread, lock-free.
  static StructSlab* Find(const void* ptr) noexcept;
  // Whether `ptr` lies anywhere in a slab's memory (an entry start or not).
  static bool Inside(const void* ptr) noexcept;
  // kOut -> kAdopted: false when the entry is not out (already adopted,
  // deleted or taken back).
  bool Adopt(const void* ptr) noexcept;
  // kAdopted -> kOut: native code hands the struct out again (toPointer).
  void Disown(const void* ptr) noexcept;

  // Whom the slab serves now, or null (pooled: its environment ended).
  std::shared_ptr<SlabOwner> owner();
  // Who filled the entry at `ptr`: the current owner when the entry carries
  // its epoch, else null (the environment that filled it has ended, even
  // when another one serves the slab now). An import asks this, never
  // owner(): a stale entry of a dead environment is over freed memory.
  std::shared_ptr<SlabOwner> FillerOf(const void* ptr);

  char* memory() const { return memory_; }
  // What JS writes into every struct's deleter field.
  static void (*deleter())(DLManagedTensorVersioned*);
  // Structs filled and not yet deleted or taken back (stats()).
  int64_t filled() const;
  int64_t freed() const;

 private:
  StructSlab();
  std::atomic<int32_t>& StateOf(int entry) const;
  int EntryOf(const void* ptr) const;
  static void Deleter(DLManagedTensorVersioned* self);

  char* memory_;
  std::mutex mutex_;
  std::shared_ptr<SlabOwner> owner_;  // guarded by mutex_; null while pooled
  int32_t epoch_ = 0;                 // written by Acquire, before the owner's JS runs
};

// Totals over every slab, added to the heap structs' counters by stats().
int64_t SlabStructsMade();
int64_t SlabStructsFreed();

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_STRUCT_SLAB_H_
