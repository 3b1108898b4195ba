// The host engines' one element vocabulary and dtype dispatch: the storage
// type of each Scalar as memory holds it, the value it computes as, a load and
// a store that rounds once, and the switch from a Scalar to its storage type.
// Conversion (convert.cc), the reductions (compute/reduce_*) and the families
// that move or compare elements in their own type (compute/sort.cc, scan.cc,
// index.cc) read elements through it; the elementwise engine's host loops
// (compute/elementwise.cc) take their dtype from its Dispatch. Host code only:
// what nvcc compiles keeps its own types (compute/elementwise_math.h's
// math::Bool, device_copy.h).
#ifndef DLPACK_NODE_CORE_ELEMENT_H_
#define DLPACK_NODE_CORE_ELEMENT_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "convert.h"

namespace dlnode {
namespace element {

// Storage types: bool is a byte read as `!= 0`; the 16-bit floats are bits;
// complex64 and complex128 are a pair of floats or doubles, the real part
// first (DLPack's layout), whose value is a std::complex. The pair is a plain
// struct: with std::complex itself (libstdc++ holds a __complex__) GCC
// compiles the conversions' complex loops differently, 1.2 KB larger.
struct Bool {
  uint8_t v;
};
struct Half {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};
template <class T>
struct Complex {
  T re;
  T im;
};

template <class T>
constexpr int64_t kSizeOf = static_cast<int64_t>(sizeof(T));

template <class T>
struct Tag {
  using type = T;
};

// The bytes at p as T, and T's bytes at p (memcpy: elements need not be
// aligned, and the compiler folds it into a plain load or store).
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

// A storage element as the value ops compute with: bool as uint8 0 or 1, the
// 16-bit floats as float, complex as std::complex, the rest as themselves.
template <class T>
T Value(T v) {
  return v;
}
inline uint8_t Value(Bool v) { return v.v != 0 ? 1 : 0; }
inline float Value(Half v) { return HalfToFloat(v.bits); }
inline float Value(Bf16 v) { return Bfloat16ToFloat(v.bits); }
template <class T>
std::complex<T> Value(Complex<T> v) {
  std::complex<T> c;
  // One layout ([complex.numbers] p4). std::complex is trivially copyable;
  // -Wclass-memaccess objects to its default constructor without the void*.
  std::memcpy(static_cast<void*>(&c), &v, sizeof v);
  return c;
}

template <class T>
using ValueOf = decltype(Value(T{}));

template <class T>
ValueOf<T> Load(const char* p) {
  return Value(Raw<T>(p));
}

template <class T>
struct IsComplexT : std::false_type {};
template <class T>
struct IsComplexT<Complex<T>> : std::true_type {};
template <class T>
constexpr bool kIsComplex = IsComplexT<T>::value;
// float16, bfloat16, float32 and float64 (their values are floats).
template <class T>
constexpr bool kIsFloat = std::is_floating_point<ValueOf<T>>::value;

// A computed value stored as T, rounded once: float16 and bfloat16 from
// float to nearest even, bool as `!= 0`, complex as its std::complex's bytes,
// the rest by static_cast (in range: a conversion's saturating rules are
// convert.cc's, not a store's).
template <class T, class V>
void Store(char* p, V v) {
  if constexpr (std::is_same<T, Half>::value) {
    Put<uint16_t>(p, FloatToHalf(static_cast<float>(v)));
  } else if constexpr (std::is_same<T, Bf16>::value) {
    Put<uint16_t>(p, FloatToBfloat16(static_cast<float>(v)));
  } else if constexpr (std::is_same<T, Bool>::value) {
    Put<uint8_t>(p, v != 0 ? 1 : 0);
  } else if constexpr (kIsComplex<T>) {
    Put<ValueOf<T>>(p, static_cast<ValueOf<T>>(v));
  } else {
    Put<T>(p, static_cast<T>(v));
  }
}

// f(Tag<T>{}) for the storage type T of s, over all 15 dtypes; f returns void.
template <class F>
void Dispatch(Scalar s, F&& f) {
  switch (s) {
    case Scalar::kBool:
      return f(Tag<Bool>{});
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
      return f(Tag<Half>{});
    case Scalar::kBfloat16:
      return f(Tag<Bf16>{});
    case Scalar::kFloat32:
      return f(Tag<float>{});
    case Scalar::kFloat64:
      return f(Tag<double>{});
    case Scalar::kComplex64:
      return f(Tag<Complex<float>>{});
    case Scalar::kComplex128:
      return f(Tag<Complex<double>>{});
  }
}

// The real form, for the families that move or compare elements in their own
// type (sort, scan, index): f(Tag<T>{}) for the 13 real dtypes, false for the
// complex ones. bool is uint8 here, its byte kept as it is (a sorted or
// gathered byte stays the byte it was) and one instantiation serving both.
template <class F>
bool DispatchReal(Scalar s, F&& f) {
  switch (s) {
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
      f(Tag<Half>{});
      return true;
    case Scalar::kBfloat16:
      f(Tag<Bf16>{});
      return true;
    case Scalar::kFloat32:
      f(Tag<float>{});
      return true;
    case Scalar::kFloat64:
      f(Tag<double>{});
      return true;
    case Scalar::kComplex64:
    case Scalar::kComplex128:
      break;
  }
  return false;
}

}  // namespace element
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_ELEMENT_H_
