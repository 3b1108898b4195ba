#include "normalize.h"

#include <memory>
#include <vector>

#include "../core/compute/normalize.h"
#include "../core/dtype.h"
#include "../core/layout.h"
#include "async_op.h"
#include "convention.h"
#include "env_state.h"
#include "errors.h"
#include "job_memory.h"

namespace dlnode {
namespace {

// One call's descriptor (compute/normalize.h), read from the arguments and the
// scratch block, host and CUDA alike: one extent check per operand
// (JobMemory::Operand reads a storage handle's memory, a device's included,
// and checks the view lies in it). It owns the shape, the strides and the
// values the descriptor points at, so it can outlive the call (the
// asynchronous form). Not movable: the descriptor points into it.
struct NormalizeJob final : AsyncJob {
  int64_t shape[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  std::vector<double> mean_std;  // the means, then the stds
  NormalizeCall call;

  void Read(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    const double* scratch = EnvState::Of(env).scratch();
    call.device = info[0].As<Napi::Number>().Int32Value();
    call.in_type = ScalarArg(info[1]);
    call.out_type = ScalarArg(info[2]);
    bool lossless = false;
    call.stream = static_cast<uintptr_t>(info[3].As<Napi::BigInt>().Uint64Value(&lossless));
    const int ndim = ScratchNdim(scratch);
    call.ndim = ndim;
    call.shape = shape;
    ScratchShape(scratch, ndim, shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, out_strides);
    ScratchInts(scratch, slot::kSourceStrides, ndim, false, in_strides);
    const auto offset = [](const Napi::Value& v) {
      return ByteOffsetOf(v.As<Napi::Number>().DoubleValue(), "a byte offset");
    };
    call.out = Operand{memory.Operand(env, 4, info[4], offset(info[5]), ndim, shape, out_strides,
                                      ScalarSize(call.out_type), JobMemory::Role::kOutput,
                                      call.out_type, "result"),
                       out_strides};
    call.in = Operand{
        memory.Operand(env, 6, info[6], offset(info[7]), ndim, shape, in_strides,
                       ScalarSize(call.in_type), JobMemory::Role::kInput, call.in_type, "input"),
        in_strides};
    Napi::Float64Array values = info[8].As<Napi::Float64Array>();
    const size_t channels = values.ElementLength() / 2;
    if (ndim < 3 || static_cast<size_t>(shape[ndim - 3]) != channels ||
        values.ElementLength() != 2 * channels) {
      throw Error{code::kInvalidArgValue, "Expected one mean and one std per channel"};
    }
    mean_std.assign(values.Data(), values.Data() + 2 * channels);
    call.channels = static_cast<int>(channels);
    call.mean = mean_std.data();
    call.std = mean_std.data() + channels;
    call.scale = info[9].As<Napi::Number>().DoubleValue();
  }

  bool Run() const override { return RunNormalize(call).ok(); }
  const char* Refused() const override {
    return "Expected a real input and a float32 or float64 output";
  }
};

}  // namespace

Napi::Value NormalizeOnce(const Napi::CallbackInfo& info) {
  NormalizeJob job;
  job.Read(info);
  const NormalizeResult result = RunNormalize(job.call);
  if (result.failure == NormalizeFailure::kNotOnDevice)
    return Napi::Boolean::New(info.Env(), false);
  ThrowIfFailed(result);
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value NormalizeAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<NormalizeJob>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  if (job->call.device != kHostDevice) {
    throw Error{code::kInvalidArgValue, "Expected a host normalize for the asynchronous form"};
  }
  return QueueJob(info, std::move(job), "dlpack:normalize");
}

}  // namespace dlnode
