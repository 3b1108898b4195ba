#include "convention.h"

#include <cstdint>
#include <string>

#include "../core/buffer_view.h"
#include "../core/compute/elementwise.h"
#include "../core/compute/elementwise_call.h"
#include "../core/cuda_memory.h"
#include "../core/dtype.h"
#include "../core/layout.h"
#include "../core/pages.h"
#include "../core/parallel.h"
#include "../core/struct_slab.h"
#include "errors.h"
#include "memory.h"

namespace dlnode {
namespace {

constexpr double kSafe = 9007199254740992.0;  // 2^53

bool IsInteger(double value, double low, double high) {
  // NaN fails every comparison; the truncation test runs only on finite values.
  return value >= low && value < high && static_cast<double>(static_cast<int64_t>(value)) == value;
}

}  // namespace

int ScratchNdim(const double* scratch) {
  const double ndim = scratch[slot::kNdim];
  if (!IsInteger(ndim, 0, kMaxDims + 1)) {
    throw Error{code::kOutOfRange, "Expected ndim from 0 to " + std::to_string(kMaxDims) +
                                       ", received " + std::to_string(ndim)};
  }
  return static_cast<int>(ndim);
}

void ScratchInts(const double* scratch, int first, int count, bool sizes, int64_t* out) {
  for (int i = 0; i < count; ++i) {
    const double value = scratch[first + i];
    if (!IsInteger(value, sizes ? 0 : -kSafe + 1, kSafe)) {
      throw Error{code::kOutOfRange, std::string("Expected ") +
                                         (sizes ? "a size from 0" : "a stride above -2^53") +
                                         " and below 2^53, received " + std::to_string(value)};
    }
    out[i] = static_cast<int64_t>(value);
  }
}

void ScratchShape(const double* scratch, int ndim, int64_t* shape) {
  ScratchInts(scratch, slot::kShape, ndim, true, shape);
  uint64_t count = 0;
  if (!CountElements(ndim, shape, &count)) {
    throw Error{code::kOutOfRange,
                "Expected a shape of at most 2^53 - 1 elements, received one whose element count "
                "overflows (numel: integer multiplication overflow)"};
  }
}

Scalar ScalarArg(const Napi::Value& index) {
  const int i = index.As<Napi::Number>().Int32Value();
  Scalar s;
  if (i < 0 || i >= Dtypes().size() || !ScalarOf(Dtypes().at(i), &s)) {
    throw Error{code::kUnsupported, "Expected a dtype index of the table"};
  }
  return s;
}

uint64_t ByteOffsetOf(double value, const char* what) {
  if (!IsInteger(value, 0, kSafe)) {
    throw Error{code::kOutOfRange, std::string("Expected ") + what +
                                       " from 0 and below 2^53, received " + std::to_string(value)};
  }
  return static_cast<uint64_t>(value);
}

Napi::Object Convention(Napi::Env env) {
  Napi::Object slots = Napi::Object::New(env);
#define DLNODE_SET_SLOT(js, constant, value) slots.Set(#js, Napi::Number::New(env, slot::constant));
  DLNODE_SCRATCH_SLOTS(DLNODE_SET_SLOT)
#undef DLNODE_SET_SLOT
#define DLNODE_SET(js, constant, value) \
  list.Set(#js, Napi::Number::New(env, static_cast<double>(value)));
  Napi::Object import_result = Napi::Object::New(env);
  {
    Napi::Object& list = import_result;
    DLNODE_IMPORT_RESULTS(DLNODE_SET)
  }
  Napi::Object view_failure = Napi::Object::New(env);
  {
    Napi::Object& list = view_failure;
#define DLNODE_SET_FAILURE(constant, code, js) \
  list.Set(#js, Napi::Number::New(env, static_cast<double>(ViewFailure::constant)));
    DLNODE_VIEW_FAILURES(DLNODE_SET_FAILURE)
#undef DLNODE_SET_FAILURE
  }
  Napi::Object memory_kind = Napi::Object::New(env);
  {
    Napi::Object& list = memory_kind;
    DLNODE_MEMORY_KINDS(DLNODE_SET)
  }
  Napi::Object ops = Napi::Object::New(env);
  {
    Napi::Object& list = ops;
#define DLNODE_SET_OP(js, constant, ...) \
  DLNODE_SET(js, constant, static_cast<int>(ElementwiseOp::constant))
    DLNODE_ELEMENTWISE_OPS(DLNODE_SET_OP)
#undef DLNODE_SET_OP
  }
#undef DLNODE_SET
  Napi::Array dtypes = Napi::Array::New(env);
#define DLNODE_DTYPE_ROW(js, index, code, bits)                     \
  {                                                                 \
    Napi::Array row = Napi::Array::New(env, 3);                     \
    row.Set(0u, Napi::String::New(env, #js));                       \
    row.Set(1u, Napi::Number::New(env, static_cast<double>(code))); \
    row.Set(2u, Napi::Number::New(env, static_cast<double>(bits))); \
    dtypes.Set(static_cast<uint32_t>(dtype::index), row);           \
  }
  DLNODE_DTYPES(DLNODE_DTYPE_ROW)
#undef DLNODE_DTYPE_ROW

  // The struct slab (../core/struct_slab.h): what lib/struct_slab.js may cache.
  Napi::Object slab_states = Napi::Object::New(env);
#define DLNODE_SET_STATE(js, constant, value) \
  slab_states.Set(#js, Napi::Number::New(env, static_cast<double>(StructSlab::constant)));
  DLNODE_SLAB_STATES(DLNODE_SET_STATE)
#undef DLNODE_SET_STATE
  Napi::Object struct_fields = Napi::Object::New(env);
#define DLNODE_SET_FIELD(js, offset, bytes)                             \
  {                                                                     \
    Napi::Array field = Napi::Array::New(env, 2);                       \
    field.Set(0u, Napi::Number::New(env, static_cast<double>(offset))); \
    field.Set(1u, Napi::Number::New(env, static_cast<double>(bytes)));  \
    struct_fields.Set(#js, field);                                      \
  }
  DLNODE_STRUCT_FIELDS(DLNODE_SET_FIELD)
#undef DLNODE_SET_FIELD
  Napi::Object slab_layout = Napi::Object::New(env);
#define DLNODE_SET_LAYOUT(js, constant) \
  slab_layout.Set(#js, Napi::Number::New(env, static_cast<double>(StructSlab::constant)));
  DLNODE_SLAB_LAYOUT(DLNODE_SET_LAYOUT)
#undef DLNODE_SET_LAYOUT
  Napi::Object slab = Napi::Object::New(env);
  slab.Set("states", slab_states);
  slab.Set("fields", struct_fields);
  slab.Set("layout", slab_layout);
  Napi::Object version = Napi::Object::New(env);
  version.Set("major", Napi::Number::New(env, DLPACK_MAJOR_VERSION));
  version.Set("minor", Napi::Number::New(env, DLPACK_MINOR_VERSION));
  Napi::Object flag_bits = Napi::Object::New(env);
  flag_bits.Set("readOnly",
                Napi::Number::New(env, static_cast<double>(DLPACK_FLAG_BITMASK_READ_ONLY)));
  flag_bits.Set("isCopied",
                Napi::Number::New(env, static_cast<double>(DLPACK_FLAG_BITMASK_IS_COPIED)));

  // The DLPack device types lib/device.js names (dlpack_abi.h).
  Napi::Object device_codes = Napi::Object::New(env);
  device_codes.Set("cpu", Napi::Number::New(env, kDLCPU));
  device_codes.Set("cuda", Napi::Number::New(env, kDLCUDA));
  device_codes.Set("cuda_host", Napi::Number::New(env, kDLCUDAHost));
  device_codes.Set("cuda_managed", Napi::Number::New(env, kDLCUDAManaged));

  Napi::Object result = Napi::Object::New(env);
  result.Set("slots", slots);
  result.Set("deviceCodes", device_codes);
  result.Set("importResult", import_result);
  result.Set("viewFailure", view_failure);
  result.Set("memoryKind", memory_kind);
  result.Set("dtypes", dtypes);
  result.Set("ops", ops);
  result.Set("hostDevice", Napi::Number::New(env, kHostDevice));
  result.Set("maxThreads", Napi::Number::New(env, kMaxThreads));
  result.Set("maxDims", Napi::Number::New(env, kMaxDims));
  result.Set("dlpackVersion", version);
  result.Set("dlpackFlags", flag_bits);
  result.Set("hugePageAdviceMin",
             Napi::Number::New(env, static_cast<double>(dlcore::kHugePageAdviceMin)));
  result.Set("hugePageAdvice", Napi::Boolean::New(env, HugePageAdviceOn()));
  result.Set("slab", slab);
  return result;
}

}  // namespace dlnode
