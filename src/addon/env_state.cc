#include "env_state.h"

#include <cstdlib>

namespace dlnode {

void Check(napi_env env, napi_status status, const char* what) {
  if (status == napi_ok) return;
  throw Napi::Error::New(env, std::string("Node-API call failed: ") + what);
}

EnvLink::EnvLink(napi_env env) {
  napi_value name;
  Check(env, napi_create_string_utf8(env, "dlpack-release", NAPI_AUTO_LENGTH, &name), "name");
  Check(env,
        napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, this,
                                        &EnvLink::CallJs, &wake_),
        "napi_create_threadsafe_function");
  // Releases never keep the process alive on their own.
  Check(env, napi_unref_threadsafe_function(env, wake_), "napi_unref_threadsafe_function");
}

void EnvLink::PostRelease(napi_ref ref) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!alive_) return;  // the environment is gone and took its references with it
  pending_.push_back(ref);
  pending_count_.store(pending_.size(), std::memory_order_release);
  if (pending_.size() == 1) napi_call_threadsafe_function(wake_, nullptr, napi_tsfn_nonblocking);
}

void EnvLink::Drain(napi_env env) {
  std::vector<napi_ref> refs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    refs.swap(pending_);
    pending_count_.store(0, std::memory_order_release);
  }
  for (napi_ref ref : refs) napi_delete_reference(env, ref);
}

void EnvLink::CallJs(napi_env env, napi_value, void* context, void*) {
  if (env != nullptr) static_cast<EnvLink*>(context)->Drain(env);
}

void EnvLink::Shutdown(napi_env env) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (napi_ref ref : pending_) napi_delete_reference(env, ref);
  pending_.clear();
  pending_count_.store(0, std::memory_order_release);
  alive_ = false;
  napi_release_threadsafe_function(wake_, napi_tsfn_abort);
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

EnvState& EnvState::Of(napi_env env) {
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

void EnvState::Throw(napi_env env, const Error& e) {
  Napi::Env napi_env(env);
  napi_value fn;
  if (factory_ == nullptr || napi_get_reference_value(env, factory_, &fn) != napi_ok ||
      fn == nullptr) {
    // Explicit fallback: no factory registered (binding used directly).
    Napi::Error err = Napi::Error::New(napi_env, e.message);
    err.Set("code", Napi::String::New(napi_env, e.code));
    throw err;
  }
  Napi::Function factory(env, fn);
  Napi::Value error = factory.Call({Napi::String::New(napi_env, e.code), Napi::String::New(napi_env, e.message),
                                    e.detail.empty() ? napi_env.Undefined()
                                                     : Napi::String::New(napi_env, e.detail)});
  throw Napi::Error(env, error);
}

}  // namespace dlnode
