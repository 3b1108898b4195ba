#include "async_op.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "../core/libstdcxx_floor.h"  // condition_variable::wait at GCC 11's version
#include "../core/parallel.h"
#include "env_state.h"

namespace dlnode {
namespace {

// How a job ended, made without touching JS (so on the libuv thread too).
struct Outcome {
  bool ran = false;    // the step returned true
  bool coded = false;  // `error` holds a coded failure
  Error error{nullptr, {}};
  std::string internal;  // an uncoded failure's message

  void Fail(const char* code, const char* message) {
    coded = true;
    error.code = code;
    error.message = message;
  }
};

// Runs `step(job)`, turning whatever it throws into the Outcome.
template <class Step>
Outcome Caught(const Step& step) noexcept {
  Outcome outcome;
  try {
    try {
      outcome.ran = step();
    } catch (const Error& e) {
      outcome.coded = true;
      outcome.error = e;
    } catch (const std::bad_alloc&) {
      outcome.Fail(code::kOutOfMemory, "Out of memory");
    } catch (const std::exception& e) {
      outcome.internal = std::string("dlpack internal error: ") + e.what();
    } catch (...) {
      outcome.internal = "dlpack internal error";
    }
  } catch (...) {
    // Copying a message failed (out of memory): the bare code is left.
    outcome.coded = true;
    outcome.error = Error{code::kOutOfMemory, {}};
  }
  return outcome;
}

class JobWorker : public Napi::AsyncWorker {
 public:
  JobWorker(const Napi::CallbackInfo& info, std::unique_ptr<AsyncJob> job, const char* name)
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
      const AsyncJob& job = *job_;
      outcome_ = Caught([&job] { return job.Run(); });
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
      AsyncJob* job = job_;
      outcome_ = Caught([job, env, &args] {
        job->memory.Settle(env, args);
        return true;
      });
    } else if (!outcome_.coded && outcome_.internal.empty()) {
      outcome_.Fail(code::kUnsupported, job_->Refused());
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
    std::unique_ptr<AsyncJob> job;  // freed by Settle(), or by the hook at teardown
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
  AsyncJob* job_;   // owned by flight_
  Flight* flight_;  // shared with the cleanup hook until Settle()
  std::vector<Napi::ObjectReference> held_;
  Outcome outcome_;
};

}  // namespace

Napi::Value QueueJob(const Napi::CallbackInfo& info, std::unique_ptr<AsyncJob> job,
                     const char* name) {
  auto* worker = new JobWorker(info, std::move(job), name);  // deleted by Node-API when done
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace dlnode
