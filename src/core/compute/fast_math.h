// float32 exp, tanh and sigmoid written so that GCC and Clang vectorise a
// loop calling them at -O3 (no libm call, no branch: every case is a select),
// shared by the engine's contiguous float32 loops (elementwise.cc) and by
// softmax/logSoftmax (reduce.cc). float64 keeps libm.
//
// exp: Cody-Waite range reduction x = n ln2 + r, |r| <= ln2 / 2, with ln2
// split in two so that n * kLn2Hi is exact; e^r = 1 + r + r^2 P(r), P of
// degree 4 fitted for the least largest relative error
// (scripts/fit_exp_poly.py: 0.06 ulp before the evaluation's rounding) and
// evaluated by Estrin's scheme, which shortens the chain of dependent
// operations (a loop of these is bound by that chain's latency, not by its
// instruction count); 2^n built in the exponent bits, in two factors so that
// n = 128 (overflow to inf) and n < -126 (subnormal results, rounded once)
// need no branch. Within 2 ulp of the correctly rounded result over the
// float range (test/cpp/fast_math_test.cc sweeps it; a sweep of every 7th
// bit pattern found 1 ulp at most); x > 88.72 gives inf, x < -103.97 gives
// 0, -inf gives 0, NaN stays NaN.
//
// tanh: odd, computed on |x| and given x's sign back (so -0 stays -0):
// a polynomial below |x| = 0.625 (Cephes' tanhf), where 1 - 2 / (e^2x + 1)
// would cancel, and that formula above it; it reaches 1 exactly from about
// |x| = 9.01 on and stays there (e^2x = inf gives 1).
//
// sigmoid: 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below, so that e^
// never overflows (subnormal results down to x = -103.97); -inf gives 0, inf 1.
#ifndef DLPACK_NODE_CORE_COMPUTE_FAST_MATH_H_
#define DLPACK_NODE_CORE_COMPUTE_FAST_MATH_H_

#include <cstdint>
#include <cstring>

// On a function holding a hot loop over these: GCC compiles it twice, for
// AVX2 (8 floats a register) and for the baseline (SSE2), and picks one at
// load (an ifunc). Not FMA: both give the same bits, a * b + c rounding twice
// (the build passes -ffp-contract=off, so no target fuses one either).
// DLNODE_COMPUTE_CLONES adds AVX-512F (16 floats a register) to the loops
// bound by arithmetic, not memory (exp, sigmoid, tanh, softmax's passes),
// where it measured faster on an AVX-512 Xeon (bench/README.md "Compute",
// "another machine"). The memory-bound loops gain nothing from it, so they
// do without.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__ELF__)
#define DLNODE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#define DLNODE_COMPUTE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DLNODE_VECTOR_CLONES
#define DLNODE_COMPUTE_CLONES
#endif

// On a helper such a function calls: inlined there whatever its size, so it
// is compiled into each clone (GCC inlines a function without target
// attributes into one compiled for a wider target); left out of line, it
// would be compiled once, for the baseline.
#if defined(__GNUC__)
#define DLNODE_INLINE inline __attribute__((always_inline))
#else
#define DLNODE_INLINE inline
#endif

namespace dlnode {
namespace fast_math {

inline uint32_t Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

inline float FromBits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// cond ? a : b, as a bit mask: GCC keeps a ?: of two computed floats as a
// branch (either side may trap under -ftrapping-math), and a branch stops
// the loop from vectorising.
inline float Select(bool cond, float a, float b) {
  const uint32_t mask = 0U - static_cast<uint32_t>(cond);
  return FromBits((Bits(a) & mask) | (Bits(b) & ~mask));
}

}  // namespace fast_math

inline float FastExp(float x) {
  using fast_math::Bits;
  using fast_math::FromBits;
  constexpr float kHi = 89.0F;    // e^89 > FLT_MAX: inf
  constexpr float kLo = -104.0F;  // e^-104 < half the least subnormal: 0
  constexpr float kLog2e = 1.44269504088896341F;
  constexpr float kLn2Hi = 0.693359375F;  // 9 significant bits: n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4F;
  constexpr float kRound = 12582912.0F;  // 1.5 * 2^23: adding it rounds to an integer
  // Clamped by compares that keep NaN (false for NaN).
  x = fast_math::Select(x > kHi, kHi, x);
  x = fast_math::Select(x < kLo, kLo, x);
  // n = round(x / ln2), as a float and in the low bits of kRound + n.
  const float shifted = x * kLog2e + kRound;
  const float n = shifted - kRound;
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  const float r2 = r * r;
  // P(r) = (c0 + c1 r) + r^2 ((c2 + c3 r) + r^2 c4).
  const float low = 4.99999940e-1F + r * 1.66665211e-1F;
  const float high = 4.16683890e-2F + r * 8.36874545e-3F;
  const float p = low + r2 * (high + r2 * 1.38145394e-3F);
  const float e = p * r2 + r + 1.0F;
  // 2^n = 2^h * 2^(n - h), h = floor(n / 2): both factors are normal floats
  // for every n the clamp allows (-150..128), and the second product rounds
  // once. Their biased exponents from m = n + 254 (104..382): h + 127 is
  // m / 2 rounded down, and n - h + 127 the rest of m.
  const uint32_t m = Bits(shifted) - (Bits(kRound) - 254U);
  const uint32_t first = m >> 1;
  return (e * FromBits(first << 23)) * FromBits((m - first) << 23);
}

inline float FastTanh(float x) {
  using fast_math::Bits;
  using fast_math::FromBits;
  constexpr uint32_t kSign = 0x80000000U;
  const uint32_t sign = Bits(x) & kSign;
  const float a = FromBits(Bits(x) & ~kSign);
  const float z = a * a;
  float p = -5.70498872745E-3F;
  p = p * z + 2.06390887954E-2F;
  p = p * z - 5.37397155531E-2F;
  p = p * z + 1.33314422036E-1F;
  p = p * z - 3.33332819422E-1F;
  const float small = p * z * a + a;
  const float large = 1.0F - 2.0F / (FastExp(a + a) + 1.0F);
  const float t = fast_math::Select(a < 0.625F, small, large);  // NaN: large, which is NaN
  return FromBits(Bits(t) | sign);
}

inline float FastSigmoid(float x) {
  using fast_math::Bits;
  using fast_math::FromBits;
  const float e = FastExp(-FromBits(Bits(x) & 0x7FFFFFFFU));  // e^-|x|, never overflows
  return fast_math::Select(x < 0.0F, e, 1.0F) / (1.0F + e);
}

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_FAST_MATH_H_
