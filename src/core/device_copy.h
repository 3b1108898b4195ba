// What the CUDA copy and conversion kernels (cuda_kernels.cu) compute, written
// once for host and device: the copy plan (dimensions coalesced, offsets of
// element i in both views) and the dtype conversion rules. GoogleTest runs
// this same code on the host (test/cpp/device_copy_test.cc), so the kernels'
// index arithmetic and rounding are tested on machines without a GPU.
//
// Conversion rules (the same as the CPU conversion loop):
//   float -> integer: NaN -> 0; +-Inf and out-of-range values saturate to the
//     dtype's min/max; otherwise truncated toward zero.
//   integer -> integer: the low bits (two's complement wrap, as C and torch).
//   -> float16/bfloat16: the float32 value (one rounding from an integer or
//     a double, as `static_cast<float>`), then rounded to nearest, ties to
//     even; overflow -> +-Inf. Through float32 as torch does (c10::Half and
//     c10::BFloat16 are built from a float), so the CPU loop, torch and the
//     kernel give the same bits; test/cpp/device_copy_test.cc checks every
//     dtype pair against convert.cc.
//   same dtype: the bytes are copied (as the CPU loop does).
//   complex -> real: the real part; real -> complex: imaginary part 0.
//   -> bool: nonzero (either part, NaN included) -> true.
#ifndef DLPACK_NODE_CORE_DEVICE_COPY_H_
#define DLPACK_NODE_CORE_DEVICE_COPY_H_

#include <cstdint>
#include <cstring>

#include "host_device.h"
#include "layout.h"

namespace dlnode {

// Two strided views of one shape, strides in elements; dimensions of size 1
// dropped and neighbours contiguous in both views merged (count 0: empty).
struct CopyPlan {
  int ndim = 0;
  int64_t count = 0;  // elements
  int64_t shape[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
};

CopyPlan MakeCopyPlan(int ndim, const int64_t* shape, const int64_t* dst_strides,
                      const int64_t* src_strides);

// True when both views are one dense run in the same order (a memcpy).
inline bool IsDenseCopy(const CopyPlan& p) {
  return p.count == 0 || p.ndim == 0 ||
         (p.ndim == 1 && p.dst_strides[0] == 1 && p.src_strides[0] == 1);
}

// Element offsets (in elements, from element 0) of row-major element `i`.
DLNODE_HD void PlanOffsets(const CopyPlan& p, int64_t i, int64_t* dst, int64_t* src) {
  int64_t d = 0;
  int64_t s = 0;
  // Not unrolled: a 64-bit division a dim costs more than the loop.
  DLNODE_NO_UNROLL
  for (int k = p.ndim - 1; k >= 0; --k) {
    const int64_t n = p.shape[k];
    const int64_t q = i / n;
    const int64_t r = i - q * n;
    d += r * p.dst_strides[k];
    s += r * p.src_strides[k];
    i = q;
  }
  *dst = d;
  *src = s;
}

// Division by a fixed divisor as a multiply and a shift (the method of
// PyTorch's IntDivider, after Granlund and Montgomery): the element walk
// divides by each dimension once per element, and 64-bit division is slow on
// GPUs. Exact for divisors in [1, 2^31) and dividends below 2^31.
struct FastDivider {
  uint32_t divisor;
  uint32_t magic;
  uint32_t shift;
};

// Inline: the kernels' launchers (cuda_ops.cu, in a library of their own
// under CMake) call it too, and a static library may not reach back into
// dlpack_core for it.
inline FastDivider MakeDivider(uint32_t divisor) {
  uint32_t shift = 0;
  while (shift < 32 && (UINT64_C(1) << shift) < divisor) ++shift;
  const uint64_t magic = ((UINT64_C(1) << 32) * ((UINT64_C(1) << shift) - divisor)) / divisor + 1;
  return {divisor, static_cast<uint32_t>(magic), shift};
}

DLNODE_HD uint32_t Divide(const FastDivider& f, uint32_t n) {
#if defined(__CUDA_ARCH__)
  const uint32_t high = __umulhi(n, f.magic);
#else
  const auto high = static_cast<uint32_t>((static_cast<uint64_t>(n) * f.magic) >> 32);
#endif
  return (high + n) >> f.shift;
}

// The plan again, for plans of fewer than 2^31 elements: 32-bit indices and
// FastDividers (offsets stay 64-bit).
struct CopyPlan32 {
  int ndim = 0;
  uint32_t count = 0;
  FastDivider shape[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
};

// False when the plan has 2^31 elements or more (use CopyPlan then). Inline:
// cuda_kernels.cu's launcher calls it, and under CMake the kernels' static
// library cannot reach back into dlpack_core (as MakeDivider).
inline bool MakeCopyPlan32(const CopyPlan& plan, CopyPlan32* out) {
  constexpr int64_t kLimit = INT64_C(1) << 31;
  if (plan.count >= kLimit) return false;
  out->ndim = plan.ndim;
  out->count = static_cast<uint32_t>(plan.count);
  for (int k = 0; k < plan.ndim; ++k) {
    out->shape[k] = MakeDivider(static_cast<uint32_t>(plan.shape[k]));
    out->dst_strides[k] = plan.dst_strides[k];
    out->src_strides[k] = plan.src_strides[k];
  }
  return true;
}

DLNODE_HD void PlanOffsets(const CopyPlan32& p, uint32_t i, int64_t* dst, int64_t* src) {
  int64_t d = 0;
  int64_t s = 0;
  // Not unrolled: the tiled copy kernel inlines the walk kPer times, and
  // unrolled over kMaxDims each copy took kilobytes per architecture.
  DLNODE_NO_UNROLL
  for (int k = p.ndim - 1; k >= 0; --k) {
    const uint32_t q = Divide(p.shape[k], i);
    const auto r = static_cast<int64_t>(i - q * p.shape[k].divisor);
    d += r * p.dst_strides[k];
    s += r * p.src_strides[k];
    i = q;
  }
  *dst = d;
  *src = s;
}

// A DLPack (code, bits) pair this library represents (lib/dtypes.js).
struct ElementType {
  uint8_t code;
  uint8_t bits;
};

bool IsConvertible(ElementType t);

inline bool SameType(ElementType a, ElementType b) { return a.code == b.code && a.bits == b.bits; }

// One element, widened: integers exactly, floats as double, complex as two.
struct Wide {
  enum Kind : uint8_t { kSigned = 0, kUnsigned = 1, kReal = 2, kComplex = 3 };
  Kind kind;
  int64_t integer;  // kSigned, kUnsigned (the bits of a uint64)
  double re;        // kReal, kComplex
  double im;        // kComplex
};

// IEEE binary formats narrower than float: float16 (5, 10), bfloat16 (8, 7).
// Round to nearest, ties to even, from any double; NaN stays a quiet NaN of
// the same sign. StoreElement hands it float32 values only (see above).
DLNODE_HD uint16_t RoundToSmallFloat(double x, int exp_bits, int man_bits) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  const uint16_t sign = static_cast<uint16_t>((b >> 63) << (exp_bits + man_bits));
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t m = b & ((UINT64_C(1) << 52) - 1);
  const int exp_all = (1 << exp_bits) - 1;
  const int bias = (1 << (exp_bits - 1)) - 1;
  if (e == 0x7ff) {
    const int quiet = m == 0 ? 0 : 1 << (man_bits - 1);
    return static_cast<uint16_t>(sign | (exp_all << man_bits) | quiet);
  }
  if (e == 0) return sign;  // zero, or a double subnormal: far below any of these formats
  const uint64_t sig = (UINT64_C(1) << 52) | m;
  int target_e = e - 1023 + bias;
  int shift = 52 - man_bits;
  if (target_e < 1) {  // a subnormal in the target format
    shift += 1 - target_e;
    target_e = 0;
    if (shift >= 54) return sign;  // below half the smallest subnormal: rounds to 0
  }
  uint64_t kept = sig >> shift;
  const uint64_t rest = sig & ((UINT64_C(1) << shift) - 1);
  const uint64_t half = UINT64_C(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
  if (target_e == 0) {
    // A carry out of the subnormal mantissa reads as exponent 1: still exact.
    return static_cast<uint16_t>(sign | kept);
  }
  if ((kept >> (man_bits + 1)) != 0) {  // rounding carried into a new binade
    kept >>= 1;
    ++target_e;
  }
  if (target_e >= exp_all) return static_cast<uint16_t>(sign | (exp_all << man_bits));
  const uint64_t mantissa = kept & ((UINT64_C(1) << man_bits) - 1);
  return static_cast<uint16_t>(sign | (target_e << man_bits) | mantissa);
}

DLNODE_HD double SmallFloatValue(uint16_t bits, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int exp_all = (1 << exp_bits) - 1;
  const uint64_t sign = static_cast<uint64_t>(bits >> (exp_bits + man_bits)) << 63;
  const int e = (bits >> man_bits) & exp_all;
  uint64_t m = bits & ((1u << man_bits) - 1);
  uint64_t out;
  if (e == exp_all) {
    out = sign | (UINT64_C(0x7ff) << 52) | (m << (52 - man_bits));
  } else if (e == 0) {
    if (m == 0) {
      out = sign;
    } else {  // subnormal: normalise (exact in double)
      int shift = 0;
      while ((m & (UINT64_C(1) << man_bits)) == 0) {
        m <<= 1;
        ++shift;
      }
      m &= (UINT64_C(1) << man_bits) - 1;
      const int64_t de = int64_t{1} - bias - shift + 1023;
      out = sign | (static_cast<uint64_t>(de) << 52) | (m << (52 - man_bits));
    }
  } else {
    out = sign | (static_cast<uint64_t>(e - bias + 1023) << 52) | (m << (52 - man_bits));
  }
  double x;
  memcpy(&x, &out, sizeof x);
  return x;
}

DLNODE_HD Wide LoadElement(const char* p, ElementType t) {
  Wide w{Wide::kSigned, 0, 0.0, 0.0};
  switch (t.code) {
    case kDLBool:
      w.integer = *reinterpret_cast<const uint8_t*>(p) != 0 ? 1 : 0;
      break;
    case kDLInt:
      switch (t.bits) {
        case 8:
          // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8 is signed, as the dtype says
          w.integer = *reinterpret_cast<const int8_t*>(p);
          break;
        case 16:
          w.integer = *reinterpret_cast<const int16_t*>(p);
          break;
        case 32:
          w.integer = *reinterpret_cast<const int32_t*>(p);
          break;
        default:
          w.integer = *reinterpret_cast<const int64_t*>(p);
          break;
      }
      break;
    case kDLUInt:
      w.kind = Wide::kUnsigned;
      switch (t.bits) {
        case 8:
          w.integer = *reinterpret_cast<const uint8_t*>(p);
          break;
        case 16:
          w.integer = *reinterpret_cast<const uint16_t*>(p);
          break;
        case 32:
          w.integer = *reinterpret_cast<const uint32_t*>(p);
          break;
        default:
          w.integer = static_cast<int64_t>(*reinterpret_cast<const uint64_t*>(p));
          break;
      }
      break;
    case kDLFloat:
      w.kind = Wide::kReal;
      if (t.bits == 16)
        w.re = SmallFloatValue(*reinterpret_cast<const uint16_t*>(p), 5, 10);
      else if (t.bits == 32)
        w.re = *reinterpret_cast<const float*>(p);
      else
        w.re = *reinterpret_cast<const double*>(p);
      break;
    case kDLBfloat:
      w.kind = Wide::kReal;
      w.re = SmallFloatValue(*reinterpret_cast<const uint16_t*>(p), 8, 7);
      break;
    default:  // kDLComplex
      w.kind = Wide::kComplex;
      if (t.bits == 64) {
        w.re = reinterpret_cast<const float*>(p)[0];
        w.im = reinterpret_cast<const float*>(p)[1];
      } else {
        w.re = reinterpret_cast<const double*>(p)[0];
        w.im = reinterpret_cast<const double*>(p)[1];
      }
      break;
  }
  return w;
}

// The real part as a double (integers rounded to nearest).
DLNODE_HD double RealOf(const Wide& w) {
  if (w.kind == Wide::kSigned) return static_cast<double>(w.integer);
  if (w.kind == Wide::kUnsigned) return static_cast<double>(static_cast<uint64_t>(w.integer));
  return w.re;
}

// The value as a float32: integers rounded once, straight to float (not
// through double); reals and the real part of complex rounded from double.
DLNODE_HD float FloatOf(const Wide& w) {
  if (w.kind == Wide::kSigned) return static_cast<float>(w.integer);
  if (w.kind == Wide::kUnsigned) return static_cast<float>(static_cast<uint64_t>(w.integer));
  return static_cast<float>(w.re);
}

// The bits of an integer of `bits` width (low bits of the result).
DLNODE_HD uint64_t IntegerBits(const Wide& w, bool is_signed, int bits) {
  if (w.kind == Wide::kSigned || w.kind == Wide::kUnsigned) return static_cast<uint64_t>(w.integer);
  const double x = w.re;
  if (x != x) return 0;
  if (is_signed) {
    const uint64_t max = (UINT64_C(1) << (bits - 1)) - 1;
    const double limit = static_cast<double>(UINT64_C(1) << (bits - 1));  // 2^(bits-1), exact
    if (x >= limit) return max;
    if (x < -limit) return ~max;  // the minimum, as two's complement bits
    return static_cast<uint64_t>(static_cast<int64_t>(x));
  }
  const double limit =
      bits == 64 ? 18446744073709551616.0 : static_cast<double>(UINT64_C(1) << bits);
  if (x >= limit) return bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
  if (!(x > -1.0)) return 0;
  return static_cast<uint64_t>(x);  // x in (-1, limit): truncated toward zero
}

DLNODE_HD void StoreElement(char* p, ElementType t, const Wide& w) {
  switch (t.code) {
    case kDLBool: {
      bool nonzero;
      if (w.kind == Wide::kSigned || w.kind == Wide::kUnsigned)
        nonzero = w.integer != 0;
      else
        nonzero = !(w.re == 0.0) || (w.kind == Wide::kComplex && !(w.im == 0.0));
      *reinterpret_cast<uint8_t*>(p) = nonzero ? 1 : 0;
      break;
    }
    case kDLInt:
    case kDLUInt: {
      const uint64_t v = IntegerBits(w, t.code == kDLInt, t.bits);
      switch (t.bits) {
        case 8:
          *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v);
          break;
        case 16:
          *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(v);
          break;
        case 32:
          *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(v);
          break;
        default:
          *reinterpret_cast<uint64_t*>(p) = v;
          break;
      }
      break;
    }
    case kDLFloat:
      if (t.bits == 16) {
        *reinterpret_cast<uint16_t*>(p) = RoundToSmallFloat(FloatOf(w), 5, 10);
      } else if (t.bits == 32) {
        *reinterpret_cast<float*>(p) = FloatOf(w);
      } else {
        *reinterpret_cast<double*>(p) = RealOf(w);
      }
      break;
    case kDLBfloat:
      *reinterpret_cast<uint16_t*>(p) = RoundToSmallFloat(FloatOf(w), 8, 7);
      break;
    default: {  // kDLComplex
      const double im = w.kind == Wide::kComplex ? w.im : 0.0;
      if (t.bits == 64) {
        float* f = reinterpret_cast<float*>(p);
        f[0] = FloatOf(w);
        f[1] = static_cast<float>(im);
      } else {
        reinterpret_cast<double*>(p)[0] = RealOf(w);
        reinterpret_cast<double*>(p)[1] = im;
      }
      break;
    }
  }
}

// Whether every element of a view of `t` whose element 0 is at `p` can be
// read and written with typed loads and stores: element 0 aligned to the
// element's scalar (complex to one part's size). Strides are whole elements,
// so element 0 decides for all. DLPack asks producers for aligned data but
// nothing enforces it; a misaligned typed access on a GPU is
// cudaErrorMisalignedAddress, which is sticky (every later CUDA call in the
// process fails).
inline bool ElementsAligned(const void* p, ElementType t) {
  const uintptr_t align = t.code == kDLComplex ? t.bits / 16 : (t.bits + 7) / 8;
  return reinterpret_cast<uintptr_t>(p) % align == 0;
}

// One element converted. `aligned`: both sides pass ElementsAligned; when
// not, the element moves through aligned locals byte by byte.
DLNODE_HD void ConvertElement(char* dst, ElementType dst_type, const char* src,
                              ElementType src_type, bool aligned) {
  if (aligned) {
    StoreElement(dst, dst_type, LoadElement(src, src_type));
    return;
  }
  alignas(16) char in[16];
  alignas(16) char out[16];
  for (int b = 0; b < src_type.bits / 8; ++b) in[b] = src[b];
  StoreElement(out, dst_type, LoadElement(in, src_type));
  for (int b = 0; b < dst_type.bits / 8; ++b) dst[b] = out[b];
}

// The host twin of DeviceConvert: converts every element of the plan (for
// tests, and for any caller that wants the rules on host memory); the same
// dtype on both sides is a copy of the bytes, and misaligned views take the
// byte path, as there.
void ConvertStrided(const CopyPlan& plan, ElementType dst_type, char* dst, ElementType src_type,
                    const char* src);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_DEVICE_COPY_H_
