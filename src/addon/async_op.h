// The asynchronous form of a native op (docs/API.md "Off the event loop"): a
// job read from the call's arguments on the JS thread, run on a libuv thread,
// and a Promise settled back on the JS thread. What the job reads and writes
// is its JobMemory's (job_memory.h: native memory held by reference, the
// library's own ArrayBuffers staged), and the worker keeps the call's
// arguments by reference until it settles (lib/ holds the tensors' storage
// too). No exception leaves the libuv job (issue 37, findings 2 and 9): a
// std::bad_alloc rejects with ERR_DLPACK_OUT_OF_MEMORY, as Guarded<> throws it
// for the synchronous form; an Error keeps its code; anything else is an
// internal error, as Guarded<> words it. An environment that ends while the
// job runs (worker.terminate(), process.exit()) waits for it in a cleanup
// hook, which then frees the job; the job never touches JS, and its worker
// object is left unfreed on purpose.
#ifndef DLPACK_NODE_ADDON_ASYNC_OP_H_
#define DLPACK_NODE_ADDON_ASYNC_OP_H_

#include <napi.h>

#include <cstdint>
#include <memory>

#include "job_memory.h"

namespace dlnode {

// One call's job: read on the JS thread (each binding's own Read), run by
// the synchronous form on the JS thread and by the asynchronous one on a
// libuv thread. Not movable: what it runs on points into it.
class AsyncJob {
 public:
  AsyncJob() = default;
  AsyncJob(const AsyncJob&) = delete;
  AsyncJob& operator=(const AsyncJob&) = delete;
  virtual ~AsyncJob() = default;

  // The engine's work; never touches JS. False when the engine refused the
  // case (Refused() says what was expected).
  virtual bool Run() const = 0;
  virtual const char* Refused() const = 0;

  JobMemory memory;
};

// Queues a job already read from the arguments on a libuv thread; the Promise
// settles when it has run.
Napi::Value QueueJob(const Napi::CallbackInfo& info, std::unique_ptr<AsyncJob> job,
                     const char* name);

// The `stage` argument of an asynchronous binding, its last (lib/route.js
// jobMask): bit i stages the i-th tensor operand (job_memory.h).
inline uint32_t StageMask(const Napi::CallbackInfo& info) {
  return info[info.Length() - 1].As<Napi::Number>().Uint32Value();
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_ASYNC_OP_H_
