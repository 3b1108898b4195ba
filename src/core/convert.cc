#include "convert.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "element.h"
#include "layout.h"
#include "scratch.h"
#include "strided_loop.h"

namespace dlnode {
namespace {

// The storage types and their values (element.h).
using element::Bf16;
using element::Bool;
using element::Complex;
using element::Half;
using element::kIsComplex;

// Float -> integer, truncating; NaN -> 0; saturating outside the range.
template <class D>
D SatTrunc(double v) {
  if (std::isnan(v)) return 0;
  // 2^digits is the first value above max (exact in a double for every D);
  // min - 1 the first below min (for int64 it rounds to -2^63, which is min).
  const double above = std::ldexp(1.0, std::numeric_limits<D>::digits);
  const double below = static_cast<double>(std::numeric_limits<D>::min()) - 1.0;
  if (v >= above) return std::numeric_limits<D>::max();
  if (v <= below) return std::numeric_limits<D>::min();
  return static_cast<D>(v);  // in range after truncation: defined
}

template <class D, class S>
D Convert(S raw) {
  if constexpr (kIsComplex<S>) {
    if constexpr (kIsComplex<D>) {
      using T = decltype(D{}.re);
      return D{static_cast<T>(raw.re), static_cast<T>(raw.im)};
    } else if constexpr (std::is_same<D, Bool>::value) {
      return Bool{static_cast<uint8_t>(raw.re != 0 || raw.im != 0)};
    } else {
      return Convert<D>(raw.re);  // the real part (torch)
    }
  } else {
    const auto v = element::Value(raw);
    using V = decltype(v);
    if constexpr (std::is_same<D, Bool>::value) {
      return Bool{static_cast<uint8_t>(v != 0)};
    } else if constexpr (kIsComplex<D>) {
      using T = decltype(D{}.re);
      return D{Convert<T>(raw), T(0)};
    } else if constexpr (std::is_same<D, Half>::value) {
      return Half{FloatToHalf(static_cast<float>(v))};
    } else if constexpr (std::is_same<D, Bf16>::value) {
      return Bf16{FloatToBfloat16(static_cast<float>(v))};
    } else if constexpr (std::is_integral<D>::value && std::is_floating_point<V>::value) {
      return SatTrunc<D>(static_cast<double>(v));
    } else {
      // integer -> integer wraps (two's complement), anything -> float rounds.
      return static_cast<D>(v);
    }
  }
}

// One run of the innermost dimension (strided_loop.h): p[0] the destination,
// p[1] the source, byte strides s.
template <class D, class S>
void Loop(char** p, const int64_t* s, int64_t n) {
  char* d = p[0];
  const char* src = p[1];
  if (s[0] == element::kSizeOf<D> && s[1] == element::kSizeOf<S>) {
    // Dense: a plain indexed loop the compiler vectorises.
    for (int64_t k = 0; k < n; ++k) {
      element::Put<D>(d + k * element::kSizeOf<D>,
                      Convert<D>(element::Raw<S>(src + k * element::kSizeOf<S>)));
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k, d += s[0], src += s[1]) {
    element::Put<D>(d, Convert<D>(element::Raw<S>(src)));
  }
}

using LoopFn = void (*)(char**, const int64_t*, int64_t);

// The loop converting s elements into d ones (one of 15 x 15).
LoopFn LoopFor(Scalar d, Scalar s) {
  LoopFn loop = nullptr;
  element::Dispatch(d, [&](auto to) {
    element::Dispatch(s, [&](auto from) {
      loop = Loop<typename decltype(to)::type, typename decltype(from)::type>;
    });
  });
  return loop;
}

uint32_t FloatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

float BitsFloat(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace

bool ScalarOf(DtypeEntry e, Scalar* out) {
  switch (e.code) {
    case kDLBool:
      if (e.bits != 8) return false;
      *out = Scalar::kBool;
      return true;
    case kDLInt:
    case kDLUInt: {
      const bool u = e.code == kDLUInt;
      switch (e.bits) {
        case 8:
          *out = u ? Scalar::kUint8 : Scalar::kInt8;
          return true;
        case 16:
          *out = u ? Scalar::kUint16 : Scalar::kInt16;
          return true;
        case 32:
          *out = u ? Scalar::kUint32 : Scalar::kInt32;
          return true;
        case 64:
          *out = u ? Scalar::kUint64 : Scalar::kInt64;
          return true;
        default:
          return false;
      }
    }
    case kDLFloat:
      switch (e.bits) {
        case 16:
          *out = Scalar::kFloat16;
          return true;
        case 32:
          *out = Scalar::kFloat32;
          return true;
        case 64:
          *out = Scalar::kFloat64;
          return true;
        default:
          return false;
      }
    case kDLBfloat:
      if (e.bits != 16) return false;
      *out = Scalar::kBfloat16;
      return true;
    case kDLComplex:
      if (e.bits == 64)
        *out = Scalar::kComplex64;
      else if (e.bits == 128)
        *out = Scalar::kComplex128;
      else
        return false;
      return true;
    default:
      return false;
  }
}

uint64_t ScalarSize(Scalar s) {
  static constexpr uint64_t kSizes[kScalarCount] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return kSizes[static_cast<int>(s)];
}

uint16_t FloatToHalf(float value) {
  const uint32_t x = FloatBits(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exponent = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to infinity
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
    mantissa |= 0x800000u;
    const int shift = 14 - e;
    const uint32_t half = 1u << (shift - 1);
    uint32_t bits = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    if (rest > half || (rest == half && (bits & 1u))) ++bits;
    return static_cast<uint16_t>(sign | bits);
  }
  uint32_t bits = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (bits & 1u)))
    ++bits;  // a carry into the exponent is right
  return static_cast<uint16_t>(sign | bits);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return BitsFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal (or zero): mantissa * 2^-24, exact in a float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t FloatToBfloat16(float value) {
  const uint32_t x = FloatBits(value);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu))
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float Bfloat16ToFloat(uint16_t bits) { return BitsFloat(static_cast<uint32_t>(bits) << 16); }

void ConvertStrided(int ndim, const int64_t* shape, Scalar dst_type, StridedView dst,
                    ByteRange dst_range, Scalar src_type, StridedView src, ByteRange src_range) {
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) return;
  }
  Scratch<char> staged;
  if (dst_range.lo < src_range.hi && src_range.lo < dst_range.hi) {
    // Overlapping bytes: read every source element before any is overwritten
    // (staged before the copy is split across threads: scratch.h).
    staged = Scratch<char>(src_range.hi - src_range.lo);
    std::memcpy(staged.data(), src_range.lo, static_cast<size_t>(staged.size()));
    src.first = staged.data() + (src.first - src_range.lo);
  }
  if (dst_type == src_type) {
    StridedCopy(ndim, shape, ScalarSize(dst_type), dst, src);
    return;
  }
  strided::Plan plan = strided::Pair(ndim, shape, dst.first, dst.strides, ScalarSize(dst_type),
                                     src.first, src.strides, ScalarSize(src_type));
  const LoopFn loop = LoopFor(dst_type, src_type);
  strided::Run(&plan, [loop](char** p, const int64_t* s, int64_t n) { loop(p, s, n); });
}

}  // namespace dlnode
