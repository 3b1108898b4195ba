// The host memory lib/memory.js manages for the tensors the library allocates:
// native blocks from its NATIVE_MIN bytes on (src/core/host_block.h),
// detaching buffers the library owns (dispose), huge-page advice for fresh
// large ones (src/core/pages.h).
#ifndef DLPACK_NODE_ADDON_MEMORY_H_
#define DLPACK_NODE_ADDON_MEMORY_H_

#include <napi.h>

#include <cstdint>

namespace dlnode {

// Whether the library advises its large host buffers as huge pages
// (DLPACK_HUGE_PAGES, src/core/pages.h HugePageAdviceWanted): decided once a
// process, by its first load (a worker's load would walk sysfs again for the
// same answer), so every thread's buffers follow one rule.
bool HugePageAdviceOn();

// Native memory piled up during one turn of the event loop
// (EnvState::PileUp) past which HostAlloc makes no new block. Node frees a
// block whose tensor was dropped after its ArrayBuffer was made only on a
// later turn, so a synchronous loop that drops tensors after reading their
// `data` would pile blocks up until it yields; past this, its new tensors are
// ArrayBuffers, which garbage collection frees by itself (bench/README.md
// "Host memory"). The count starts again at every turn.
constexpr int64_t kPiledMax = int64_t{64} << 20;

// (nbytes, zeroed) -> a storage handle over a new HostBlock of nbytes (V8
// told of them), advised as huge pages where HugePageAdviceOn(); null, with
// nothing allocated, past kPiledMax; throws ERR_DLPACK_OUT_OF_MEMORY when
// the allocation fails.
Napi::Value HostAlloc(const Napi::CallbackInfo& info);

// () -> undefined: a turn of the event loop came (lib/memory.js); the pile
// count starts again.
Napi::Value HostLoopTurned(const Napi::CallbackInfo& info);

// (arrayBuffer) -> undefined
Napi::Value DetachBuffer(const Napi::CallbackInfo& info);

// (arrayBuffer) -> bytes advised: huge pages for a large buffer not yet
// touched (src/core/pages.h).
Napi::Value AdviseHugePages(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_MEMORY_H_
