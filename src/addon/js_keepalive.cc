#include "js_keepalive.h"

#include "../core/stats.h"

namespace dlnode {

JsKeepalive* JsKeepalive::New(napi_env env, napi_value view, std::shared_ptr<EnvLink> link) {
  napi_ref ref;
  Check(env, napi_create_reference(env, view, 1, &ref), "napi_create_reference");
  return new JsKeepalive(ref, std::move(link));
}

JsKeepalive::JsKeepalive(napi_ref ref, std::shared_ptr<EnvLink> link)
    : ref_(ref), link_(std::move(link)) {
  stats::js_keepalive_live.fetch_add(1, std::memory_order_relaxed);
  link_->AddExport();
}

JsKeepalive::~JsKeepalive() {
  link_->RemoveExport();
  stats::js_keepalive_live.fetch_sub(1, std::memory_order_relaxed);
}

void JsKeepalive::Release() noexcept {
  link_->PostRelease(ref_);
  delete this;
}

napi_value JsKeepalive::TakeView(napi_env env) {
  napi_value view;
  Check(env, napi_get_reference_value(env, ref_, &view), "napi_get_reference_value");
  napi_delete_reference(env, ref_);
  delete this;
  return view;
}

}  // namespace dlnode
