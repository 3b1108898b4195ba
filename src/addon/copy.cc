#include "copy.h"

#include "../core/layout.h"
#include "../core/strided_copy.h"
#include "bytes.h"
#include "env_state.h"

namespace dlnode {
namespace {

void CheckInside(const Bytes& bytes, uint64_t offset, uint64_t low, uint64_t high, const char* which) {
  if (low == 0 && high == 0) return;
  if (offset < low || offset + high > bytes.length) {
    throw Error{code::kDetached, std::string("Expected the ") + which +
                                     " buffer to still hold its bytes, but it was detached or shrunk"};
  }
}

}  // namespace

Napi::Value CopyStrided(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const double* scratch = EnvState::Of(env).scratch();
  const int ndim = static_cast<int>(scratch[slot::kNdim]);
  int64_t shape[kMaxDims];
  int64_t dst_strides[kMaxDims];
  int64_t src_strides[kMaxDims];
  for (int i = 0; i < ndim; ++i) {
    shape[i] = static_cast<int64_t>(scratch[slot::kShape + i]);
    dst_strides[i] = static_cast<int64_t>(scratch[slot::kStrides + i]);
    src_strides[i] = static_cast<int64_t>(scratch[slot::kSourceStrides + i]);
  }
  const auto item = static_cast<uint64_t>(info[4].As<Napi::Number>().Int64Value());
  const Bytes dst = BytesOf(env, info[0]);
  const Bytes src = BytesOf(env, info[2]);
  const auto dst_offset = static_cast<uint64_t>(info[1].As<Napi::Number>().Int64Value());
  const auto src_offset = static_cast<uint64_t>(info[3].As<Napi::Number>().Int64Value());
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, dst_strides, item, &low, &high)) {
    throw Error{code::kOutOfRange, "Expected a destination extent below 2^53 bytes"};
  }
  CheckInside(dst, dst_offset, low, high, "destination");
  if (!ComputeExtent(ndim, shape, src_strides, item, &low, &high)) {
    throw Error{code::kOutOfRange, "Expected a source extent below 2^53 bytes"};
  }
  CheckInside(src, src_offset, low, high, "source");
  StridedCopy(ndim, shape, item, StridedView{dst.data + dst_offset, dst_strides},
              StridedView{src.data + src_offset, src_strides});
  return info.Env().Undefined();
}

Napi::Value DetachBuffer(const Napi::CallbackInfo& info) {
  Check(info.Env(), napi_detach_arraybuffer(info.Env(), info[0]), "napi_detach_arraybuffer");
  return info.Env().Undefined();
}

}  // namespace dlnode
