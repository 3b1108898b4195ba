// The stable `code` of every error native code raises (docs/errors.md,
// docs/API.md "Errors"): plain strings, so that src/core's failure tables
// (result.h) carry them without Node-API. lib/errors.js maps each to its class.
#ifndef DLPACK_NODE_CORE_ERROR_CODES_H_
#define DLPACK_NODE_CORE_ERROR_CODES_H_

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
constexpr const char* kMisaligned = "ERR_DLPACK_MISALIGNED";
constexpr const char* kOutOfMemory = "ERR_DLPACK_OUT_OF_MEMORY";
constexpr const char* kCudaUnavailable = "ERR_DLPACK_CUDA_UNAVAILABLE";
constexpr const char* kCuda = "ERR_DLPACK_CUDA";
}  // namespace code
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_ERROR_CODES_H_
