// Errors raised by native code. They carry the stable `code` of docs/API.md and
// are turned into JavaScript errors by the factory lib/errors.js registers at
// load (EnvState::MakeError), so class and code come from one table in JS.
#ifndef DLPACK_NODE_ADDON_ERRORS_H_
#define DLPACK_NODE_ADDON_ERRORS_H_

#include <napi.h>

#include <string>

#include "../core/error_codes.h"
#include "../core/result.h"

namespace dlnode {

struct Error {
  const char* code;
  std::string message;
  std::string detail = {};  // CUDA errors: the cudaError name (CudaError.cudaError)
};

// The one translation of a src/core failure (core/result.h) into an Error: its
// table's code and its message as src/core worded them. ThrowIfFailed throws
// it; Guarded<> (env_state.h) catches the Error and hands it back through
// EnvState::Fail, as for any other Error.
// ErrorOf is that Error, for a failure handed back other than by a throw (a
// rejected promise).
template <typename Failure>
Error ErrorOf(const Result<Failure>& result) {
  return Error{result.code(), result.message, result.detail};
}

template <typename Failure>
void ThrowIfFailed(const Result<Failure>& result) {
  if (!result.ok()) throw ErrorOf(result);
}

// Throws a pending JS exception for a failed napi_status (programming errors
// and engine refusals; not for bad user input, which JS has validated).
void Check(napi_env env, napi_status status, const char* what);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_ERRORS_H_
