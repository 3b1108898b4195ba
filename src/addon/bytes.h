// The bytes behind a Uint8Array that lib/ hands to native code, read afresh
// on every call (never cached: the buffer may have been detached or shrunk).
#ifndef DLPACK_NODE_ADDON_BYTES_H_
#define DLPACK_NODE_ADDON_BYTES_H_

#include <napi.h>

#include <cstdint>

#include "errors.h"

namespace dlnode {

struct Bytes {
  char* data;
  uint64_t length;
};

inline Bytes BytesOf(napi_env env, napi_value view) {
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  Check(env, napi_get_typedarray_info(env, view, &type, &length, &data, nullptr, nullptr),
        "napi_get_typedarray_info");
  return {static_cast<char*>(data), length};  // lib/ passes Uint8Arrays: elements are bytes
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_BYTES_H_
