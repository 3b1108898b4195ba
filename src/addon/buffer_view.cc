#include "buffer_view.h"

#include "../core/buffer_view.h"
#include "env_state.h"

namespace dlnode {

Napi::Value BufferViewCount(const Napi::CallbackInfo& info) {
  const double* args = EnvState::Of(info.Env()).scratch() + slot::kView;
  const ViewResult r = CheckBufferView(args[0], args[1], args[2], args[3], args[4]);
  if (r.failure == ViewFailure::kSource) {
    throw Error{code::kInvalidArgValue,
                "Expected a byte length, view offset and element size that are safe integers "
                "for `source`, received values outside that range"};
  }
  const double value = r.ok() ? static_cast<double>(r.count) : -static_cast<double>(r.failure);
  return Napi::Number::New(info.Env(), value);
}

}  // namespace dlnode
