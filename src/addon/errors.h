// Errors raised by native code. They carry the stable `code` of docs/API.md and
// are turned into JavaScript errors by the factory lib/errors.js registers at
// load (EnvState::MakeError), so class and code come from one table in JS.
#ifndef DLPACK_NODE_ADDON_ERRORS_H_
#define DLPACK_NODE_ADDON_ERRORS_H_

#include <napi.h>

#include <string>

namespace dlnode {

namespace code {
constexpr const char* kInvalidArgType = "ERR_INVALID_ARG_TYPE";
constexpr const char* kInvalidArgValue = "ERR_INVALID_ARG_VALUE";
constexpr const char* kOutOfRange = "ERR_OUT_OF_RANGE";
constexpr const char* kUnsupported = "ERR_DLPACK_UNSUPPORTED";
constexpr const char* kConsumed = "ERR_DLPACK_CONSUMED";
constexpr const char* kCopyRequired = "ERR_DLPACK_COPY_REQUIRED";
constexpr const char* kDetached = "ERR_DLPACK_DETACHED";
constexpr const char* kDisposed = "ERR_DLPACK_DISPOSED";
constexpr const char* kOutOfMemory = "ERR_DLPACK_OUT_OF_MEMORY";
constexpr const char* kCudaUnavailable = "ERR_DLPACK_CUDA_UNAVAILABLE";
constexpr const char* kCuda = "ERR_DLPACK_CUDA";
}  // namespace code

struct Error {
  const char* code;
  std::string message;
  std::string detail = {};  // CUDA errors: the cudaError name (CudaError.cudaError)
};

// Throws a pending JS exception for a failed napi_status (programming errors
// and engine refusals; not for bad user input, which JS has validated).
void Check(napi_env env, napi_status status, const char* what);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_ERRORS_H_
