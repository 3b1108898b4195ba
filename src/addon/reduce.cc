#include "reduce.h"

#include <memory>

#include "../core/compute/reduce.h"
#include "../core/compute/reduce_call.h"
#include "../core/layout.h"
#include "async_op.h"
#include "convention.h"
#include "env_state.h"
#include "errors.h"
#include "job_memory.h"

namespace dlnode {
namespace {

int IndexOf(Scalar s) {
  for (int i = 0; i < Dtypes().size(); ++i) {
    Scalar t;
    if (ScalarOf(Dtypes().at(i), &t) && t == s) return i;
  }
  return -1;
}

ReduceOp OpAt(const Napi::Value& v) {
  const int op = v.As<Napi::Number>().Int32Value();
  if (op < 0 || op >= kReduceOpCount) throw Error{code::kUnsupported, "Expected a reduction"};
  return static_cast<ReduceOp>(op);
}

}  // namespace

Napi::Value ReduceTable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ops = Napi::Object::New(env);
#define DLNODE_REDUCE_OP_NAME(js, constant) \
  ops.Set(#js, Napi::Number::New(env, static_cast<int>(ReduceOp::constant)));
  DLNODE_REDUCE_OPS(DLNODE_REDUCE_OP_NAME)
#undef DLNODE_REDUCE_OP_NAME
  Napi::Array results = Napi::Array::New(env, kReduceOpCount);
  Napi::Array staging = Napi::Array::New(env, kReduceOpCount);
  Napi::Array dims = Napi::Array::New(env, kReduceOpCount);
  for (int op = 0; op < kReduceOpCount; ++op) {
    const ReduceOp reduce = static_cast<ReduceOp>(op);
    Napi::Array result_row = Napi::Array::New(env, Dtypes().size());
    Napi::Array staging_row = Napi::Array::New(env, Dtypes().size());
    for (int i = 0; i < Dtypes().size(); ++i) {
      Scalar in;
      Scalar out;
      const bool scalar = ScalarOf(Dtypes().at(i), &in);
      const bool ok = scalar && ResultType(reduce, in, &out);
      result_row.Set(i, Napi::Number::New(env, ok ? IndexOf(out) : -1));
      Scalar staged;
      const bool stages = ok && StagedType(reduce, in, &staged);
      staging_row.Set(i, Napi::Number::New(env, stages ? IndexOf(staged) : -1));
    }
    results.Set(op, result_row);
    staging.Set(op, staging_row);
    dims.Set(op, Napi::Boolean::New(env, ReducesDims(reduce)));
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("ops", ops);
  result.Set("results", results);
  result.Set("staging", staging);
  result.Set("dims", dims);
  return result;
}

namespace {

// One call's descriptor (compute/reduce_call.h), read from the arguments and
// the scratch block, host and CUDA alike: one extent check per operand
// (JobMemory::Operand reads a storage handle's memory, a device's included,
// and checks the view lies in it). It owns the shape and strides the
// descriptor points at, so it can outlive the call (the asynchronous form,
// async_op.h); every check runs in Read(), on the JS thread. Not movable:
// the descriptor points into it.
struct ReduceJob final : AsyncJob {
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t out_shape[kMaxDims] = {};
  bool empty = false;  // max/min with no lanes: nothing to run
  ReduceCall call;

  void Read(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    const double* scratch = EnvState::Of(env).scratch();
    call.op = OpAt(info[0]);
    call.device = info[1].As<Napi::Number>().Int32Value();
    bool lossless = false;
    call.stream = static_cast<uintptr_t>(info[2].As<Napi::BigInt>().Uint64Value(&lossless));
    const auto offset = [](const Napi::Value& v) {
      return ByteOffsetOf(v.As<Napi::Number>().DoubleValue(), "a byte offset");
    };
    // Every number bounded (convention.h): a shape of more than 2^53 - 1
    // elements would overflow the loops' products (UBSan saw it).
    const int ndim = ScratchNdim(scratch);
    ScratchShape(scratch, ndim, shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, strides);
    const Scalar type = ScalarArg(info[5]);
    const char* first = memory.Operand(env, 3, info[3], offset(info[4]), ndim, shape, strides,
                                       ScalarSize(type), JobMemory::Role::kInput, type, "source");
    call.in = StridedInput{first, type, ndim, shape, strides};
    Scalar out_type;
    if (!ResultType(call.op, type, &out_type)) {
      throw Error{code::kUnsupported, "Expected a reduction this dtype has"};
    }
    if (ReducesDims(call.op)) {
      ReadDims(info, out_type, offset);
    } else {
      ReadLanes(info, out_type, offset);
    }
  }

  // Output bytes at argument `at` (its offset at `at + 1`) of out_shape at
  // out_strides, or null when the argument is null (not an operand).
  template <typename Offset>
  char* Output(const Napi::CallbackInfo& info, int at, int ndim, Scalar type,
               const Offset& offset) {
    if (info[at].IsNull()) return nullptr;
    return memory.Operand(info.Env(), at, info[at], offset(info[at + 1]), ndim, out_shape,
                          out_strides, ScalarSize(type), JobMemory::Role::kOutput, type, "result");
  }

  // Over the last `reduced` dims: contiguous results.
  template <typename Offset>
  void ReadDims(const Napi::CallbackInfo& info, Scalar out_type, const Offset& offset) {
    const int ndim = call.in.ndim;
    call.reduced = info[6].As<Napi::Number>().Int32Value();
    if (call.reduced < 0 || call.reduced > ndim) {
      throw Error{code::kUnsupported, "Expected a reduction this dtype has"};
    }
    const int kept = ndim - call.reduced;
    int64_t step = 1;
    for (int i = kept - 1; i >= 0; --i) {
      out_shape[i] = shape[i];
      out_strides[i] = step;
      step *= shape[i];
    }
    call.values = Output(info, 7, kept, out_type, offset);
    if (call.values == nullptr) throw Error{code::kUnsupported, "Expected a result buffer"};
  }

  // Along `dim`: results at the strides in kSourceStrides (per source dim).
  template <typename Offset>
  void ReadLanes(const Napi::CallbackInfo& info, Scalar out_type, const Offset& offset) {
    const ReduceOp op = call.op;
    const int ndim = call.in.ndim;
    call.dim = info[6].As<Napi::Number>().Int32Value();
    call.k = static_cast<int64_t>(info[11].As<Napi::Number>().Int64Value());
    call.largest = info[12].ToBoolean().Value();
    call.sorted = info[13].ToBoolean().Value();
    if (call.dim < 0 || call.dim >= (ndim == 0 ? 1 : ndim)) {
      throw Error{code::kUnsupported, "Expected a dim and a dtype this op takes"};
    }
    ScratchInts(EnvState::Of(info.Env()).scratch(), slot::kSourceStrides, ndim, false, out_strides);
    call.out_strides = out_strides;
    for (int i = 0; i < ndim; ++i) out_shape[i] = shape[i];
    const int64_t len = ndim == 0 ? 1 : shape[call.dim];
    if (ndim > 0) {
      if (op == ReduceOp::kMax || op == ReduceOp::kMin) out_shape[call.dim] = 1;
      if (op == ReduceOp::kTopk) out_shape[call.dim] = call.k;
    }
    if (op == ReduceOp::kTopk && (call.k < 0 || call.k > len)) {
      throw Error{code::kOutOfRange, "Expected k <= the dim"};
    }
    if ((op == ReduceOp::kMax || op == ReduceOp::kMin) && len == 0) {
      for (int i = 0; i < ndim; ++i) {
        if (shape[i] == 0 && i != call.dim) empty = true;  // no lanes
      }
      if (!empty) throw Error{code::kUnsupported, "Expected a non-empty dim"};
      return;
    }
    call.values = Output(info, 7, ndim, out_type, offset);
    // int64 storage lib/ allocated.
    call.indices = reinterpret_cast<int64_t*>(Output(info, 9, ndim, Scalar::kInt64, offset));
    if ((op == ReduceOp::kSoftmax || op == ReduceOp::kLogSoftmax) && call.values == nullptr) {
      throw Error{code::kUnsupported, "Expected a result buffer"};
    }
    if (op == ReduceOp::kTopk && (call.values == nullptr || call.indices == nullptr)) {
      throw Error{code::kUnsupported, "Expected result buffers"};
    }
  }

  // On either thread; never touches JS.
  bool Run() const override { return empty || RunReduce(call).ok(); }
  static constexpr const char* kRefused = "Expected a reduction this dtype has";
  const char* Refused() const override { return kRefused; }
};

}  // namespace

Napi::Value ReduceOnce(const Napi::CallbackInfo& info) {
  ReduceJob job;
  job.Read(info);
  if (job.empty) return Napi::Boolean::New(info.Env(), true);
  const ReduceResult result = RunReduce(job.call);
  if (result.failure == ReduceFailure::kNotOnDevice) return Napi::Boolean::New(info.Env(), false);
  ThrowIfFailed(result);
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value ReduceAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<ReduceJob>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  if (job->call.device != kHostDevice) {
    throw Error{code::kInvalidArgValue, "Expected a host reduction for the asynchronous form"};
  }
  return QueueJob(info, std::move(job), "dlpack:reduce");
}

}  // namespace dlnode
