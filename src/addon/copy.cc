#include "copy.h"

#include <new>
#include <vector>

#include "../core/convert.h"
#include "../core/layout.h"
#include "async_op.h"
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

namespace {

// One copyStrided call's operands, read and checked on the JS thread; owns the
// shape and strides its views point at, and a copy of the source's bytes when
// they overlap the destination's, so that Run() never allocates and may run
// later on a libuv thread (the asynchronous form). Not movable.
struct CopyJob {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
  Scalar dst_type = Scalar::kFloat32;
  Scalar src_type = Scalar::kFloat32;
  char* dst = nullptr;
  const char* src = nullptr;
  std::vector<char> staged;  // the source's bytes, where they overlap the destination's

  CopyJob() = default;
  CopyJob(const CopyJob&) = delete;
  CopyJob& operator=(const CopyJob&) = delete;

  void Read(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    const double* scratch = EnvState::Of(env).scratch();
    ndim = ScratchNdim(scratch);
    ScratchShape(scratch, ndim, shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, dst_strides);
    ScratchInts(scratch, slot::kSourceStrides, ndim, false, src_strides);
    if (!ScalarOf(Dtypes().at(info[2].As<Napi::Number>().Int32Value()), &dst_type) ||
        !ScalarOf(Dtypes().at(info[5].As<Napi::Number>().Int32Value()), &src_type)) {
      throw Error{code::kUnsupported, "Expected dtypes with a conversion"};
    }
    const Bytes dst_bytes = BytesOf(env, info[0]);
    const Bytes src_bytes = BytesOf(env, info[3]);
    const uint64_t dst_offset =
        ByteOffsetOf(info[1].As<Napi::Number>().DoubleValue(), "byteOffset");
    const uint64_t src_offset =
        ByteOffsetOf(info[4].As<Napi::Number>().DoubleValue(), "byteOffset");
    uint64_t dst_low = 0;
    uint64_t dst_high = 0;
    uint64_t src_low = 0;
    uint64_t src_high = 0;
    if (!ComputeExtent(ndim, shape, dst_strides, ScalarSize(dst_type), &dst_low, &dst_high)) {
      throw Error{code::kOutOfRange, "Expected a destination extent below 2^53 bytes"};
    }
    CheckInside(dst_bytes, dst_offset, dst_low, dst_high, "destination");
    if (!ComputeExtent(ndim, shape, src_strides, ScalarSize(src_type), &src_low, &src_high)) {
      throw Error{code::kOutOfRange, "Expected a source extent below 2^53 bytes"};
    }
    CheckInside(src_bytes, src_offset, src_low, src_high, "source");
    dst = dst_bytes.data + dst_offset;
    src = src_bytes.data + src_offset;
    // Overlap is judged by address, so two JS objects over one buffer count.
    const char* src_lo = src - src_low;
    const char* src_hi = src + src_high;
    if (dst - dst_low < src_hi && src_lo < dst + dst_high) {
      try {
        staged.assign(src_lo, src_hi);
      } catch (const std::bad_alloc&) {
        throw Error{code::kOutOfMemory, "Could not allocate the temporary for an overlapping copy"};
      }
      src = staged.data() + src_low;
    }
  }

  bool Run() const {
    // The ranges passed never overlap (staged above): nothing is allocated.
    ConvertStrided(ndim, shape, dst_type, StridedView{dst, dst_strides}, ByteRange{dst, dst},
                   src_type, StridedView{const_cast<char*>(src), src_strides}, ByteRange{src, src});
    return true;
  }
  static constexpr const char* kRefused = "Expected a copy that needs no temporary";
};

}  // namespace

Napi::Value CopyStrided(const Napi::CallbackInfo& info) {
  CopyJob job;
  job.Read(info);
  job.Run();
  return info.Env().Undefined();
}

Napi::Value CopyStridedAsync(const Napi::CallbackInfo& info) {
  return Queue<CopyJob>(info, "dlpack:copy");
}

}  // namespace dlnode
