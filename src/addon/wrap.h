// Type-tagged wrapping of native state onto JS objects. Every object handed
// back from JS is tag-checked before it is unwrapped.
#ifndef DLPACK_NODE_ADDON_WRAP_H_
#define DLPACK_NODE_ADDON_WRAP_H_

#include <napi.h>

#include "errors.h"

namespace dlnode {

constexpr napi_type_tag kCapsuleTag = {0x9c1f6a2e5b7d4c01ULL, 0x8e3a51d0f2b64a77ULL};
constexpr napi_type_tag kStorageTag = {0x4b2d8f1ce07a4392ULL, 0xa6c95e13d8f04b21ULL};

// Wraps `state` onto `object` with a basic finalizer (runs inside GC) and tags
// the object. On failure `state` is still the caller's.
template <typename State>
void WrapTagged(napi_env env, napi_value object, State* state, const napi_type_tag& tag,
                node_api_basic_finalize finalize) {
  Check(env, napi_wrap(env, object, state, finalize, nullptr, nullptr), "napi_wrap");
  Check(env, napi_type_tag_object(env, object, &tag), "napi_type_tag_object");
}

template <typename State>
State* UnwrapTagged(napi_env env, napi_value object, const napi_type_tag& tag, const char* what) {
  bool tagged = false;
  napi_valuetype type;
  if (napi_typeof(env, object, &type) != napi_ok || type != napi_object ||
      napi_check_object_type_tag(env, object, &tag, &tagged) != napi_ok || !tagged) {
    throw Error{code::kInvalidArgType, std::string("Expected a ") + what + " handle"};
  }
  void* state = nullptr;
  Check(env, napi_unwrap(env, object, &state), "napi_unwrap");
  return static_cast<State*>(state);
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_WRAP_H_
