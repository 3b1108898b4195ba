#include "buffer_view.h"

#include "../core/buffer_view.h"
#include "env_state.h"

namespace dlnode {

Napi::Value BufferViewCount(const Napi::CallbackInfo& info) {
  const double* args = EnvState::Of(info.Env()).scratch() + slot::kView;
  const ViewResult r = CheckBufferView(args[0], args[1], args[2], args[3], args[4]);
  // kSource is a bug in lib/, thrown; the caller's mistakes come back as
  // minus their ViewFailure for lib/create.js to word (buffer_view.h).
  if (r.failure == ViewFailure::kSource) ThrowIfFailed(r);
  const double value = r.ok() ? static_cast<double>(r.count) : -static_cast<double>(r.failure);
  return Napi::Number::New(info.Env(), value);
}

}  // namespace dlnode
