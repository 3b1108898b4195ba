// Native state handed to JavaScript as a napi_external. JS keeps handles in
// module-private fields; every handle coming back is checked: it must be an
// external whose state starts with the expected tag (Node 20 cannot type-tag
// externals, so the tag lives in the state). The finalizer is a basic one, so
// it runs inside GC.
#ifndef DLPACK_NODE_ADDON_HANDLE_H_
#define DLPACK_NODE_ADDON_HANDLE_H_

#include <napi.h>

#include <cstdint>
#include <string>

#include "errors.h"

namespace dlnode {

constexpr uint64_t kCapsuleTag = 0x9c1f6a2e5b7d4c01ULL;
constexpr uint64_t kStorageTag = 0x4b2d8f1ce07a4392ULL;

// Every handle state starts with this.
struct Tagged {
  explicit Tagged(uint64_t t) : tag(t) {}
  uint64_t tag;
};

// Hands `state` to JS; on failure `state` is still the caller's.
template <typename State>
napi_value NewHandle(napi_env env, State* state, node_api_basic_finalize finalize) {
  napi_value result;
  Check(env, napi_create_external(env, state, finalize, nullptr, &result), "napi_create_external");
  return result;
}

template <typename State>
State* HandleOf(napi_env env, napi_value value, uint64_t tag, const char* what) {
  napi_valuetype type;
  void* data = nullptr;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external ||
      napi_get_value_external(env, value, &data) != napi_ok || data == nullptr ||
      static_cast<Tagged*>(data)->tag != tag) {
    throw Error{code::kInvalidArgType, std::string("Expected a ") + what + " handle"};
  }
  return static_cast<State*>(data);
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_HANDLE_H_
