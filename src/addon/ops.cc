#include "ops.h"

#include <memory>
#include <string>

#include "../core/compute/elementwise.h"
#include "../core/compute/elementwise_call.h"
#include "../core/dtype.h"
#include "../core/layout.h"
#include "../core/parallel.h"
#include "async_op.h"
#include "convention.h"
#include "env_state.h"
#include "errors.h"
#include "job_memory.h"

namespace dlnode {
namespace {

Scalar ScalarAt(const Napi::Value& index) {
  Scalar s;
  if (!ScalarOf(Dtypes().at(index.As<Napi::Number>().Int32Value()), &s)) {
    throw Error{code::kUnsupported, "Expected a dtype with arithmetic"};
  }
  return s;
}

// The byte offset of a tensor operand (its element 0), as lib/ passes it.
uint64_t OffsetAt(const Napi::Value& offset) {
  return static_cast<uint64_t>(offset.As<Napi::Number>().Int64Value());
}

}  // namespace

namespace {

// A CUDA stream as lib/ passes it: a BigInt (0 on the host).
uintptr_t StreamAt(const Napi::Value& stream) {
  bool lossless = false;
  return static_cast<uintptr_t>(stream.As<Napi::BigInt>().Uint64Value(&lossless));
}

// One call's descriptor (compute/elementwise_call.h), read from the
// arguments and the scratch block, host and CUDA alike: one dtype reader, one
// extent check per operand (JobMemory::Operand, which reads a storage handle's
// memory, a device's included, and checks the view lies in it). It owns the
// shape, the strides and the scalars the descriptor points at, so it can
// outlive the call (the asynchronous form, on the host). Not movable:
// Operands point into it.
struct ElementwiseJob final : AsyncJob {
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
  int64_t zeros[kMaxDims] = {};
  alignas(16) char scalars[kMaxOperands][16] = {};
  Operand in[kMaxOperands - 1] = {};
  ElementwiseCall call;

  // info: (device, op, dtype, stream, out, outOffset, in0, in0Offset, ...):
  // device kHostDevice or a CUDA device's index; each input a tensor's memory
  // (a Uint8Array or a storage handle) and byte offset, or a number and 0;
  // scratch: the shape, out's strides in kStrides, in0's in kSourceStrides,
  // in1's and in2's in kOperandStrides.
  void Read(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    const double* scratch = EnvState::Of(env).scratch();
    call.device = info[0].As<Napi::Number>().Int32Value();
    call.op = static_cast<ElementwiseOp>(info[1].As<Napi::Number>().Int32Value());
    const int arity = ElementwiseArity(call.op);
    if (arity == 0) throw Error{code::kInvalidArgValue, "Expected an elementwise op"};
    call.type = ScalarAt(info[2]);
    call.stream = StreamAt(info[3]);
    call.ndim = ScratchNdim(scratch);
    call.shape = shape;
    call.in = in;
    const int ndim = call.ndim;
    const int from[kMaxOperands] = {slot::kStrides, slot::kSourceStrides, slot::kOperandStrides,
                                    slot::kOperandStrides + kMaxDims};
    ScratchShape(scratch, ndim, shape);
    for (int k = 0; k <= arity; ++k) ScratchInts(scratch, from[k], ndim, false, strides[k]);
    const Scalar out_type = ElementwiseOperandType(call.op, call.type, 0);
    call.out =
        Operand{memory.Operand(env, 4, info[4], OffsetAt(info[5]), ndim, shape, strides[0],
                               ScalarSize(out_type), JobMemory::Role::kOutput, out_type, "result"),
                strides[0]};
    for (int k = 0; k < arity; ++k) {
      const Napi::Value value = info[6 + 2 * k];
      const Scalar in_type = ElementwiseOperandType(call.op, call.type, k + 1);
      if (value.IsNumber()) {
        // A scalar lives here, read at stride 0.
        StoreScalar(in_type, value.As<Napi::Number>().DoubleValue(), scalars[k]);
        in[k] = Operand{scalars[k], zeros};
        call.scalars |= 1U << k;
      } else {
        in[k] = Operand{memory.Operand(env, 6 + 2 * k, value, OffsetAt(info[7 + 2 * k]), ndim,
                                       shape, strides[k + 1], ScalarSize(in_type),
                                       JobMemory::Role::kInput, in_type, "operand"),
                        strides[k + 1]};
      }
    }
  }

  bool Run() const override { return RunElementwise(call).ok(); }
  const char* Refused() const override { return "Expected a dtype the op computes in"; }
};

}  // namespace

Napi::Value ElementwiseOnce(const Napi::CallbackInfo& info) {
  ElementwiseJob job;
  job.Read(info);
  ThrowIfFailed(RunElementwise(job.call));
  return info.Env().Undefined();
}

Napi::Value ElementwiseAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<ElementwiseJob>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  if (job->call.device != kHostDevice) {
    throw Error{code::kInvalidArgValue, "Expected a host op for the asynchronous form"};
  }
  return QueueJob(info, std::move(job), "dlpack:elementwise");
}

Napi::Value GetNumThreadsOf(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), GetNumThreads());
}

Napi::Value SetNumThreadsTo(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), SetNumThreads(info[0].As<Napi::Number>().Int32Value()));
}

}  // namespace dlnode
