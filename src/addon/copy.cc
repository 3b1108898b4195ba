#include "copy.h"

#include <cstring>
#include <memory>
#include <new>

#include "../core/convert.h"
#include "../core/layout.h"
#include "../core/scratch.h"
#include "async_op.h"
#include "convention.h"
#include "env_state.h"
#include "job_memory.h"

namespace dlnode {
namespace {

// One copyStrided call's operands, read and checked on the JS thread; owns the
// shape and strides its views point at, and a copy of the source's bytes when
// they overlap the destination's, so that Run() never allocates and may run
// later on a libuv thread (the asynchronous form). Not movable.
struct CopyJob final : AsyncJob {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
  Scalar dst_type = Scalar::kFloat32;
  Scalar src_type = Scalar::kFloat32;
  char* dst = nullptr;
  const char* src = nullptr;
  Scratch<char> staged;  // the source's bytes, where they overlap the destination's

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
    const uint64_t dst_offset =
        ByteOffsetOf(info[1].As<Napi::Number>().DoubleValue(), "byteOffset");
    const uint64_t src_offset =
        ByteOffsetOf(info[4].As<Napi::Number>().DoubleValue(), "byteOffset");
    JobMemory::Extent to{};
    JobMemory::Extent from{};
    dst =
        memory.Operand(env, 0, info[0], dst_offset, ndim, shape, dst_strides, ScalarSize(dst_type),
                       JobMemory::Role::kOutput, dst_type, "destination", &to);
    src = memory.Operand(env, 3, info[3], src_offset, ndim, shape, src_strides,
                         ScalarSize(src_type), JobMemory::Role::kInput, src_type, "source", &from);
    // Overlap is judged by address, so two JS objects over one buffer count
    // (a side staged by the job is apart from everything).
    const uint64_t src_low = from.low;
    const char* src_lo = src - from.low;
    const char* src_hi = src + from.high;
    if (dst - to.low < src_hi && src_lo < dst + to.high) {
      try {
        staged = Scratch<char>(src_hi - src_lo);
      } catch (const std::bad_alloc&) {
        throw Error{code::kOutOfMemory, "Could not allocate the temporary for an overlapping copy"};
      }
      std::memcpy(staged.data(), src_lo, static_cast<size_t>(src_hi - src_lo));
      src = staged.data() + src_low;
    }
  }

  bool Run() const override {
    // The ranges passed never overlap (staged above): nothing is allocated.
    ConvertStrided(ndim, shape, dst_type, StridedView{dst, dst_strides}, ByteRange{dst, dst},
                   src_type, StridedView{const_cast<char*>(src), src_strides}, ByteRange{src, src});
    return true;
  }
  static constexpr const char* kRefused = "Expected a copy that needs no temporary";
  const char* Refused() const override { return kRefused; }
};

}  // namespace

Napi::Value CopyStrided(const Napi::CallbackInfo& info) {
  CopyJob job;
  job.Read(info);
  job.Run();
  return info.Env().Undefined();
}

Napi::Value CopyStridedAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<CopyJob>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  return QueueJob(info, std::move(job), "dlpack:copy");
}

}  // namespace dlnode
