#include "env_state.h"

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../core/cuda_runtime.h"
#include "../core/stats.h"

namespace dlnode {

void Check(napi_env env, napi_status status, const char* what) {
  if (status == napi_ok) return;
  throw Napi::Error::New(env, std::string("Node-API call failed: ") + what);
}

namespace {

// Every live EnvLink in the process, so that a thread that ends can warn
// through another one. Process-wide on purpose: it spans environments.
std::mutex links_mutex;
std::vector<EnvLink*>& Links() {
  static auto* links = new std::vector<EnvLink*>();  // never destroyed: deleters may run at exit
  return *links;
}

}  // namespace

EnvLink::EnvLink(napi_env env) {
  napi_value name;
  Check(env, napi_create_string_utf8(env, "dlpack-release", NAPI_AUTO_LENGTH, &name), "name");
  Check(env,
        napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, this,
                                        &EnvLink::CallJs, &wake_),
        "napi_create_threadsafe_function");
  // Releases never keep the process alive on their own.
  Check(env, napi_unref_threadsafe_function(env, wake_), "napi_unref_threadsafe_function");
  std::lock_guard<std::mutex> lock(links_mutex);
  Links().push_back(this);
}

EnvLink::~EnvLink() {
  std::lock_guard<std::mutex> lock(links_mutex);
  auto& links = Links();
  for (size_t i = 0; i < links.size(); ++i) {
    if (links[i] == this) {
      links.erase(links.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
}

void EnvLink::SetWarn(napi_env env, napi_value warn, bool main_thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (warn_ != nullptr) napi_delete_reference(env, warn_);
  warn_ = nullptr;
  napi_create_reference(env, warn, 1, &warn_);
  main_thread_ = main_thread;
}

void EnvLink::WakeLocked() {
  if (woken_) return;
  woken_ = true;
  napi_call_threadsafe_function(wake_, nullptr, napi_tsfn_nonblocking);
}

void EnvLink::PostWarning(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!alive_) return;
  warnings_.push_back(message);
  pending_count_.fetch_add(1, std::memory_order_release);
  WakeLocked();
}

void EnvLink::PostRelease(napi_ref ref) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!alive_) return;  // the environment is gone and took its references with it
  pending_.push_back(ref);
  pending_count_.fetch_add(1, std::memory_order_release);
  WakeLocked();
}

void EnvLink::EntryReleased() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!alive_ || sweep_due_) return;
  sweep_due_ = true;
  pending_count_.fetch_add(1, std::memory_order_release);
  WakeLocked();
}

void EnvLink::SetSweep(napi_env env, napi_value sweep) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (sweep_ != nullptr) return;  // the first load's function serves them all
  napi_create_reference(env, sweep, 1, &sweep_);
}

void EnvLink::Drain(napi_env env) {
  std::vector<napi_ref> refs;
  std::vector<std::string> warnings;
  napi_ref warn = nullptr;
  napi_ref sweep = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    refs.swap(pending_);
    warnings.swap(warnings_);
    pending_count_.store(0, std::memory_order_release);
    woken_ = false;
    if (sweep_due_) sweep = sweep_;
    sweep_due_ = false;
    warn = warn_;
  }
  for (napi_ref ref : refs) napi_delete_reference(env, ref);
  napi_value fn = nullptr;
  if (sweep != nullptr && napi_get_reference_value(env, sweep, &fn) == napi_ok && fn != nullptr) {
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    if (napi_call_function(env, undefined, fn, 0, nullptr, nullptr) != napi_ok) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
  }
  fn = nullptr;
  if (warnings.empty() || warn == nullptr || napi_get_reference_value(env, warn, &fn) != napi_ok ||
      fn == nullptr) {
    return;
  }
  for (const std::string& message : warnings) {
    napi_value text;
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    if (napi_create_string_utf8(env, message.c_str(), message.size(), &text) != napi_ok) return;
    // A throwing handler must not leave an exception pending in this callback.
    if (napi_call_function(env, undefined, fn, 1, &text, nullptr) != napi_ok) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
  }
}

void EnvLink::CallJs(napi_env env, napi_value, void* context, void*) {
  if (env != nullptr) static_cast<EnvLink*>(context)->Drain(env);
}

void EnvLink::Shutdown(napi_env env, int slab_out) {
  bool main_thread = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    main_thread = main_thread_;
    for (napi_ref ref : pending_) napi_delete_reference(env, ref);
    pending_.clear();
    warnings_.clear();
    pending_count_.store(0, std::memory_order_release);
    alive_ = false;  // from here on no other thread copies from this heap
    napi_release_threadsafe_function(wake_, napi_tsfn_abort);
    if (sweep_ != nullptr) napi_delete_reference(env, sweep_);
    sweep_ = nullptr;
  }
  // The main thread ends with the process: its structs go with it.
  const int64_t out = exports_.load(std::memory_order_relaxed) + slab_out;
  if (out <= 0 || main_thread) return;
  const std::string message =
      "A thread ended while native code still held " + std::to_string(out) + " DLPack struct" +
      (out == 1 ? "" : "s") +
      " (toPointer()) over its JavaScript memory, which lives only as long as " +
      "the thread: do not read them any more (calling their deleters is still safe)";
  // Warn through another thread's JS, the main thread's first; with none, stderr.
  EnvLink* target = nullptr;
  {
    std::lock_guard<std::mutex> lock(links_mutex);
    for (EnvLink* link : Links()) {
      if (link == this) continue;
      std::lock_guard<std::mutex> other(link->mutex_);
      if (!link->alive_ || link->warn_ == nullptr) continue;
      if (target == nullptr || link->main_thread_) target = link;
    }
    if (target != nullptr) {
      target->PostWarning(message);
      return;
    }
  }
  std::fprintf(stderr, "(node:%d) Warning [DLPACK_THREAD_MEMORY]: %s\n", static_cast<int>(getpid()),
               message.c_str());
}

EnvState::EnvState(napi_env env) : env_(env), link_(std::make_shared<EnvLink>(env)) {
  void* data = nullptr;
  napi_value buffer;
  Check(env, napi_create_arraybuffer(env, slot::kCount * sizeof(double), &data, &buffer),
        "napi_create_arraybuffer");
  Check(env, napi_create_reference(env, buffer, 1, &scratch_ref_), "napi_create_reference");
  scratch_ = static_cast<double*>(data);

  // Probe for external ArrayBuffer support (refused under the V8 sandbox).
  void* probe = std::malloc(1);
  napi_value external;
  const napi_status status = napi_create_external_arraybuffer(
      env, probe, 1, [](node_api_basic_env, void* p, void*) { std::free(p); }, nullptr, &external);
  if (status != napi_ok) std::free(probe);
  external_buffers_ = status == napi_ok;
}

EnvState::~EnvState() = default;

void EnvState::AddStream(int device, uintptr_t stream) {
  streams_.emplace_back(device, stream);
  stats::cuda_streams_live.fetch_add(1);
}

bool EnvState::RemoveStream(uintptr_t stream) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].second != stream) continue;
    streams_.erase(streams_.begin() + static_cast<std::ptrdiff_t>(i));
    stats::cuda_streams_live.fetch_sub(1);
    return true;
  }
  return false;
}

void EnvState::Shutdown() {
  // Streams JS never disposed (a worker's end runs no finalizers). CUDA
  // releases a stream's resources once its work is done; after exit has
  // begun the driver may be gone, and process exit frees them anyway.
  for (const auto& [device, stream] : streams_) {
    if (!cuda::ShuttingDown()) cuda::StreamDestroy(device, stream);
    stats::cuda_streams_live.fetch_sub(1);
  }
  streams_.clear();
  // The slab first: from here on its deleters no longer wake this environment.
  const int slab_out = slab_ != nullptr ? slab_->Detach() : 0;
  slab_ = nullptr;
  if (slab_object_ != nullptr) napi_delete_reference(env_, slab_object_);
  slab_object_ = nullptr;
  link_->Shutdown(env_, slab_out);
}

napi_value EnvState::SlabObject(napi_env env) const {
  napi_value value = nullptr;
  if (slab_object_ != nullptr)
    Check(env, napi_get_reference_value(env, slab_object_, &value), "slab");
  return value;
}

void EnvState::SetSlabObject(napi_env env, napi_value object, napi_value sweep) {
  Check(env, napi_create_reference(env, object, 1, &slab_object_), "napi_create_reference");
  link_->SetSweep(env, sweep);
}

void EnvState::RefuseSlab(StructSlab* slab) {
  if (slab != nullptr) slab->Detach();
  slab_refused_ = true;
}

EnvState& EnvState::Of(node_api_basic_env env) {
  void* data = nullptr;
  napi_get_instance_data(env, &data);
  return *static_cast<EnvState*>(data);
}

napi_value EnvState::ScratchBuffer(napi_env env) const {
  napi_value value;
  Check(env, napi_get_reference_value(env, scratch_ref_, &value), "scratch");
  return value;
}

void EnvState::SetFactory(napi_env env, napi_value factory) {
  if (factory_ != nullptr) napi_delete_reference(env, factory_);
  Check(env, napi_create_reference(env, factory, 1, &factory_), "napi_create_reference");
}

void EnvState::AdjustExternal(napi_env env, int64_t change) {
  unreported_ += change;
  if (unreported_ < kExternalBatch && unreported_ > -kExternalBatch) return;
  int64_t ignored;
  napi_adjust_external_memory(env, unreported_, &ignored);
  unreported_ = 0;
}

void EnvState::LoopTurned(napi_env env) {
  piled_ = 0;
  AdjustExternal(env, 0);  // what finalizers dropped since (DropExternal)
}

napi_value EnvState::MakeError(napi_env env, const Error& e) {
  Napi::Env napi_env(env);
  napi_value fn;
  if (factory_ == nullptr || napi_get_reference_value(env, factory_, &fn) != napi_ok ||
      fn == nullptr) {
    // Explicit fallback: no factory registered (binding used directly).
    Napi::Error err = Napi::Error::New(napi_env, e.message);
    err.Set("code", Napi::String::New(napi_env, e.code));
    return err.Value();
  }
  Napi::Function factory(env, fn);
  return factory.Call(
      {Napi::String::New(napi_env, e.code), Napi::String::New(napi_env, e.message),
       e.detail.empty() ? napi_env.Undefined() : Napi::String::New(napi_env, e.detail)});
}

void EnvState::SetFailureMarker(napi_env env, napi_value marker) {
  if (failure_marker_ != nullptr) napi_delete_reference(env, failure_marker_);
  failure_marker_ = nullptr;
  Check(env, napi_create_reference(env, marker, 1, &failure_marker_), "napi_create_reference");
}

napi_value EnvState::Fail(napi_env env, napi_value error) {
  napi_value marker = nullptr;
  napi_ref kept = nullptr;
  if (failure_marker_ == nullptr ||
      napi_get_reference_value(env, failure_marker_, &marker) != napi_ok || marker == nullptr ||
      napi_create_reference(env, error, 1, &kept) != napi_ok) {
    ThrowIntoJs(env, error);
    return nullptr;
  }
  if (pending_error_ != nullptr) napi_delete_reference(env, pending_error_);
  pending_error_ = kept;
  return marker;
}

napi_value EnvState::TakeError(napi_env env) {
  napi_value error = nullptr;
  if (pending_error_ != nullptr) {
    napi_get_reference_value(env, pending_error_, &error);
    napi_delete_reference(env, pending_error_);
    pending_error_ = nullptr;
  }
  if (error == nullptr) napi_get_undefined(env, &error);
  return error;
}

void ThrowIntoJs(napi_env env, napi_value error) noexcept {
  bool pending = false;
  if (error == nullptr || napi_is_exception_pending(env, &pending) != napi_ok || pending) return;
  napi_throw(env, error);  // fails only while the environment ends: nothing to do then
}

}  // namespace dlnode
