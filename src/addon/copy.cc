#include "copy.h"

#include <new>

#include "../core/convert.h"
#include "../core/layout.h"
#include "bytes.h"
#include "env_state.h"

namespace dlnode {
namespace {

void CheckInside(const Bytes& bytes, uint64_t offset, uint64_t low, uint64_t high,
                 const char* which) {
  if (low == 0 && high == 0) return;
  if (!Holds(bytes.length, offset, low, high)) {
    throw Error{code::kDetached,
                std::string("Expected the ") + which +
                    " buffer to still hold its bytes, but it was detached or shrunk"};
  }
}

}  // namespace

Napi::Value CopyStrided(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  EnvState& state = EnvState::Of(env);
  const double* scratch = state.scratch();
  const int ndim = ScratchNdim(scratch);
  int64_t shape[kMaxDims];
  int64_t dst_strides[kMaxDims];
  int64_t src_strides[kMaxDims];
  ScratchInts(scratch, slot::kShape, ndim, true, shape);
  ScratchInts(scratch, slot::kStrides, ndim, false, dst_strides);
  ScratchInts(scratch, slot::kSourceStrides, ndim, false, src_strides);
  Scalar dst_type;
  Scalar src_type;
  if (!ScalarOf(Dtypes().at(info[2].As<Napi::Number>().Int32Value()), &dst_type) ||
      !ScalarOf(Dtypes().at(info[5].As<Napi::Number>().Int32Value()), &src_type)) {
    throw Error{code::kUnsupported, "Expected dtypes with a conversion"};
  }
  const Bytes dst = BytesOf(env, info[0]);
  const Bytes src = BytesOf(env, info[3]);
  const uint64_t dst_offset = ByteOffsetOf(info[1].As<Napi::Number>().DoubleValue(), "byteOffset");
  const uint64_t src_offset = ByteOffsetOf(info[4].As<Napi::Number>().DoubleValue(), "byteOffset");
  uint64_t dst_low = 0;
  uint64_t dst_high = 0;
  uint64_t src_low = 0;
  uint64_t src_high = 0;
  if (!ComputeExtent(ndim, shape, dst_strides, ScalarSize(dst_type), &dst_low, &dst_high)) {
    throw Error{code::kOutOfRange, "Expected a destination extent below 2^53 bytes"};
  }
  CheckInside(dst, dst_offset, dst_low, dst_high, "destination");
  if (!ComputeExtent(ndim, shape, src_strides, ScalarSize(src_type), &src_low, &src_high)) {
    throw Error{code::kOutOfRange, "Expected a source extent below 2^53 bytes"};
  }
  CheckInside(src, src_offset, src_low, src_high, "source");
  char* d = dst.data + dst_offset;
  char* s = src.data + src_offset;
  // Overlap is judged by address, so two JS objects over one buffer count.
  try {
    ConvertStrided(ndim, shape, dst_type, StridedView{d, dst_strides},
                   ByteRange{d - dst_low, d + dst_high}, src_type, StridedView{s, src_strides},
                   ByteRange{s - src_low, s + src_high});
  } catch (const std::bad_alloc&) {
    // Only the overlap staging allocates, before anything is written.
    throw Error{code::kOutOfMemory, "Could not allocate the temporary for an overlapping copy"};
  }
  return info.Env().Undefined();
}

}  // namespace dlnode
