// Dispatch over the real dtypes for the families that move or compare
// elements in their own type (sort, scan, index): the storage type and the
// type values compare and compute in (bool as uint8, float16 and bfloat16 as
// float, the rest as themselves).
#ifndef DLPACK_NODE_CORE_COMPUTE_REAL_TYPES_H_
#define DLPACK_NODE_CORE_COMPUTE_REAL_TYPES_H_

#include <cstdint>
#include <cstring>

#include "../convert.h"

namespace dlnode {
namespace compute {

struct HalfBits {
  uint16_t bits;
};
struct Bf16Bits {
  uint16_t bits;
};

template <class S>
struct Real {
  using Value = S;
  static Value Load(const char* p) {
    S v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void Store(char* p, Value v) { std::memcpy(p, &v, sizeof v); }
};
template <>
struct Real<HalfBits> {
  using Value = float;
  static Value Load(const char* p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return HalfToFloat(v);
  }
  static void Store(char* p, Value v) {
    const uint16_t b = FloatToHalf(v);
    std::memcpy(p, &b, sizeof b);
  }
};
template <>
struct Real<Bf16Bits> {
  using Value = float;
  static Value Load(const char* p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return Bfloat16ToFloat(v);
  }
  static void Store(char* p, Value v) {
    const uint16_t b = FloatToBfloat16(v);
    std::memcpy(p, &b, sizeof b);
  }
};

template <class S>
struct Tag {
  using type = S;
};

// f(Tag<S>{}) for the storage type of `type`; false for complex types.
template <class F>
bool DispatchReal(Scalar type, F&& f) {
  switch (type) {
    case Scalar::kBool:
    case Scalar::kUint8:
      f(Tag<uint8_t>{});
      return true;
    case Scalar::kInt8:
      f(Tag<int8_t>{});
      return true;
    case Scalar::kInt16:
      f(Tag<int16_t>{});
      return true;
    case Scalar::kInt32:
      f(Tag<int32_t>{});
      return true;
    case Scalar::kInt64:
      f(Tag<int64_t>{});
      return true;
    case Scalar::kUint16:
      f(Tag<uint16_t>{});
      return true;
    case Scalar::kUint32:
      f(Tag<uint32_t>{});
      return true;
    case Scalar::kUint64:
      f(Tag<uint64_t>{});
      return true;
    case Scalar::kFloat16:
      f(Tag<HalfBits>{});
      return true;
    case Scalar::kBfloat16:
      f(Tag<Bf16Bits>{});
      return true;
    case Scalar::kFloat32:
      f(Tag<float>{});
      return true;
    case Scalar::kFloat64:
      f(Tag<double>{});
      return true;
    default:
      return false;
  }
}

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_REAL_TYPES_H_
