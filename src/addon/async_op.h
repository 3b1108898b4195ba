// The asynchronous form of a native op (docs/API.md "Off the event loop"): a
// Job read from the call's arguments on the JS thread, run on a libuv thread,
// and a Promise settled back on the JS thread. A Job is not movable (its
// operands point into it) and has
//   bool Run() const;                   // on the libuv thread; never touches JS
//   static constexpr const char* kRefused;  // the message when Run() is false
#ifndef DLPACK_NODE_ADDON_ASYNC_OP_H_
#define DLPACK_NODE_ADDON_ASYNC_OP_H_

#include <napi.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "../core/libstdcxx_floor.h"  // condition_variable::wait at GCC 11's version
#include "../core/parallel.h"
#include "env_state.h"

namespace dlnode {

// The asynchronous form: the engine runs on a libuv thread. The buffers are
// held by references until it settles (lib/ops.js holds the tensors' storage
// too). An environment that ends while the job runs (worker.terminate(),
// process.exit()) waits for it in a cleanup hook before its memory goes: the
// job never touches JS, and its worker object is then left unfreed on purpose.
template <class Job>
class OpWorker : public Napi::AsyncWorker {
 public:
  OpWorker(const Napi::CallbackInfo& info, std::unique_ptr<Job> job, const char* name)
      : Napi::AsyncWorker(info.Env(), name),
        deferred_(Napi::Promise::Deferred::New(info.Env())),
        job_(std::move(job)),
        flight_(new Flight()) {
    for (size_t i = 0; i < info.Length(); ++i) {
      if (info[i].IsObject()) held_.push_back(Napi::Persistent(info[i].As<Napi::Object>()));
    }
    napi_add_env_cleanup_hook(info.Env(), WaitForJob, flight_);
  }

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    {
      // The loop leaves a core to the event loop (src/core/parallel.h).
      const OffEventLoop off_event_loop;
      ok_ = job_->Run();
    }
    std::lock_guard<std::mutex> lock(flight_->mutex);
    flight_->done = true;
    flight_->cv.notify_all();
  }

  void OnOK() override {
    Settle();
    if (ok_) {
      deferred_.Resolve(Env().Undefined());
    } else {
      deferred_.Reject(
          EnvState::Of(Env()).MakeError(Env(), Error{code::kUnsupported, Job::kRefused}));
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
  };

  static void WaitForJob(void* arg) {
    auto* flight = static_cast<Flight*>(arg);
    std::unique_lock<std::mutex> lock(flight->mutex);
    flight->cv.wait(lock, [flight] { return flight->done; });
    // Left allocated: the worker may still point at it (teardown).
  }

  void Settle() {
    napi_remove_env_cleanup_hook(Env(), WaitForJob, flight_);
    delete flight_;
    flight_ = nullptr;
  }

  Napi::Promise::Deferred deferred_;
  std::unique_ptr<Job> job_;
  Flight* flight_;  // shared with the cleanup hook until Settle()
  std::vector<Napi::ObjectReference> held_;
  bool ok_ = false;
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

// Reads a Job from the arguments (Job::Read) and queues it.
template <class Job>
Napi::Value Queue(const Napi::CallbackInfo& info, const char* name) {
  auto job = std::make_unique<Job>();
  job->Read(info);
  return QueueJob(info, std::move(job), name);
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_ASYNC_OP_H_
