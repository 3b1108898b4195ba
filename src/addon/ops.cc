#include "ops.h"

#include <string>

#include "../core/dtype.h"
#include "../core/elementwise.h"
#include "../core/layout.h"
#include "../core/parallel.h"
#include "bytes.h"
#include "convention.h"
#include "env_state.h"

namespace dlnode {
namespace {

Scalar ScalarAt(const Napi::Value& index) {
  Scalar s;
  if (!ScalarOf(Dtypes().at(index.As<Napi::Number>().Int32Value()), &s)) {
    throw Error{code::kUnsupported, "Expected a dtype with arithmetic"};
  }
  return s;
}

// Element 0 of a tensor operand, after checking that every element `strides`
// reaches lies inside the view's bytes now (a buffer may have been detached).
char* Place(napi_env env, const Napi::Value& view, const Napi::Value& offset, int ndim,
            const int64_t* shape, const int64_t* strides, uint64_t item_size) {
  const Bytes bytes = BytesOf(env, view);
  const auto at = static_cast<uint64_t>(offset.As<Napi::Number>().Int64Value());
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, strides, item_size, &low, &high)) {
    throw Error{code::kOutOfRange, "Expected an operand extent below 2^53 bytes"};
  }
  if ((low != 0 || high != 0) && (at < low || at + high > bytes.length)) {
    throw Error{
        code::kDetached,
        "Expected the tensor's buffer to still hold its bytes, but it was detached or shrunk"};
  }
  return bytes.data + at;
}

}  // namespace

Napi::Value ElementwiseOnHost(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const double* scratch = EnvState::Of(env).scratch();
  const auto op = static_cast<ElementwiseOp>(info[0].As<Napi::Number>().Int32Value());
  const int arity = ElementwiseArity(op);
  const Scalar type = ScalarAt(info[1]);
  const int ndim = static_cast<int>(scratch[slot::kNdim]);
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];
  const int from[kMaxOperands] = {slot::kStrides, slot::kSourceStrides, slot::kOperandStrides,
                                  slot::kOperandStrides + kMaxDims};
  for (int d = 0; d < ndim; ++d) {
    shape[d] = static_cast<int64_t>(scratch[slot::kShape + d]);
    for (int k = 0; k <= arity; ++k) strides[k][d] = static_cast<int64_t>(scratch[from[k] + d]);
  }
  const bool compare = op == ElementwiseOp::kEq || op == ElementwiseOp::kNe ||
                       op == ElementwiseOp::kLt || op == ElementwiseOp::kLe ||
                       op == ElementwiseOp::kGt || op == ElementwiseOp::kGe;
  const uint64_t size = ScalarSize(type);
  Operand out{Place(env, info[2], info[3], ndim, shape, strides[0], compare ? 1 : size),
              strides[0]};
  // Scalars live here for the call, read at stride 0.
  alignas(16) char scalars[kMaxOperands][16] = {};
  const int64_t zeros[kMaxDims] = {};
  Operand in[kMaxOperands - 1];
  for (int k = 0; k < arity; ++k) {
    const Napi::Value value = info[4 + 2 * k];
    const bool condition = op == ElementwiseOp::kWhere && k == 0;
    const Scalar in_type = condition ? Scalar::kBool : type;
    if (value.IsNumber()) {
      StoreScalar(in_type, value.As<Napi::Number>().DoubleValue(), scalars[k]);
      in[k] = Operand{scalars[k], zeros};
    } else {
      in[k] = Operand{
          Place(env, value, info[5 + 2 * k], ndim, shape, strides[k + 1], ScalarSize(in_type)),
          strides[k + 1]};
    }
  }
  if (!Elementwise(op, type, ndim, shape, out, in)) {
    throw Error{code::kUnsupported, "Expected a dtype the op computes in"};
  }
  return info.Env().Undefined();
}

Napi::Value NormalizeOnHost(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const double* scratch = EnvState::Of(env).scratch();
  const Scalar in_type = ScalarAt(info[0]);
  const Scalar out_type = ScalarAt(info[1]);
  const int ndim = static_cast<int>(scratch[slot::kNdim]);
  int64_t shape[kMaxDims];
  int64_t out_strides[kMaxDims];
  int64_t in_strides[kMaxDims];
  for (int d = 0; d < ndim; ++d) {
    shape[d] = static_cast<int64_t>(scratch[slot::kShape + d]);
    out_strides[d] = static_cast<int64_t>(scratch[slot::kStrides + d]);
    in_strides[d] = static_cast<int64_t>(scratch[slot::kSourceStrides + d]);
  }
  const Operand out{Place(env, info[2], info[3], ndim, shape, out_strides, ScalarSize(out_type)),
                    out_strides};
  const Operand in{Place(env, info[4], info[5], ndim, shape, in_strides, ScalarSize(in_type)),
                   in_strides};
  Napi::Float64Array mean_std = info[6].As<Napi::Float64Array>();
  const size_t channels = mean_std.ElementLength() / 2;
  if (ndim < 3 || static_cast<size_t>(shape[ndim - 3]) != channels) {
    throw Error{code::kInvalidArgValue, "Expected one mean and one std per channel"};
  }
  const double* mean = mean_std.Data();
  if (!Normalize(ndim, shape, in_type, in, out_type, out, mean, mean + channels,
                 info[7].As<Napi::Number>().DoubleValue())) {
    throw Error{code::kUnsupported, "Expected a real input and a float32 or float64 output"};
  }
  return info.Env().Undefined();
}

Napi::Value GetNumThreadsOf(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), GetNumThreads());
}

Napi::Value SetNumThreadsTo(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), SetNumThreads(info[0].As<Napi::Number>().Int32Value()));
}

}  // namespace dlnode
