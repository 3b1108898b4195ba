#include "compute_operands.h"

#include <string>

#include "../core/dtype.h"
#include "../core/layout.h"
#include "convention.h"
#include "errors.h"
#include "host_storage.h"

namespace dlnode {

compute::Place PlaceAt(const Napi::CallbackInfo& info, int at) {
  compute::Place place;
  place.device_type = info[at].As<Napi::Number>().Int32Value();
  place.device = info[at + 1].As<Napi::Number>().Int32Value();
  bool lossless = false;
  place.stream = static_cast<uintptr_t>(info[at + 2].As<Napi::BigInt>().Uint64Value(&lossless));
  return place;
}

char* ComputeOperand(const Napi::CallbackInfo& info, JobMemory* memory, const compute::Place& place,
                     int arg, int ndim, const int64_t* shape, const int64_t* strides, Scalar type,
                     JobMemory::Role role, const char* which) {
  napi_env env = info.Env();
  const uint64_t offset = ByteOffsetOf(info[arg + 1].As<Napi::Number>().DoubleValue(), which);
  if (IsHostAccessible(place.device_type)) {
    return memory->Operand(env, arg, info[arg], offset, ndim, shape, strides, ScalarSize(type),
                           role, type, which);
  }
  NativeMemory* native = StorageOf(env, info[arg]);
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, strides, ScalarSize(type), &low, &high)) {
    throw Error{code::kOutOfRange, std::string("Expected a ") + which + " extent below 2^53 bytes"};
  }
  if ((low != 0 || high != 0) && !Holds(native->length(), offset, low, high)) {
    throw Error{code::kDetached, std::string("Expected the ") + which +
                                     " memory to hold its view, but it is " +
                                     std::to_string(native->length()) + " bytes"};
  }
  return static_cast<char*>(native->base()) + offset;
}

}  // namespace dlnode
