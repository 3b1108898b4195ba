#include "reduce.h"

#include <memory>
#include <string>

#include "../core/layout.h"
#include "../core/reduce.h"
#include "async_op.h"
#include "bytes.h"
#include "convention.h"
#include "env_state.h"

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

// The bytes [offset - low, offset + high) must lie inside `bytes`.
void CheckInside(const Bytes& bytes, uint64_t offset, int ndim, const int64_t* shape,
                 const int64_t* strides, uint64_t item_size, const char* which) {
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, strides, item_size, &low, &high)) {
    throw Error{code::kOutOfRange, std::string("Expected a ") + which + " extent below 2^53 bytes"};
  }
  if (low == 0 && high == 0) return;
  if (offset < low || offset + high > bytes.length) {
    throw Error{code::kDetached,
                std::string("Expected the ") + which +
                    " buffer to still hold its bytes, but it was detached or shrunk"};
  }
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
Source ReadSource(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const double* scratch = EnvState::Of(env).scratch();
  Source src;
  // Every number bounded (convention.h): a shape of more than 2^53 - 1
  // elements would overflow the loops' products (UBSan saw it).
  src.ndim = ScratchNdim(scratch);
  ScratchShape(scratch, src.ndim, src.shape);
  ScratchInts(scratch, slot::kStrides, src.ndim, false, src.strides);
  src.type = ScalarAt(info[3].As<Napi::Number>().Int32Value());
  const Bytes bytes = BytesOf(env, info[1]);
  const auto offset = static_cast<uint64_t>(info[2].As<Napi::Number>().Int64Value());
  CheckInside(bytes, offset, src.ndim, src.shape, src.strides, ScalarSize(src.type), "source");
  src.first = bytes.data + offset;
  return src;
}

// Output bytes at `offset` for a layout of `shape` at `strides`, or null
// when the argument is null.
char* OutputAt(const Napi::CallbackInfo& info, int at, int ndim, const int64_t* shape,
               const int64_t* strides, uint64_t item_size) {
  if (info[at].IsNull()) return nullptr;
  const Bytes bytes = BytesOf(info.Env(), info[at]);
  const auto offset = static_cast<uint64_t>(info[at + 1].As<Napi::Number>().Int64Value());
  CheckInside(bytes, offset, ndim, shape, strides, item_size, "result");
  return bytes.data + offset;
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
struct ReduceJob {
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
  char* values = nullptr;
  int64_t* indices = nullptr;

  ReduceJob() = default;
  ReduceJob(const ReduceJob&) = delete;
  ReduceJob& operator=(const ReduceJob&) = delete;

  // ReduceDims's arguments.
  void ReadDims(const Napi::CallbackInfo& info) {
    op = OpAt(info[0]);
    src = ReadSource(info);
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
    values = OutputAt(info, 5, kept, src.shape, out_strides, ScalarSize(out_type));
    if (values == nullptr) throw Error{code::kUnsupported, "Expected a result buffer"};
  }

  // ReduceLanes's arguments.
  void ReadLanes(const Napi::CallbackInfo& info) {
    along = true;
    op = OpAt(info[0]);
    src = ReadSource(info);
    dim = info[4].As<Napi::Number>().Int32Value();
    k = static_cast<int64_t>(info[9].As<Napi::Number>().Int64Value());
    largest = info[10].ToBoolean().Value();
    sorted = info[11].ToBoolean().Value();
    Scalar out_type;
    if (dim < 0 || dim >= (src.ndim == 0 ? 1 : src.ndim) || !ResultType(op, src.type, &out_type)) {
      throw Error{code::kUnsupported, "Expected a dim and a dtype this op takes"};
    }
    const double* scratch = EnvState::Of(info.Env()).scratch();
    int64_t out_shape[kMaxDims];
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
    values = OutputAt(info, 5, src.ndim, out_shape, out_strides, ScalarSize(out_type));
    // int64 storage lib/ allocated.
    indices = reinterpret_cast<int64_t*>(OutputAt(info, 7, src.ndim, out_shape, out_strides, 8));
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
  bool Run() const {
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
  job->ReadLanes(info);
  return QueueJob(info, std::move(job), "dlpack:reduce");
}

}  // namespace dlnode
