// Process-wide live-object counters, read by tests to prove that nothing
// leaks. They are deliberately process-wide rather than per environment: a
// deleter may run on any thread after the environment that made the object
// is gone, and must still be counted.
#ifndef DLPACK_NODE_CORE_STATS_H_
#define DLPACK_NODE_CORE_STATS_H_

#include <atomic>
#include <cstdint>

namespace dlnode {
namespace stats {

extern std::atomic<int64_t> managed_live;       // our DLManagedTensor(Versioned) structs
extern std::atomic<int64_t> foreign_live;       // imported foreign tensors not yet deleted
extern std::atomic<int64_t> js_keepalive_live;  // JS buffers pinned by an export

// Running totals since the process started, so that a long run can prove
// every struct made was freed (and none twice), not only that the live
// counts happen to match.
extern std::atomic<int64_t> managed_made;
extern std::atomic<int64_t> managed_freed;
extern std::atomic<int64_t> foreign_made;
extern std::atomic<int64_t> foreign_freed;

// Host blocks (host_block.h): the library's own CPU memory from
// lib/memory.js's NATIVE_MIN bytes on, alive now, and made and freed since
// the process started.
extern std::atomic<int64_t> host_blocks_live;
extern std::atomic<int64_t> host_blocks_made;
extern std::atomic<int64_t> host_blocks_freed;
// Host blocks whose allocation asked for huge pages (pages.h AdviseHugePages).
extern std::atomic<int64_t> huge_page_requests;

// CUDA streams made by `new dl.cuda.Stream()` and not yet destroyed (by
// dispose(), its finalizer, or the cleanup of the environment that made it).
extern std::atomic<int64_t> cuda_streams_live;

}  // namespace stats
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_STATS_H_
