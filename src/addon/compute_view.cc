#include "compute_view.h"

#include <cmath>
#include <string>

#include "../core/dtype.h"
#include "errors.h"

namespace dlnode {
namespace {

constexpr double kSafe = 9007199254740992.0;  // 2^53

int64_t BoundedInt(const Napi::Value& v, bool size, const char* which) {
  const double value = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(std::trunc(value) == value && value < kSafe && value > (size ? -1 : -kSafe))) {
    throw Error{code::kOutOfRange,
                std::string("Expected ") + (size ? "sizes from 0" : "strides above -2^53") +
                    " and below 2^53 for the " + which + ", received " + std::to_string(value)};
  }
  return static_cast<int64_t>(value);
}

}  // namespace

void ReadView(const Napi::CallbackInfo& info, int at, JobMemory* memory, JobMemory::Role role,
              const char* which, ViewArg* out) {
  const int index = info[at + 2].As<Napi::Number>().Int32Value();
  Scalar type;
  if (index < 0 || index >= Dtypes().size() || !ScalarOf(Dtypes().at(index), &type)) {
    throw Error{code::kUnsupported,
                std::string("Expected a dtype index of the table for the ") + which};
  }
  const Napi::Array dims = info[at + 3].As<Napi::Array>();
  const uint32_t length = dims.Length();
  if (length % 2 != 0 || length > 2 * static_cast<uint32_t>(kMaxDims)) {
    throw Error{code::kOutOfRange, std::string("Expected at most 64 dims for the ") + which};
  }
  const int ndim = static_cast<int>(length / 2);
  for (int d = 0; d < ndim; ++d) {
    out->shape[d] = BoundedInt(dims.Get(d), true, which);
    out->strides[d] = BoundedInt(dims.Get(ndim + d), false, which);
  }
  uint64_t count = 0;
  if (!CountElements(ndim, out->shape, &count)) {
    throw Error{code::kOutOfRange,
                std::string("Expected at most 2^53 - 1 elements for the ") + which};
  }
  compute::View& view = out->view;
  view.type = type;
  view.ndim = ndim;
  view.shape = out->shape;
  view.strides = out->strides;
  view.first = nullptr;
  if (info[at].IsNull()) return;
  const double offset = info[at + 1].As<Napi::Number>().DoubleValue();
  if (!(std::trunc(offset) == offset && offset >= 0 && offset < kSafe)) {
    throw Error{code::kOutOfRange,
                std::string("Expected a byte offset from 0 below 2^53 for the ") + which};
  }
  view.first = memory->Operand(info.Env(), at, info[at], static_cast<uint64_t>(offset), ndim,
                               out->shape, out->strides, ScalarSize(type), role, type, which);
}

uint64_t Uint64At(const Napi::CallbackInfo& info, int at, const char* what) {
  bool lossless = false;
  const uint64_t value = info[at].As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless)
    throw Error{code::kOutOfRange, std::string("Expected ") + what + " from 0 below 2^64"};
  return value;
}

int64_t Int64At(const Napi::CallbackInfo& info, int at, const char* what) {
  bool lossless = false;
  const int64_t value = info[at].As<Napi::BigInt>().Int64Value(&lossless);
  if (!lossless)
    throw Error{code::kOutOfRange, std::string("Expected ") + what + " from -2^63 below 2^63"};
  return value;
}

}  // namespace dlnode
