// The reductions' element vocabulary (src/core/compute/reduce.h): the
// storage types as the kernels read them, a value as ops compute with it, an
// accumulator, a store that rounds once, and the dtype dispatch.
#ifndef DLPACK_NODE_CORE_COMPUTE_REDUCE_ELEMENT_H_
#define DLPACK_NODE_CORE_COMPUTE_REDUCE_ELEMENT_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../convert.h"

namespace dlnode {
namespace reduction {

// Storage types: bool is a byte read as `!= 0`; the 16-bit floats are bits.
struct BoolT {
  uint8_t v;
};
struct HalfT {
  uint16_t bits;
};
struct Bf16T {
  uint16_t bits;
};

template <class T>
constexpr int64_t kSizeOf = static_cast<int64_t>(sizeof(T));

template <class T>
struct Tag {
  using type = T;
};

template <class T>
T Raw(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
void Put(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// An element as the value ops compute with.
template <class T>
T Value(T v) {
  return v;
}
inline uint8_t Value(BoolT v) { return v.v != 0 ? 1 : 0; }
inline float Value(HalfT v) { return HalfToFloat(v.bits); }
inline float Value(Bf16T v) { return Bfloat16ToFloat(v.bits); }

template <class T>
using ValueOf = decltype(Value(T{}));

// A value as an accumulator: signed integers sign-extend to 64 bits first
// (a sum's uint64 accumulator wraps like two's complement int64).
template <class A, class V>
A ToAcc(V v) {
  if constexpr (std::is_integral<V>::value && std::is_signed<V>::value) {
    return static_cast<A>(static_cast<int64_t>(v));
  } else {
    return static_cast<A>(v);
  }
}

template <class T>
struct IsComplexT : std::false_type {};
template <class T>
struct IsComplexT<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool kIsComplex = IsComplexT<T>::value;
template <class T>
constexpr bool kIsFloat = std::is_floating_point<ValueOf<T>>::value;

// A computed value stored as T (float16/bfloat16 round to nearest even).
template <class T, class V>
void StoreValue(char* p, V v) {
  if constexpr (std::is_same<T, HalfT>::value) {
    Put<uint16_t>(p, FloatToHalf(static_cast<float>(v)));
  } else if constexpr (std::is_same<T, Bf16T>::value) {
    Put<uint16_t>(p, FloatToBfloat16(static_cast<float>(v)));
  } else if constexpr (std::is_same<T, BoolT>::value) {
    Put<uint8_t>(p, v != 0 ? 1 : 0);
  } else {
    Put<T>(p, static_cast<T>(v));
  }
}

template <class F>
void Dispatch(Scalar s, F&& f) {
  switch (s) {
    case Scalar::kBool:
      return f(Tag<BoolT>{});
    case Scalar::kInt8:
      return f(Tag<int8_t>{});
    case Scalar::kInt16:
      return f(Tag<int16_t>{});
    case Scalar::kInt32:
      return f(Tag<int32_t>{});
    case Scalar::kInt64:
      return f(Tag<int64_t>{});
    case Scalar::kUint8:
      return f(Tag<uint8_t>{});
    case Scalar::kUint16:
      return f(Tag<uint16_t>{});
    case Scalar::kUint32:
      return f(Tag<uint32_t>{});
    case Scalar::kUint64:
      return f(Tag<uint64_t>{});
    case Scalar::kFloat16:
      return f(Tag<HalfT>{});
    case Scalar::kBfloat16:
      return f(Tag<Bf16T>{});
    case Scalar::kFloat32:
      return f(Tag<float>{});
    case Scalar::kFloat64:
      return f(Tag<double>{});
    case Scalar::kComplex64:
      return f(Tag<std::complex<float>>{});
    case Scalar::kComplex128:
      return f(Tag<std::complex<double>>{});
  }
}

template <class A>
struct RealOf {
  using type = A;
};
template <class A>
struct RealOf<std::complex<A>> {
  using type = A;
};

// The accumulator of a sum: integers and bool in uint64 (wrapping, stored as
// int64), the rest in their computing type.
template <class T>
using SumAcc = std::conditional_t<std::is_integral<ValueOf<T>>::value, uint64_t, ValueOf<T>>;

}  // namespace reduction
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_REDUCE_ELEMENT_H_
