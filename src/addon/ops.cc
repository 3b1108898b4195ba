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

// The byte offset of a tensor operand (its element 0), as lib/ passes it.
uint64_t OffsetAt(const Napi::Value& offset) {
  return ByteOffsetOf(offset.As<Napi::Number>().DoubleValue(), "a byte offset");
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
// Operands point into it. Only the first ndim entries of each array are
// written and read (nothing is zeroed at kMaxDims: a 3 KB memset per call).
struct ElementwiseJob final : AsyncJob {
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];
  int64_t zeros[kMaxDims];
  alignas(16) char scalars[kMaxOperands][16];
  Operand in[kMaxOperands - 1];
  ElementwiseCall call;

  // info: (device, op, dtype, stream, out, outOffset, in0, in0Offset, ...):
  // device kHostDevice or a CUDA device's index; each input a tensor's memory
  // (a Uint8Array or a storage handle) and byte offset, or a number and 0;
  // scratch: the shape, out's strides in kStrides, in0's in kSourceStrides,
  // in1's and in2's in kOperandStrides.
  void Read(const Napi::CallbackInfo& info) {
    const double* scratch = EnvState::Of(info.Env()).scratch();
    call.device = info[0].As<Napi::Number>().Int32Value();
    const int arity = ReadOp(info[1], info[2]);
    call.stream = StreamAt(info[3]);
    call.ndim = ScratchNdim(scratch);
    const int ndim = call.ndim;
    const int from[kMaxOperands] = {slot::kStrides, slot::kSourceStrides, slot::kOperandStrides,
                                    slot::kOperandStrides + kMaxDims};
    ScratchShape(scratch, ndim, shape);
    for (int k = 0; k <= arity; ++k) ScratchInts(scratch, from[k], ndim, false, strides[k]);
    ReadOperands(
        info, arity, [&](int k) { return OffsetAt(info[5 + 2 * k]); },
        [](int k) { return 4 + 2 * k; });
  }

  // The dense form, info: (op, dtype, out, in0[, in1[, in2]]): every operand
  // a tensor (no scalars: lib/route.js takes this form for tensors only, and
  // a number here is refused as not a storage handle), row-major over one
  // element count (scratch kShape), so one dim of stride 1; the byte offsets
  // in scratch kOffsets (out, in0, ...); on the host, on this thread. The
  // same descriptor and checks as Read's, from fewer arguments (at most six:
  // node-addon-api allocates for more) and without a type probe per input.
  void ReadDense(const Napi::CallbackInfo& info) {
    const double* scratch = EnvState::Of(info.Env()).scratch();
    const int arity = ReadOp(info[0], info[1]);
    call.device = kHostDevice;
    call.stream = 0;
    call.ndim = 1;
    ScratchShape(scratch, 1, shape);
    for (int k = 0; k <= arity; ++k) strides[k][0] = 1;
    ReadOperands(
        info, arity,
        [&](int k) { return ByteOffsetOf(scratch[slot::kOffsets + k], "a byte offset"); },
        [](int k) { return 2 + k; }, false);
  }

 private:
  // The op (its arity, refused when it names none) and the dtype.
  int ReadOp(const Napi::Value& op, const Napi::Value& dtype) {
    call.op = static_cast<ElementwiseOp>(op.As<Napi::Number>().Int32Value());
    const int arity = ElementwiseArity(call.op);
    if (arity == 0) throw Error{code::kInvalidArgValue, "Expected an elementwise op"};
    call.type = ScalarArg(dtype);
    return arity;
  }

  // out and the inputs, shape and strides read: operand k (0 out, k >= 1
  // input k - 1) is argument arg(k) at byte offset offset(k), each tensor's
  // view checked to lie in its memory; with `numbers`, an input may be a
  // number (a scalar) instead.
  template <typename Offset, typename Arg>
  void ReadOperands(const Napi::CallbackInfo& info, int arity, Offset offset, Arg arg,
                    bool numbers = true) {
    napi_env env = info.Env();
    const int ndim = call.ndim;
    call.shape = shape;
    call.in = in;
    for (int i = 0; i < ndim; ++i) zeros[i] = 0;
    const Scalar out_type = ElementwiseOperandType(call.op, call.type, 0);
    call.out =
        Operand{memory.Operand(env, arg(0), info[arg(0)], offset(0), ndim, shape, strides[0],
                               ScalarSize(out_type), JobMemory::Role::kOutput, out_type, "result"),
                strides[0]};
    for (int k = 0; k < arity; ++k) {
      const Napi::Value value = info[arg(k + 1)];
      const Scalar in_type = ElementwiseOperandType(call.op, call.type, k + 1);
      if (numbers && value.IsNumber()) {
        // A scalar lives here, read at stride 0.
        StoreScalar(in_type, value.As<Napi::Number>().DoubleValue(), scalars[k]);
        in[k] = Operand{scalars[k], zeros};
        call.scalars |= 1U << k;
      } else {
        in[k] = Operand{
            memory.Operand(env, arg(k + 1), value, offset(k + 1), ndim, shape, strides[k + 1],
                           ScalarSize(in_type), JobMemory::Role::kInput, in_type, "operand"),
            strides[k + 1]};
      }
    }
  }

 public:
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

Napi::Value ElementwiseDense(const Napi::CallbackInfo& info) {
  ElementwiseJob job;
  job.ReadDense(info);
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
