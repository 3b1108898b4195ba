// Host memory the library allocates for its own CPU tensors from
// lib/memory.js's NATIVE_MIN bytes on (docs/API.md "Lifetimes", "Off the
// event loop"). It is a native block shared by reference count
// (NativeMemory), never the backing store of a V8 ArrayBuffer: JavaScript
// can transfer or detach an ArrayBuffer made over it (t.buffer) and V8 then
// frees nothing, because the block lives until its last reference goes (the
// JS owner's handle, that buffer's hold, an { async: true } job in flight, an
// exported struct, another thread's 'local' open). Node-API cannot hold a V8
// backing store, so this is how an op off the event loop keeps the memory it
// reads and writes (issue 37, finding 1).
#ifndef DLPACK_NODE_CORE_HOST_BLOCK_H_
#define DLPACK_NODE_CORE_HOST_BLOCK_H_

#include <cstdint>

#include "managed.h"

namespace dlnode {

class HostBlock final : public NativeMemory {
 public:
  // `length` (> 0) bytes, or an empty Ref when the allocation fails. Zeroed
  // blocks come from calloc, whose large blocks are fresh mappings the
  // kernel zeroes page by page on first touch (no memset, as `new
  // ArrayBuffer` gets them from Node's allocator); the others from malloc,
  // for results every byte of which is written before it is read (as
  // Buffer.allocUnsafeSlow). With `advise_huge_pages`, a block of at least
  // dlcore::kHugePageAdviceMin is advised as transparent huge pages before
  // its first write (src/core/pages.h).
  static Ref<HostBlock> Allocate(uint64_t length, bool zeroed, bool advise_huge_pages);

 private:
  HostBlock(void* base, uint64_t length);
  ~HostBlock() override = default;
  void Destroy() noexcept override;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_HOST_BLOCK_H_
