// Per-environment state (main thread and each worker have their own), kept
// as Node-API instance data: the error factory, the scratch block shared
// with JS (its slots: convention.h), and the link deleters use to release JS
// buffers.
#ifndef DLPACK_NODE_ADDON_ENV_STATE_H_
#define DLPACK_NODE_ADDON_ENV_STATE_H_

#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../core/layout.h"
#include "../core/struct_slab.h"
#include "convention.h"
#include "errors.h"

namespace dlnode {

// Outlives the environment: deleters that run on other threads, or after the
// environment is gone, hold it to find out whether JS is still there.
//
// Memory on a thread's JavaScript heap lives as long as that thread
// (docs/API.md "Lifetimes"): a struct over it that another thread imports is copied while
// the owner still runs (WhileAlive), and when the owner ends with such structs
// still out, another thread's JS (or stderr, when there is none) is warned.
//
// It also owns the environment's struct slab on the slab's side
// (SlabOwner): a deleter that frees an entry wakes the JS thread, which sweeps.
class EnvLink final : public SlabOwner {
 public:
  explicit EnvLink(napi_env env);
  ~EnvLink() override;
  // Queue `ref` for deletion on the JS thread. Any thread. After teardown
  // the reference is left alone: Node-API has already dropped the heap.
  void PostRelease(napi_ref ref);
  // JS thread only: delete every queued reference, then emit queued warnings.
  void Drain(napi_env env);
  bool has_pending() const { return pending_count_.load(std::memory_order_acquire) != 0; }
  // Environment cleanup hook: drain, then refuse further posts; warns when
  // structs over this thread's JS memory are still out (`slab_out` of them
  // in its struct slab, the rest counted by AddExport).
  void Shutdown(napi_env env, int slab_out);

  // Any thread: a slab entry was freed by its deleter; the JS thread is
  // woken to call the sweep function (SetSweep).
  void EntryReleased() noexcept override;
  void SetSweep(napi_env env, napi_value sweep);

  // Runs `copy` while this environment's heap is certain to stay (teardown
  // waits); false, without running it, once the environment has ended.
  template <typename F>
  bool WhileAlive(F&& copy) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!alive_) return false;
    copy();
    return true;
  }

  // Structs over this environment's JS memory (JsKeepalive) now out.
  void AddExport() { exports_.fetch_add(1, std::memory_order_relaxed); }
  void RemoveExport() { exports_.fetch_sub(1, std::memory_order_relaxed); }

  // The JS function that emits a process warning (lib/binding.js), and
  // whether this is the main thread (preferred for other threads' warnings).
  void SetWarn(napi_env env, napi_value warn, bool main_thread);

 private:
  static void CallJs(napi_env env, napi_value, void* context, void*);
  void PostWarning(const std::string& message);
  // Calls the JS thread unless a call is already on its way. Under mutex_.
  void WakeLocked();
  std::mutex mutex_;
  bool alive_ = true;
  bool main_thread_ = false;  // guarded by mutex_
  napi_threadsafe_function wake_ = nullptr;
  std::vector<napi_ref> pending_;
  std::vector<std::string> warnings_;
  bool woken_ = false;      // guarded by mutex_: a call to Drain is on its way
  bool sweep_due_ = false;  // guarded by mutex_
  napi_ref sweep_ = nullptr;
  std::atomic<size_t> pending_count_{0};
  std::atomic<int64_t> exports_{0};
  napi_ref warn_ = nullptr;
};

class EnvState {
 public:
  explicit EnvState(napi_env env);
  ~EnvState();
  EnvState(const EnvState&) = delete;
  EnvState& operator=(const EnvState&) = delete;

  static EnvState& Of(node_api_basic_env env);

  // Environment cleanup hook: release queued references, then make every
  // later release from a deleter a deliberate no-op.
  void Shutdown();

  // The JS error for `e`, built by the registered factory and not thrown:
  // Guarded hands it back through Fail, a promise rejects with it.
  napi_value MakeError(napi_env env, const Error& e);

  void SetFactory(napi_env env, napi_value factory);

  // How a binding fails without throwing (Guarded): it keeps `error` as this
  // environment's pending error and returns the failure marker JS gave
  // init(); lib/binding.js's wrapper sees the marker, takes the error
  // (TakeError) and throws it from JavaScript. A Node-API throw would leave
  // the exception pending in Node-API until the callback returns, and a GC
  // during the rethrow that runs a finalizer (ours run inside GC) makes Node
  // treat that exception as the finalizer's own: a fatal error (issue 20,
  // HIGH 3). Before init() has given a marker, the error is thrown as before.
  void SetFailureMarker(napi_env env, napi_value marker);
  napi_value Fail(napi_env env, napi_value error);
  // The pending error, cleared; undefined when there is none.
  napi_value TakeError(napi_env env);

  // The scratch block: a JS ArrayBuffer this module allocated, never handed
  // to user code and never detached, so its data pointer is stable for the
  // environment's life (the one cached JS pointer in the addon).
  double* scratch() const { return scratch_; }
  napi_value ScratchBuffer(napi_env env) const;

  const std::shared_ptr<EnvLink>& link() const { return link_; }

  // Whether the runtime accepts external ArrayBuffers (no V8 sandbox). Probed
  // at load; tests may turn it off to exercise the copy fallback.
  bool external_buffers() const { return external_buffers_; }
  void set_external_buffers(bool allowed) { external_buffers_ = allowed; }

  // Tells V8 about natively owned memory this environment made or dropped
  // (napi_adjust_external_memory), in batches: changes add up here until
  // they reach kExternalBatch bytes either way, so a loop of small
  // allocations and frees makes no call at all while a large one is told at
  // once. AdjustExternal runs on the JS thread outside garbage collection
  // only (a napi_env, which a GC finalizer's node_api_basic_env does not
  // convert to): DropExternal is what a finalizer calls, bookkeeping alone,
  // told to V8 by the next AdjustExternal or LoopTurned. On Node 20 and 22
  // (V8 11.3, 12.4) a napi_adjust_external_memory from a finalizer that runs
  // inside a collection (NAPI_EXPERIMENTAL's basic finalizers), even of a
  // negative change, leaves the collector's state such that a later positive
  // report aborts the process in CppHeap ("Check failed: marking_done_"):
  // test/memory.test.js "dropped tensors" is that program.
  static constexpr int64_t kExternalBatch = 1 << 20;
  void AdjustExternal(napi_env env, int64_t change);
  void DropExternal(int64_t bytes) { unreported_ -= bytes; }

  // Native memory whose owner garbage collection released during this turn
  // of the event loop while an ArrayBuffer over it was alive: Node frees it
  // on a later turn (host_storage.cc BufferHold), so a synchronous loop that
  // never yields piles it up. LoopTurned() (lib/memory.js, from a
  // setImmediate) starts the count again. JS thread, GC finalizers included.
  void PileUp(int64_t bytes) { piled_ += bytes; }
  int64_t piled() const { return piled_; }
  void LoopTurned(napi_env env);

  // The struct slab (addon/struct_slab.h): the object JS reads it through,
  // or nullptr before the first request; the slab itself, given back to the
  // pool at cleanup.
  napi_value SlabObject(napi_env env) const;
  void SetSlab(StructSlab* slab) { slab_ = slab; }
  void SetSlabObject(napi_env env, napi_value object, napi_value sweep);
  // This environment gets no slab (given back, if one was taken).
  void RefuseSlab(StructSlab* slab);
  bool slab_refused() const { return slab_refused_; }

  // CUDA streams this environment made (new dl.cuda.Stream()): those still
  // alive at cleanup are destroyed then, since FinalizationRegistry
  // callbacks do not run when a worker ends.
  void AddStream(int device, uintptr_t stream);
  // False when this environment did not make `stream` (or it is gone).
  bool RemoveStream(uintptr_t stream);

 private:
  napi_env env_;
  napi_ref factory_ = nullptr;
  napi_ref failure_marker_ = nullptr;
  napi_ref pending_error_ = nullptr;
  napi_ref scratch_ref_ = nullptr;
  double* scratch_ = nullptr;
  std::shared_ptr<EnvLink> link_;
  bool external_buffers_ = true;
  int64_t unreported_ = 0;  // external memory change not yet told to V8
  int64_t piled_ = 0;       // see PileUp
  StructSlab* slab_ = nullptr;
  napi_ref slab_object_ = nullptr;
  bool slab_refused_ = false;
  std::vector<std::pair<int, uintptr_t>> streams_;  // (device, handle)
};

// Throws `error` into JS unless an exception is already pending (a JS error
// on its way, or the termination of an ending environment: worker.terminate(),
// process.exit()), where nothing more can be thrown and the caller never sees
// the result. Never throws C++.
void ThrowIntoJs(napi_env env, napi_value error) noexcept;

// Every binding is called through this: no C++ exception may leave a
// Node-API callback (that is std::terminate). Our Errors become coded JS
// errors, a Napi::Error is passed on as it is, anything else becomes a JS
// error; all of them are handed back through EnvState::Fail (JS throws
// them), or ThrowIntoJs before init(), and never by node-addon-api: its
// ThrowAsJavaScriptException throws C++ again when an exception is already
// pending, which is what an ending environment looks like (the terminate
// storm in test/threads.test.js aborted on Node 24 that way). Making the
// error can itself fail while the environment ends; that is dropped too.
// NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS (binding.gyp, CMakeLists.txt)
// covers node-addon-api's own throws outside the bindings.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value Guarded(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  napi_value error = nullptr;
  try {
    try {
      return F(info);
    } catch (const Error& e) {
      error = EnvState::Of(env).MakeError(env, e);
    } catch (const Napi::Error& e) {
      if (!e.IsEmpty()) error = e.Value();
    } catch (const std::bad_alloc&) {
      error = EnvState::Of(env).MakeError(env, Error{code::kOutOfMemory, "Out of memory"});
    } catch (const std::exception& e) {
      error = Napi::Error::New(env, std::string("dlpack internal error: ") + e.what()).Value();
    } catch (...) {
      error = Napi::Error::New(env, "dlpack internal error").Value();
    }
  } catch (...) {
    // Making the error failed: the environment is ending and JS cannot run.
    return Napi::Value();
  }
  if (error == nullptr) return Napi::Value();
  return Napi::Value(env, EnvState::Of(env).Fail(env, error));
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_ENV_STATE_H_
