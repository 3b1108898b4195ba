#include "ops.h"

#include <memory>
#include <string>
#include <vector>

#include "../core/dtype.h"
#include "../core/elementwise.h"
#include "../core/layout.h"
#include "../core/parallel.h"
#include "async_op.h"
#include "convention.h"
#include "env_state.h"
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

bool IsComparison(ElementwiseOp op) {
  return op == ElementwiseOp::kEq || op == ElementwiseOp::kNe || op == ElementwiseOp::kLt ||
         op == ElementwiseOp::kLe || op == ElementwiseOp::kGt || op == ElementwiseOp::kGe;
}

// One call's operands, read from the arguments and the scratch block; it owns
// the shape, the strides and the scalars its Operands point at, so it can
// outlive the call (the asynchronous form). Not movable: Operands point into it.
struct ElementwiseJob final : AsyncJob {
  ElementwiseOp op = ElementwiseOp::kAdd;
  Scalar type = Scalar::kFloat32;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
  int64_t zeros[kMaxDims] = {};
  alignas(16) char scalars[kMaxOperands][16] = {};
  Operand out{nullptr, nullptr};
  Operand in[kMaxOperands - 1] = {};

  // info: (op, dtype, out, outOffset, in0, in0Offset, ...) as ElementwiseOnHost.
  void Read(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    const double* scratch = EnvState::Of(env).scratch();
    op = static_cast<ElementwiseOp>(info[0].As<Napi::Number>().Int32Value());
    const int arity = ElementwiseArity(op);
    type = ScalarAt(info[1]);
    ndim = ScratchNdim(scratch);
    const int from[kMaxOperands] = {slot::kStrides, slot::kSourceStrides, slot::kOperandStrides,
                                    slot::kOperandStrides + kMaxDims};
    ScratchShape(scratch, ndim, shape);
    for (int k = 0; k <= arity; ++k) ScratchInts(scratch, from[k], ndim, false, strides[k]);
    const Scalar out_type = IsComparison(op) ? Scalar::kBool : type;
    out =
        Operand{memory.Operand(env, 2, info[2], OffsetAt(info[3]), ndim, shape, strides[0],
                               ScalarSize(out_type), JobMemory::Role::kOutput, out_type, "result"),
                strides[0]};
    for (int k = 0; k < arity; ++k) {
      const Napi::Value value = info[4 + 2 * k];
      const Scalar in_type = (op == ElementwiseOp::kWhere && k == 0) ? Scalar::kBool : type;
      if (value.IsNumber()) {
        // A scalar lives here, read at stride 0.
        StoreScalar(in_type, value.As<Napi::Number>().DoubleValue(), scalars[k]);
        in[k] = Operand{scalars[k], zeros};
      } else {
        in[k] = Operand{memory.Operand(env, 4 + 2 * k, value, OffsetAt(info[5 + 2 * k]), ndim,
                                       shape, strides[k + 1], ScalarSize(in_type),
                                       JobMemory::Role::kInput, in_type, "operand"),
                        strides[k + 1]};
      }
    }
  }

  bool Run() const override { return Elementwise(op, type, ndim, shape, out, in); }
  static constexpr const char* kRefused = "Expected a dtype the op computes in";
  const char* Refused() const override { return kRefused; }
};

// dl.normalize's operands, read as NormalizeOnHost's arguments; owns what its
// Operands point at (the asynchronous form). Not movable.
struct NormalizeJob final : AsyncJob {
  Scalar in_type = Scalar::kUint8;
  Scalar out_type = Scalar::kFloat32;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  Operand out{nullptr, nullptr};
  Operand in{nullptr, nullptr};
  std::vector<double> mean_std;  // the means, then the stds
  double scale = 1;

  void Read(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    const double* scratch = EnvState::Of(env).scratch();
    in_type = ScalarAt(info[0]);
    out_type = ScalarAt(info[1]);
    ndim = ScratchNdim(scratch);
    ScratchShape(scratch, ndim, shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, out_strides);
    ScratchInts(scratch, slot::kSourceStrides, ndim, false, in_strides);
    out =
        Operand{memory.Operand(env, 2, info[2], OffsetAt(info[3]), ndim, shape, out_strides,
                               ScalarSize(out_type), JobMemory::Role::kOutput, out_type, "result"),
                out_strides};
    in = Operand{memory.Operand(env, 4, info[4], OffsetAt(info[5]), ndim, shape, in_strides,
                                ScalarSize(in_type), JobMemory::Role::kInput, in_type, "input"),
                 in_strides};
    Napi::Float64Array values = info[6].As<Napi::Float64Array>();
    const size_t channels = values.ElementLength() / 2;
    if (ndim < 3 || static_cast<size_t>(shape[ndim - 3]) != channels) {
      throw Error{code::kInvalidArgValue, "Expected one mean and one std per channel"};
    }
    mean_std.assign(values.Data(), values.Data() + 2 * channels);
    scale = info[7].As<Napi::Number>().DoubleValue();
  }

  bool Run() const override {
    const double* mean = mean_std.data();
    return Normalize(ndim, shape, in_type, in, out_type, out, mean, mean + mean_std.size() / 2,
                     scale);
  }
  static constexpr const char* kRefused = "Expected a real input and a float32 or float64 output";
  const char* Refused() const override { return kRefused; }
};

}  // namespace

Napi::Value ElementwiseOnHost(const Napi::CallbackInfo& info) {
  ElementwiseJob job;
  job.Read(info);
  if (!job.Run()) throw Error{code::kUnsupported, ElementwiseJob::kRefused};
  return info.Env().Undefined();
}

Napi::Value ElementwiseAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<ElementwiseJob>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  return QueueJob(info, std::move(job), "dlpack:elementwise");
}

Napi::Value NormalizeOnHost(const Napi::CallbackInfo& info) {
  NormalizeJob job;
  job.Read(info);
  if (!job.Run()) throw Error{code::kUnsupported, NormalizeJob::kRefused};
  return info.Env().Undefined();
}

Napi::Value NormalizeAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<NormalizeJob>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  return QueueJob(info, std::move(job), "dlpack:normalize");
}

Napi::Value GetNumThreadsOf(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), GetNumThreads());
}

Napi::Value SetNumThreadsTo(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), SetNumThreads(info[0].As<Napi::Number>().Int32Value()));
}

}  // namespace dlnode
