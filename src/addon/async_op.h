// The asynchronous form of a native op (docs/API.md "Off the event loop"): a
// Job read from the call's arguments on the JS thread, run on a libuv thread,
// and a Promise settled back on the JS thread. A Job is not movable (its
// operands point into it) and has
//   JobMemory memory;                   // what it reads and writes (job_memory.h)
//   bool Run() const;                   // on the libuv thread; never touches JS
//   static constexpr const char* kRefused;  // the message when Run() is false
#ifndef DLPACK_NODE_ADDON_ASYNC_OP_H_
#define DLPACK_NODE_ADDON_ASYNC_OP_H_

#include <napi.h>

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "../core/libstdcxx_floor.h"  // condition_variable::wait at GCC 11's version
#include "../core/parallel.h"
#include "env_state.h"
#include "job_memory.h"

namespace dlnode {

// How a job ended, made on the libuv thread without touching JS: no
// exception ever leaves a libuv job (issue 37, findings 2 and 9). A
// std::bad_alloc is ERR_DLPACK_OUT_OF_MEMORY, as Guarded<> reports it for the
// synchronous form; an Error keeps its code; anything else is an internal
// error, as Guarded<> words it.
struct JobOutcome {
  bool ran = false;    // Run() returned true
  bool coded = false;  // `error` holds a coded failure
  Error error{nullptr, {}};
  std::string internal;  // an uncoded failure's message (coded false, ran false)

  template <class Run>
  static JobOutcome Of(const Run& run) noexcept {
    JobOutcome outcome;
    try {
      try {
        outcome.ran = run();
      } catch (const Error& e) {
        outcome.Fail(e);
      } catch (const std::bad_alloc&) {
        outcome.Fail(Error{code::kOutOfMemory, "Out of memory"});
      } catch (const std::exception& e) {
        outcome.internal = std::string("dlpack internal error: ") + e.what();
      } catch (...) {
        outcome.internal = "dlpack internal error";
      }
    } catch (...) {
      // Copying a message failed (out of memory): the bare code is left.
      outcome.coded = true;
      outcome.error.code = code::kOutOfMemory;
    }
    return outcome;
  }

  void Fail(const Error& e) {
    coded = true;
    error = e;
  }
};

// The asynchronous form: the engine runs on a libuv thread. What it reads and
// writes is held by the job (job_memory.h: native memory by reference, the
// library's own ArrayBuffers staged) and the arguments by references until it
// settles (lib/ holds the tensors' storage too). An environment that ends
// while the job runs (worker.terminate(), process.exit()) waits for it in a
// cleanup hook, which then frees the job; the job never touches JS, and its
// worker object is left unfreed on purpose.
template <class Job>
class OpWorker : public Napi::AsyncWorker {
 public:
  OpWorker(const Napi::CallbackInfo& info, std::unique_ptr<Job> job, const char* name)
      : Napi::AsyncWorker(info.Env(), name),
        deferred_(Napi::Promise::Deferred::New(info.Env())),
        job_(job.get()),
        flight_(new Flight()) {
    flight_->job = std::move(job);
    // Every argument by index, so that Settle() finds a staged output's
    // buffer again; a number is kept as an empty reference.
    for (size_t i = 0; i < info.Length(); ++i) {
      held_.push_back(info[i].IsObject() ? Napi::Persistent(info[i].As<Napi::Object>())
                                         : Napi::ObjectReference());
    }
    napi_add_env_cleanup_hook(info.Env(), WaitForJob, flight_);
  }

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    {
      // The loop leaves a core to the event loop (src/core/parallel.h).
      const OffEventLoop off_event_loop;
      const Job& job = *job_;
      outcome_ = JobOutcome::Of([&job] { return job.Run(); });
      job_->memory.Release();
    }
    std::lock_guard<std::mutex> lock(flight_->mutex);
    flight_->done = true;
    flight_->cv.notify_all();
  }

  void OnOK() override {
    napi_env env = Env();
    if (outcome_.ran) {
      // Staged outputs back into their buffers, on this thread.
      std::vector<napi_value> args;
      for (const Napi::ObjectReference& ref : held_) {
        args.push_back(ref.IsEmpty() ? nullptr : static_cast<napi_value>(ref.Value()));
      }
      outcome_ = JobOutcome::Of([this, env, &args] {
        job_->memory.Settle(env, args);
        return true;
      });
    } else if (!outcome_.coded && outcome_.internal.empty()) {
      outcome_.Fail(Error{code::kUnsupported, Job::kRefused});
    }
    Settle();
    if (outcome_.ran) {
      deferred_.Resolve(Env().Undefined());
    } else if (outcome_.coded) {
      deferred_.Reject(EnvState::Of(env).MakeError(env, outcome_.error));
    } else {
      deferred_.Reject(Napi::Error::New(Env(), outcome_.internal).Value());
    }
  }

  void OnError(const Napi::Error& e) override {
    Settle();
    deferred_.Reject(e.Value());
  }

 private:
  struct Flight {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    std::unique_ptr<Job> job;  // freed by Settle(), or by the hook at teardown
  };

  static void WaitForJob(void* arg) {
    auto* flight = static_cast<Flight*>(arg);
    std::unique_lock<std::mutex> lock(flight->mutex);
    flight->cv.wait(lock, [flight] { return flight->done; });
    // The environment ends: OnOK never runs, so the job's staged bytes go now.
    // The flight is left allocated: the worker may still point at it.
    flight->job.reset();
  }

  void Settle() {
    napi_remove_env_cleanup_hook(Env(), WaitForJob, flight_);
    delete flight_;  // and the job
    flight_ = nullptr;
    job_ = nullptr;
  }

  Napi::Promise::Deferred deferred_;
  Job* job_;        // owned by flight_
  Flight* flight_;  // shared with the cleanup hook until Settle()
  std::vector<Napi::ObjectReference> held_;
  JobOutcome outcome_;
};

// Queues a Job already read from the arguments on a libuv thread; the Promise
// settles when it has run.
template <class Job>
Napi::Value QueueJob(const Napi::CallbackInfo& info, std::unique_ptr<Job> job, const char* name) {
  auto* worker = new OpWorker<Job>(info, std::move(job), name);  // deleted by Node-API when done
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// The `stage` argument of an asynchronous binding (lib/route.js jobMask):
// bit i stages the i-th tensor operand (job_memory.h).
inline uint32_t StageMask(const Napi::Value& value) {
  return static_cast<uint32_t>(value.As<Napi::Number>().Uint32Value());
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_ASYNC_OP_H_
