// Process-wide registry behind 'local' descriptors (docs/API.md "Sharing"): a
// tensor shared with worker threads of this process is named by an id; each
// thread that opens the id takes its own reference. The registry is global on
// purpose: its whole job is to cross environments (threads).
#ifndef DLPACK_NODE_CORE_SHARE_REGISTRY_H_
#define DLPACK_NODE_CORE_SHARE_REGISTRY_H_

#include <cstdint>
#include <string>

#include "managed.h"

namespace dlnode {
namespace share_registry {

// Registers `memory` (keeping the reference) on `device` (its name, e.g.
// "cuda:1": an opener must not read device memory as host memory) and
// returns a new id, never 0.
uint64_t Add(Ref<NativeMemory> memory, const std::string& device);
// A new reference to the memory registered as `id`, with its device, or an
// empty Ref if it was removed (the sharing side let go).
Ref<NativeMemory> Acquire(uint64_t id, std::string* device);
// Drops the registry's reference. Unknown ids are ignored.
void Remove(uint64_t id);
// Entries currently registered (for tests).
int64_t Size();

}  // namespace share_registry
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_SHARE_REGISTRY_H_
