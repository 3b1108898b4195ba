#include "reduce.h"

#include <memory>
#include <string>

#include "../core/compute/reduce.h"
#include "../core/layout.h"
#include "async_op.h"
#include "convention.h"
#include "env_state.h"
#include "job_memory.h"

namespace dlnode {
namespace {

Scalar ScalarAt(int index) {
  Scalar s;
  if (index < 0 || index >= Dtypes().size() || !ScalarOf(Dtypes().at(index), &s)) {
    throw Error{code::kUnsupported, "Expected a dtype index of the table"};
  }
  return s;
}

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

struct Source {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  Scalar type = Scalar::kBool;
  const char* first = nullptr;

  StridedInput input() const { return StridedInput{first, type, ndim, shape, strides}; }
};

// The source of either binding: args 1-3 and the scratch block's layout.
void ReadSource(const Napi::CallbackInfo& info, JobMemory* memory, Source* src) {
  napi_env env = info.Env();
  const double* scratch = EnvState::Of(env).scratch();
  // Every number bounded (convention.h): a shape of more than 2^53 - 1
  // elements would overflow the loops' products (UBSan saw it).
  src->ndim = ScratchNdim(scratch);
  ScratchShape(scratch, src->ndim, src->shape);
  ScratchInts(scratch, slot::kStrides, src->ndim, false, src->strides);
  src->type = ScalarAt(info[3].As<Napi::Number>().Int32Value());
  const auto offset = static_cast<uint64_t>(info[2].As<Napi::Number>().Int64Value());
  src->first = memory->Operand(env, 1, info[1], offset, src->ndim, src->shape, src->strides,
                               ScalarSize(src->type), JobMemory::Role::kInput, src->type, "source");
}

// Output bytes at `offset` for a layout of `shape` at `strides` of `type`,
// or null when the argument is null (not an operand).
char* OutputAt(const Napi::CallbackInfo& info, JobMemory* memory, int at, int ndim,
               const int64_t* shape, const int64_t* strides, Scalar type) {
  if (info[at].IsNull()) return nullptr;
  const auto offset = static_cast<uint64_t>(info[at + 1].As<Napi::Number>().Int64Value());
  return memory->Operand(info.Env(), at, info[at], offset, ndim, shape, strides, ScalarSize(type),
                         JobMemory::Role::kOutput, type, "result");
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
  for (int op = 0; op < kReduceOpCount; ++op) {
    Napi::Array row = Napi::Array::New(env, Dtypes().size());
    for (int i = 0; i < Dtypes().size(); ++i) {
      Scalar out;
      const bool ok = ResultType(static_cast<ReduceOp>(op), ScalarAt(i), &out);
      row.Set(i, Napi::Number::New(env, ok ? IndexOf(out) : -1));
    }
    results.Set(op, row);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("ops", ops);
  result.Set("results", results);
  return result;
}

namespace {

// One reduction call, read from the arguments and the scratch block: either
// form (over the last dims, or along one dim). It owns the shape and strides
// its pointers use, so it can outlive the call (the asynchronous form,
// async_op.h); the checks all run in ReadDims/ReadLanes, on the JS thread.
// Not movable: Source::input() points into it.
struct ReduceJob final : AsyncJob {
  ReduceOp op = ReduceOp::kSum;
  Source src;
  bool along = false;  // ReadLanes: along `dim`; else over the last `reduced` dims
  int reduced = 0;
  int dim = 0;
  int64_t k = 0;
  bool largest = true;
  bool sorted = true;
  bool empty = false;  // max/min with no lanes: nothing to run
  int64_t out_strides[kMaxDims] = {};
  int64_t out_shape[kMaxDims] = {};  // ReadLanes: the results' shape
  char* values = nullptr;
  int64_t* indices = nullptr;

  // ReduceDims's arguments.
  void ReadDims(const Napi::CallbackInfo& info) {
    op = OpAt(info[0]);
    ReadSource(info, &memory, &src);
    reduced = info[4].As<Napi::Number>().Int32Value();
    Scalar out_type;
    if (reduced < 0 || reduced > src.ndim || !ResultType(op, src.type, &out_type) ||
        (op != ReduceOp::kSum && op != ReduceOp::kMean && op != ReduceOp::kAmax &&
         op != ReduceOp::kAmin)) {
      throw Error{code::kUnsupported, "Expected a reduction this dtype has"};
    }
    const int kept = src.ndim - reduced;
    int64_t step = 1;
    for (int i = kept - 1; i >= 0; --i) {
      out_strides[i] = step;
      step *= src.shape[i];
    }
    values = OutputAt(info, &memory, 5, kept, src.shape, out_strides, out_type);
    if (values == nullptr) throw Error{code::kUnsupported, "Expected a result buffer"};
  }

  // ReduceLanes's arguments.
  void ReadLanes(const Napi::CallbackInfo& info) {
    along = true;
    op = OpAt(info[0]);
    ReadSource(info, &memory, &src);
    dim = info[4].As<Napi::Number>().Int32Value();
    k = static_cast<int64_t>(info[9].As<Napi::Number>().Int64Value());
    largest = info[10].ToBoolean().Value();
    sorted = info[11].ToBoolean().Value();
    Scalar out_type;
    if (dim < 0 || dim >= (src.ndim == 0 ? 1 : src.ndim) || !ResultType(op, src.type, &out_type)) {
      throw Error{code::kUnsupported, "Expected a dim and a dtype this op takes"};
    }
    const double* scratch = EnvState::Of(info.Env()).scratch();
    ScratchInts(scratch, slot::kSourceStrides, src.ndim, false, out_strides);
    for (int i = 0; i < src.ndim; ++i) out_shape[i] = src.shape[i];
    const int64_t len = src.ndim == 0 ? 1 : src.shape[dim];
    if (src.ndim > 0) {
      if (op == ReduceOp::kMax || op == ReduceOp::kMin) out_shape[dim] = 1;
      if (op == ReduceOp::kTopk) out_shape[dim] = k;
    }
    if (op == ReduceOp::kTopk && (k < 0 || k > len)) {
      throw Error{code::kOutOfRange, "Expected k <= the dim"};
    }
    if ((op == ReduceOp::kMax || op == ReduceOp::kMin) && len == 0) {
      for (int i = 0; i < src.ndim; ++i) {
        if (src.shape[i] == 0 && i != dim) empty = true;  // no lanes
      }
      if (!empty) throw Error{code::kUnsupported, "Expected a non-empty dim"};
      return;
    }
    values = OutputAt(info, &memory, 5, src.ndim, out_shape, out_strides, out_type);
    // int64 storage lib/ allocated.
    indices = reinterpret_cast<int64_t*>(
        OutputAt(info, &memory, 7, src.ndim, out_shape, out_strides, Scalar::kInt64));
    switch (op) {
      case ReduceOp::kMax:
      case ReduceOp::kMin:
        break;
      case ReduceOp::kSoftmax:
      case ReduceOp::kLogSoftmax:
        if (values == nullptr) throw Error{code::kUnsupported, "Expected a result buffer"};
        break;
      case ReduceOp::kTopk:
        if (values == nullptr || indices == nullptr) {
          throw Error{code::kUnsupported, "Expected result buffers"};
        }
        break;
      default:
        throw Error{code::kUnsupported, "Expected a reduction along one dim"};
    }
  }

  // On either thread; never touches JS.
  bool Run() const override {
    if (empty) return true;
    if (!along) {
      Reduce(op, src.input(), reduced, values);
    } else if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
      ArgExtreme(op, src.input(), dim, values, indices, out_strides);
    } else if (op == ReduceOp::kTopk) {
      TopK(src.input(), dim, k, largest, sorted, values, indices, out_strides);
    } else {
      Softmax(op, src.input(), dim, values, out_strides);
    }
    return true;
  }
  static constexpr const char* kRefused = "Expected a reduction this dtype has";
  const char* Refused() const override { return kRefused; }
};

}  // namespace

Napi::Value ReduceDims(const Napi::CallbackInfo& info) {
  ReduceJob job;
  job.ReadDims(info);
  job.Run();
  return info.Env().Undefined();
}

Napi::Value ReduceDimsAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<ReduceJob>();
  job->memory.Async(StageMask(info));
  job->ReadDims(info);
  return QueueJob(info, std::move(job), "dlpack:reduce");
}

Napi::Value ReduceLanes(const Napi::CallbackInfo& info) {
  ReduceJob job;
  job.ReadLanes(info);
  job.Run();
  return info.Env().Undefined();
}

Napi::Value ReduceLanesAsync(const Napi::CallbackInfo& info) {
  auto job = std::make_unique<ReduceJob>();
  job->memory.Async(StageMask(info));
  job->ReadLanes(info);
  return QueueJob(info, std::move(job), "dlpack:reduce");
}

}  // namespace dlnode
