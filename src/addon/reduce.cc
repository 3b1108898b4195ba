#include "reduce.h"

#include <string>

#include "../core/layout.h"
#include "../core/reduce.h"
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
  src.ndim = static_cast<int>(scratch[slot::kNdim]);
  for (int i = 0; i < src.ndim; ++i) {
    src.shape[i] = static_cast<int64_t>(scratch[slot::kShape + i]);
    src.strides[i] = static_cast<int64_t>(scratch[slot::kStrides + i]);
  }
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

Napi::Value ReduceDims(const Napi::CallbackInfo& info) {
  const ReduceOp op = OpAt(info[0]);
  const Source src = ReadSource(info);
  const int reduced = info[4].As<Napi::Number>().Int32Value();
  Scalar out_type;
  if (reduced < 0 || reduced > src.ndim || !ResultType(op, src.type, &out_type) ||
      (op != ReduceOp::kSum && op != ReduceOp::kMean && op != ReduceOp::kAmax &&
       op != ReduceOp::kAmin)) {
    throw Error{code::kUnsupported, "Expected a reduction this dtype has"};
  }
  const int kept = src.ndim - reduced;
  int64_t strides[kMaxDims];
  int64_t step = 1;
  for (int i = kept - 1; i >= 0; --i) {
    strides[i] = step;
    step *= src.shape[i];
  }
  char* out = OutputAt(info, 5, kept, src.shape, strides, ScalarSize(out_type));
  if (out == nullptr) throw Error{code::kUnsupported, "Expected a result buffer"};
  Reduce(op, src.input(), reduced, out);
  return info.Env().Undefined();
}

Napi::Value ReduceLanes(const Napi::CallbackInfo& info) {
  const ReduceOp op = OpAt(info[0]);
  const Source src = ReadSource(info);
  const int dim = info[4].As<Napi::Number>().Int32Value();
  const auto k = static_cast<int64_t>(info[9].As<Napi::Number>().Int64Value());
  Scalar out_type;
  if (dim < 0 || dim >= (src.ndim == 0 ? 1 : src.ndim) || !ResultType(op, src.type, &out_type)) {
    throw Error{code::kUnsupported, "Expected a dim and a dtype this op takes"};
  }
  const double* scratch = EnvState::Of(info.Env()).scratch();
  int64_t out_shape[kMaxDims];
  int64_t out_strides[kMaxDims];
  for (int i = 0; i < src.ndim; ++i) {
    out_shape[i] = src.shape[i];
    out_strides[i] = static_cast<int64_t>(scratch[slot::kSourceStrides + i]);
  }
  const int64_t len = src.ndim == 0 ? 1 : src.shape[dim];
  if (src.ndim > 0) {
    if (op == ReduceOp::kMax || op == ReduceOp::kMin) out_shape[dim] = 1;
    if (op == ReduceOp::kTopk) out_shape[dim] = k;
  }
  if (op == ReduceOp::kTopk && (k < 0 || k > len))
    throw Error{code::kOutOfRange, "Expected k <= the dim"};
  if ((op == ReduceOp::kMax || op == ReduceOp::kMin) && len == 0) {
    for (int i = 0; i < src.ndim; ++i) {
      if (src.shape[i] == 0 && i != dim) return info.Env().Undefined();  // no lanes
    }
    throw Error{code::kUnsupported, "Expected a non-empty dim"};
  }
  char* values = OutputAt(info, 5, src.ndim, out_shape, out_strides, ScalarSize(out_type));
  char* indices = OutputAt(info, 7, src.ndim, out_shape, out_strides, 8);
  auto* index_out = reinterpret_cast<int64_t*>(indices);  // int64 storage lib/ allocated
  switch (op) {
    case ReduceOp::kMax:
    case ReduceOp::kMin:
      ArgExtreme(op, src.input(), dim, values, index_out, out_strides);
      break;
    case ReduceOp::kSoftmax:
    case ReduceOp::kLogSoftmax:
      if (values == nullptr) throw Error{code::kUnsupported, "Expected a result buffer"};
      Softmax(op, src.input(), dim, values, out_strides);
      break;
    case ReduceOp::kTopk:
      if (values == nullptr || indices == nullptr) {
        throw Error{code::kUnsupported, "Expected result buffers"};
      }
      TopK(src.input(), dim, k, info[10].ToBoolean().Value(), info[11].ToBoolean().Value(), values,
           index_out, out_strides);
      break;
    default:
      throw Error{code::kUnsupported, "Expected a reduction along one dim"};
  }
  return info.Env().Undefined();
}

}  // namespace dlnode
