// Keeps a JavaScript buffer alive while a DLPack capsule exported from it is
// out. The strong reference may only be deleted on the JS thread, so a
// release from any other context (another thread, inside GC, after the
// environment is gone) is posted through the EnvLink.
#ifndef DLPACK_NODE_ADDON_JS_KEEPALIVE_H_
#define DLPACK_NODE_ADDON_JS_KEEPALIVE_H_

#include <napi.h>

#include <memory>

#include "../core/managed.h"
#include "env_state.h"

namespace dlnode {

class JsKeepalive final : public Keepalive {
 public:
  // Pins `view` (a typed array over the buffer).
  static JsKeepalive* New(napi_env env, napi_value view, std::shared_ptr<EnvLink> link);

  Kind kind() const override { return Kind::kJsBuffer; }
  // Any thread: posts the reference to the JS thread.
  void Release() noexcept override;
  // JS thread, outside GC: hands back the pinned view and deletes the
  // reference at once (import of our own capsule).
  napi_value TakeView(napi_env env);
  // The environment whose heap the buffer is on.
  const std::shared_ptr<EnvLink>& link() const { return link_; }

 private:
  JsKeepalive(napi_ref ref, std::shared_ptr<EnvLink> link);
  ~JsKeepalive();
  napi_ref ref_;
  std::shared_ptr<EnvLink> link_;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_JS_KEEPALIVE_H_
