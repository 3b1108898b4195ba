// The code the CUDA copy and conversion kernels run (device_copy.h), run on
// the host: copy plans against StridedCopy, float16/bfloat16 rounding
// exhaustively, and the conversion rules at their edges. A GPU runs the same
// functions; only the launch itself goes untested here.
#include "device_copy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "convert.h"
#include "dtype.h"
#include "strided_copy.h"

namespace {

using dlnode::ConvertStrided;
using dlnode::CopyPlan;
using dlnode::ElementType;
using dlnode::MakeCopyPlan;
using dlnode::RoundToSmallFloat;
using dlnode::SmallFloatValue;

constexpr ElementType kBool{kDLBool, 8};
constexpr ElementType kI8{kDLInt, 8};
constexpr ElementType kI32{kDLInt, 32};
constexpr ElementType kI64{kDLInt, 64};
constexpr ElementType kU8{kDLUInt, 8};
constexpr ElementType kU64{kDLUInt, 64};
constexpr ElementType kF16{kDLFloat, 16};
constexpr ElementType kBF16{kDLBfloat, 16};
constexpr ElementType kF32{kDLFloat, 32};
constexpr ElementType kF64{kDLFloat, 64};
constexpr ElementType kC64{kDLComplex, 64};
constexpr ElementType kC128{kDLComplex, 128};

// One element converted from `from` to `to` through the kernels' functions.
template <typename To, typename From>
To Convert(const From& value, ElementType from, ElementType to) {
  // Through 16-byte buffers, as large as any element, so no read or write
  // the compiler can see leaves its object.
  alignas(16) char in[16] = {};
  alignas(16) char out[16] = {};
  static_assert(sizeof(From) <= sizeof in && sizeof(To) <= sizeof out,
                "an element is at most 16 bytes");
  memcpy(in, &value, sizeof(From));
  dlnode::StoreElement(out, to, dlnode::LoadElement(in, from));
  To result;
  memcpy(&result, out, sizeof(To));
  return result;
}

TEST(CopyPlan, CoalescesSizeOneAndContiguousDimensions) {
  const int64_t shape[] = {2, 1, 3, 4};
  const int64_t dense[] = {12, 12, 4, 1};
  CopyPlan p = MakeCopyPlan(4, shape, dense, dense);
  EXPECT_EQ(p.count, 24);
  EXPECT_EQ(p.ndim, 1);
  EXPECT_TRUE(dlnode::IsDenseCopy(p));
  const int64_t transposed[] = {1, 24, 2, 6};  // dims 2,3 swapped in memory
  p = MakeCopyPlan(4, shape, dense, transposed);
  EXPECT_EQ(p.ndim, 3);
  EXPECT_FALSE(dlnode::IsDenseCopy(p));
  const int64_t empty_shape[] = {3, 0};
  EXPECT_EQ(MakeCopyPlan(2, empty_shape, dense, dense).count, 0);
  EXPECT_EQ(MakeCopyPlan(0, nullptr, nullptr, nullptr).count, 1);  // a scalar
}

// The kernels' element walk (PlanOffsets) must reach what the host
// StridedCopy reaches, for random shapes and strides (negative and zero
// source strides included), with guard bytes around the destination.
TEST(CopyPlan, PlanOffsetsMatchStridedCopy) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const int ndim = static_cast<int>(rng() % 5);
    int64_t shape[8];
    int64_t count = 1;
    for (int i = 0; i < ndim; ++i) count *= (shape[i] = 1 + static_cast<int64_t>(rng() % 4));
    // Destination: a permutation of a dense layout. Source: random strides.
    int64_t dst_strides[8];
    int64_t src_strides[8];
    std::vector<int> order(static_cast<size_t>(ndim));
    for (int i = 0; i < ndim; ++i) order[static_cast<size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    int64_t step = 1;
    for (int k = ndim - 1; k >= 0; --k) {
      dst_strides[order[static_cast<size_t>(k)]] = step;
      step *= shape[order[static_cast<size_t>(k)]];
    }
    int64_t src_low = 0;
    int64_t src_high = 0;
    for (int i = 0; i < ndim; ++i) {
      src_strides[i] = static_cast<int64_t>(rng() % 13) - 6;
      if (src_strides[i] < 0)
        src_low += src_strides[i] * (shape[i] - 1);
      else
        src_high += src_strides[i] * (shape[i] - 1);
    }
    std::vector<int32_t> src(static_cast<size_t>(src_high - src_low + 1));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int32_t>(i * 7 + 1);
    const int32_t* src0 = src.data() - src_low;
    std::vector<int32_t> expected(static_cast<size_t>(count) + 2, -1);
    std::vector<int32_t> actual(static_cast<size_t>(count) + 2, -1);
    dlnode::StridedCopy(ndim, shape, 4, {reinterpret_cast<char*>(expected.data() + 1), dst_strides},
                        {reinterpret_cast<char*>(const_cast<int32_t*>(src0)), src_strides});
    const CopyPlan plan = MakeCopyPlan(ndim, shape, dst_strides, src_strides);
    ConvertStrided(plan, kI32, reinterpret_cast<char*>(actual.data() + 1), kI32,
                   reinterpret_cast<const char*>(src0));
    ASSERT_EQ(actual, expected) << "round " << round;
  }
}

TEST(FastDivider, MatchesDivisionAtTheEdgesAndAtRandom) {
  const uint32_t limit = (1u << 31) - 1;
  std::vector<uint32_t> divisors = {1,    2,     3,     5,     7,      512,      513,
                                    1000, 65535, 65536, 65537, 131072, 1u << 30, limit};
  std::vector<uint32_t> dividends = {0,     1,     2,        511,       512,  513,
                                     65535, 65536, 1u << 30, limit - 1, limit};
  std::mt19937 rng(11);
  for (int i = 0; i < 200; ++i) {
    divisors.push_back(1 + rng() % limit);
    divisors.push_back(1 + rng() % 4096);
  }
  for (uint32_t d : divisors) {
    const dlnode::FastDivider f = dlnode::MakeDivider(d);
    for (uint32_t n : dividends) ASSERT_EQ(dlnode::Divide(f, n), n / d) << n << " / " << d;
    for (int k = 0; k < 2000; ++k) {
      const uint32_t n = rng() % (limit + 1u);
      ASSERT_EQ(dlnode::Divide(f, n), n / d) << n << " / " << d;
      const uint32_t near = (n / d) * d;  // multiples and their neighbours
      ASSERT_EQ(dlnode::Divide(f, near), near / d) << near << " / " << d;
      if (near > 0) {
        ASSERT_EQ(dlnode::Divide(f, near - 1), (near - 1) / d) << near - 1 << " / " << d;
      }
    }
  }
}

// The 32-bit walk the kernels use for plans below 2^31 elements reaches the
// same offsets as the 64-bit one; larger plans keep the 64-bit walk.
TEST(CopyPlan, ThirtyTwoBitWalkMatchesTheSixtyFourBitOne) {
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    const int ndim = 1 + static_cast<int>(rng() % 6);
    int64_t shape[8];
    int64_t ds[8];
    int64_t ss[8];
    for (int i = 0; i < ndim; ++i) {
      shape[i] = 1 + static_cast<int64_t>(rng() % 9);
      ds[i] = static_cast<int64_t>(rng() % 2000) - 1000;
      ss[i] = static_cast<int64_t>(rng() % 2000) - 1000;
    }
    const CopyPlan wide = MakeCopyPlan(ndim, shape, ds, ss);
    dlnode::CopyPlan32 narrow;
    ASSERT_TRUE(dlnode::MakeCopyPlan32(wide, &narrow));
    for (int64_t i = 0; i < wide.count; ++i) {
      int64_t d64, s64, d32, s32;
      dlnode::PlanOffsets(wide, i, &d64, &s64);
      dlnode::PlanOffsets(narrow, static_cast<uint32_t>(i), &d32, &s32);
      ASSERT_EQ(d32, d64);
      ASSERT_EQ(s32, s64);
    }
  }
  const int64_t huge_shape[] = {INT64_C(1) << 16, INT64_C(1) << 15};  // 2^31 elements
  const int64_t huge_dst[] = {INT64_C(1) << 15, 1};
  const int64_t huge_src[] = {1, INT64_C(1) << 16};
  dlnode::CopyPlan32 narrow;
  EXPECT_FALSE(dlnode::MakeCopyPlan32(MakeCopyPlan(2, huge_shape, huge_dst, huge_src), &narrow));
  int64_t d, s;
  dlnode::PlanOffsets(MakeCopyPlan(2, huge_shape, huge_dst, huge_src), (INT64_C(1) << 31) - 1, &d,
                      &s);
  EXPECT_EQ(d, (INT64_C(1) << 31) - 1);
  EXPECT_EQ(s, ((INT64_C(1) << 16) - 1) + ((INT64_C(1) << 15) - 1) * (INT64_C(1) << 16));
}

double F16(uint16_t bits) { return SmallFloatValue(bits, 5, 10); }

TEST(SmallFloats, Float16KnownValues) {
  EXPECT_EQ(RoundToSmallFloat(1.0, 5, 10), 0x3C00);
  EXPECT_EQ(RoundToSmallFloat(-2.0, 5, 10), 0xC000);
  EXPECT_EQ(RoundToSmallFloat(0.1, 5, 10), 0x2E66);
  EXPECT_EQ(RoundToSmallFloat(65504.0, 5, 10), 0x7BFF);
  EXPECT_EQ(RoundToSmallFloat(65519.99, 5, 10), 0x7BFF);
  EXPECT_EQ(RoundToSmallFloat(65520.0, 5, 10), 0x7C00);  // the tie above the largest rounds to Inf
  EXPECT_EQ(RoundToSmallFloat(1e300, 5, 10), 0x7C00);
  EXPECT_EQ(RoundToSmallFloat(-INFINITY, 5, 10), 0xFC00);
  EXPECT_EQ(RoundToSmallFloat(std::ldexp(1.0, -24), 5, 10), 0x0001);  // smallest subnormal
  EXPECT_EQ(RoundToSmallFloat(std::ldexp(1.0, -25), 5, 10), 0x0000);  // its half: tie to even 0
  EXPECT_EQ(RoundToSmallFloat(std::ldexp(3.0, -26), 5, 10), 0x0001);
  EXPECT_EQ(RoundToSmallFloat(std::ldexp(1023.5, -24), 5, 10),
            0x0400);  // subnormal carries to normal
  EXPECT_EQ(RoundToSmallFloat(1.0 + std::ldexp(1.0, -11), 5, 10), 0x3C00);  // tie: even
  EXPECT_EQ(RoundToSmallFloat(1.0 + std::ldexp(3.0, -11), 5, 10), 0x3C02);  // tie: even (up)
  EXPECT_EQ(RoundToSmallFloat(-0.0, 5, 10), 0x8000);
  EXPECT_EQ(RoundToSmallFloat(std::numeric_limits<double>::denorm_min(), 5, 10), 0x0000);
  EXPECT_EQ(RoundToSmallFloat(NAN, 5, 10) & 0x7E00, 0x7E00);
  EXPECT_TRUE(std::isnan(F16(0x7E00)));
  EXPECT_EQ(F16(0x7C00), INFINITY);
  EXPECT_EQ(F16(0x0001), std::ldexp(1.0, -24));
}

TEST(SmallFloats, BFloat16KnownValues) {
  EXPECT_EQ(RoundToSmallFloat(1.0, 8, 7), 0x3F80);
  EXPECT_EQ(RoundToSmallFloat(3.140625, 8, 7), 0x4049);
  EXPECT_EQ(RoundToSmallFloat(1.0 + std::ldexp(1.0, -8), 8, 7), 0x3F80);  // tie: even
  EXPECT_EQ(RoundToSmallFloat(1.0 + std::ldexp(3.0, -8), 8, 7), 0x3F82);
  EXPECT_EQ(RoundToSmallFloat(3.4e38, 8, 7),
            0x7F80);  // above bfloat16's largest (3.39e38) after rounding
  EXPECT_EQ(RoundToSmallFloat(std::ldexp(1.0, -133), 8, 7), 0x0001);  // smallest subnormal
  EXPECT_EQ(SmallFloatValue(0x0001, 8, 7), std::ldexp(1.0, -133));
  EXPECT_EQ(SmallFloatValue(0xC049, 8, 7), -3.140625);
}

// Every finite value round-trips, and every midpoint between neighbours
// rounds to the one with an even mantissa.
void CheckExhaustive(int exp_bits, int man_bits) {
  const int total = 1 + exp_bits + man_bits;
  const uint32_t inf = ((1u << exp_bits) - 1) << man_bits;
  for (uint32_t k = 0; k < inf; ++k) {
    const auto bits = static_cast<uint16_t>(k);
    const double v = SmallFloatValue(bits, exp_bits, man_bits);
    ASSERT_EQ(RoundToSmallFloat(v, exp_bits, man_bits), bits) << k;
    const auto negative = static_cast<uint16_t>(bits | (1u << (total - 1)));
    ASSERT_EQ(RoundToSmallFloat(-v, exp_bits, man_bits), negative) << k;
    // Above the largest finite value, the next step of its binade (ties and
    // beyond round to Inf, as IEEE 754 says).
    const double next =
        k + 1 < inf ? SmallFloatValue(static_cast<uint16_t>(k + 1), exp_bits, man_bits)
                    : 2 * v - SmallFloatValue(static_cast<uint16_t>(k - 1), exp_bits, man_bits);
    const double mid = v + (next - v) / 2;  // exact in double
    const uint16_t even = (k % 2 == 0) ? bits : static_cast<uint16_t>(k + 1);
    ASSERT_EQ(RoundToSmallFloat(mid, exp_bits, man_bits), even) << k;
    ASSERT_EQ(RoundToSmallFloat(std::nextafter(mid, 0.0), exp_bits, man_bits), bits) << k;
    ASSERT_EQ(RoundToSmallFloat(std::nextafter(mid, INFINITY), exp_bits, man_bits), k + 1) << k;
  }
}

TEST(SmallFloats, Float16Exhaustive) { CheckExhaustive(5, 10); }
TEST(SmallFloats, BFloat16Exhaustive) { CheckExhaustive(8, 7); }

TEST(Convert, FloatToIntegerNaNIsZeroAndOutOfRangeSaturates) {
  const float in[] = {NAN, INFINITY, -INFINITY, 1e10f, -1e10f, 2.7f, -2.7f, 127.9f, -128.9f};
  const int8_t as_i8[] = {0, 127, -128, 127, -128, 2, -2, 127, -128};
  const uint8_t as_u8[] = {0, 255, 0, 255, 0, 2, 0, 127, 0};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; ++i) {
    EXPECT_EQ((Convert<int8_t>(in[i], kF32, kI8)), as_i8[i]) << in[i];
    EXPECT_EQ((Convert<uint8_t>(in[i], kF32, kU8)), as_u8[i]) << in[i];
  }
  EXPECT_EQ((Convert<int64_t>(1e19, kF64, kI64)), INT64_MAX);
  EXPECT_EQ((Convert<int64_t>(-1e19, kF64, kI64)), INT64_MIN);
  EXPECT_EQ((Convert<int64_t>(9223372036854775808.0, kF64, kI64)), INT64_MAX);  // 2^63
  EXPECT_EQ((Convert<int64_t>(-9223372036854775808.0, kF64, kI64)),
            INT64_MIN);  // exactly the minimum
  EXPECT_EQ((Convert<int64_t>(9223372036854774784.0, kF64, kI64)),
            9223372036854774784LL);  // largest below
  EXPECT_EQ((Convert<uint64_t>(2e19, kF64, kU64)), UINT64_MAX);
  EXPECT_EQ((Convert<uint64_t>(-0.5, kF64, kU64)), 0u);
  EXPECT_EQ((Convert<uint64_t>(1.8446744073709550e19, kF64, kU64)), 18446744073709549568ULL);
  EXPECT_EQ((Convert<int32_t>(static_cast<uint16_t>(0xFC00), kF16, kI32)),
            INT32_MIN);                                                          // float16 -Inf
  EXPECT_EQ((Convert<int32_t>(static_cast<uint16_t>(0x7FC0), kBF16, kI32)), 0);  // bfloat16 NaN
}

TEST(Convert, IntegerToIntegerWraps) {
  EXPECT_EQ((Convert<int8_t>(int32_t{300}, kI32, kI8)), 44);
  EXPECT_EQ((Convert<uint8_t>(int32_t{-1}, kI32, kU8)), 255);
  EXPECT_EQ((Convert<int64_t>(UINT64_MAX, kU64, kI64)), -1);
  EXPECT_EQ((Convert<uint64_t>(int8_t{-2}, kI8, kU64)), UINT64_MAX - 1);
}

TEST(Convert, ToFloats) {
  EXPECT_EQ((Convert<float>(INT64_MAX, kI64, kF32)), 9223372036854775808.0f);
  EXPECT_EQ((Convert<double>(UINT64_MAX, kU64, kF64)), 18446744073709551616.0);
  EXPECT_EQ((Convert<float>(1e300, kF64, kF32)), INFINITY);
  EXPECT_EQ((Convert<uint16_t>(int32_t{2049}, kI32, kF16)), 0x6800);  // 2048: tie to even
  EXPECT_EQ((Convert<uint16_t>(0.1f, kF32, kBF16)), 0x3DCD);
  // Through float32, as torch: 16842753 is 2^24 + 2^16 + 1, float32 16842752
  // (a bfloat16 tie, to even); straight from the value it would be 0x4B81.
  EXPECT_EQ((Convert<uint16_t>(int32_t{16842753}, kI32, kBF16)), 0x4B80);
  // 1 + 2^-11 + 2^-40 is 1 + 2^-11 in float32, a float16 tie (to even).
  EXPECT_EQ((Convert<uint16_t>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), kF64, kF16)),
            0x3C00);
  EXPECT_EQ((Convert<double>(static_cast<uint16_t>(0x3555), kF16, kF64)), 0.333251953125);
}

TEST(Convert, ComplexAndBool) {
  const float c[2] = {2.5f, -7.0f};
  float c64[2];
  memcpy(c64, c, sizeof c64);
  struct C128 {
    double re, im;
  };
  EXPECT_EQ((Convert<float>(c64, kC64, kF32)), 2.5f);  // the real part
  EXPECT_EQ((Convert<int8_t>(c64, kC64, kI8)), 2);
  const auto widened = Convert<C128>(c64, kC64, kC128);
  EXPECT_EQ(widened.re, 2.5);
  EXPECT_EQ(widened.im, -7.0);
  const auto from_real = Convert<C128>(int32_t{-3}, kI32, kC128);
  EXPECT_EQ(from_real.re, -3.0);
  EXPECT_EQ(from_real.im, 0.0);
  EXPECT_EQ((Convert<uint8_t>(0.0, kF64, kBool)), 0);
  EXPECT_EQ((Convert<uint8_t>(-0.0, kF64, kBool)), 0);
  EXPECT_EQ((Convert<uint8_t>(NAN, kF64, kBool)), 1);
  EXPECT_EQ((Convert<uint8_t>(0.25, kF64, kBool)), 1);
  EXPECT_EQ((Convert<uint8_t>(int64_t{256}, kI64, kBool)), 1);  // nonzero, not the low byte
  const float imaginary_only[2] = {0.0f, 1.0f};
  EXPECT_EQ((Convert<uint8_t>(imaginary_only, kC64, kBool)), 1);
  EXPECT_EQ((Convert<double>(uint8_t{7}, kBool, kF64)), 1.0);  // a stored bool reads as true
  EXPECT_EQ((Convert<int32_t>(uint8_t{1}, kBool, kI32)), 1);
}

// An imported kDLCUDA view may start anywhere (DLPack asks for alignment,
// nothing enforces it). The conversion kernel must then move elements byte
// by byte: a misaligned typed load is a sticky cudaErrorMisalignedAddress.
TEST(Convert, MisalignedViewsTakeTheBytePath) {
  alignas(16) char base[64] = {};
  EXPECT_TRUE(dlnode::ElementsAligned(base + 1, kBool));
  EXPECT_TRUE(dlnode::ElementsAligned(base + 1, kI8));
  EXPECT_FALSE(dlnode::ElementsAligned(base + 1, kF16));
  EXPECT_FALSE(dlnode::ElementsAligned(base + 1, kBF16));
  EXPECT_TRUE(dlnode::ElementsAligned(base + 2, kF16));
  EXPECT_FALSE(dlnode::ElementsAligned(base + 2, kF32));
  EXPECT_FALSE(dlnode::ElementsAligned(base + 4, kI64));
  EXPECT_TRUE(dlnode::ElementsAligned(base + 4, kC64));  // two float32s
  EXPECT_FALSE(dlnode::ElementsAligned(base + 2, kC64));
  EXPECT_TRUE(dlnode::ElementsAligned(base + 8, kC128));  // two float64s
  EXPECT_FALSE(dlnode::ElementsAligned(base + 4, kC128));
  EXPECT_TRUE(dlnode::ElementsAligned(base + 16, kC128));

  // The byte path gives what the typed one gives: float64 at an odd address,
  // strided, to complex64 at an address aligned to 2 only.
  const double values[] = {1.5, -2.25, 1e300, NAN, 65504.0, -0.0};
  constexpr int64_t kCount = 6;
  std::vector<char> src_bytes(kCount * 2 * 8 + 1);
  for (int64_t i = 0; i < kCount; ++i) memcpy(&src_bytes[1 + i * 16], &values[i], 8);
  std::vector<double> aligned_src(kCount * 2);
  for (int64_t i = 0; i < kCount; ++i) aligned_src[static_cast<size_t>(i * 2)] = values[i];
  const int64_t shape[] = {kCount};
  const int64_t dst_strides[] = {1};
  const int64_t src_strides[] = {2};
  const CopyPlan plan = MakeCopyPlan(1, shape, dst_strides, src_strides);
  std::vector<float> expected(kCount * 2);
  ConvertStrided(plan, kC64, reinterpret_cast<char*>(expected.data()), kF64,
                 reinterpret_cast<const char*>(aligned_src.data()));
  alignas(16) char out[kCount * 8 + 2];
  const char* src = src_bytes.data() + 1;
  ASSERT_FALSE(dlnode::ElementsAligned(src, kF64));
  ASSERT_FALSE(dlnode::ElementsAligned(out + 2, kC64));
  ConvertStrided(plan, kC64, out + 2, kF64, src);
  const auto* want = reinterpret_cast<const unsigned char*>(expected.data());
  const auto* got = reinterpret_cast<const unsigned char*>(out + 2);
  EXPECT_EQ(std::vector<unsigned char>(got, got + kCount * 8),
            std::vector<unsigned char>(want, want + kCount * 8));
}

TEST(Convert, TypesTheKernelTakes) {
  for (ElementType t : {kBool, kI8, kI32, kI64, kU8, kU64, kF16, kBF16, kF32, kF64, kC64, kC128}) {
    EXPECT_TRUE(dlnode::IsConvertible(t)) << int(t.code) << '/' << int(t.bits);
  }
  EXPECT_FALSE(dlnode::IsConvertible({kDLFloat, 8}));
  EXPECT_FALSE(dlnode::IsConvertible({kDLBool, 1}));
  EXPECT_FALSE(dlnode::IsConvertible({kDLOpaqueHandle, 64}));
}

// The differential test: every one of the 15 x 15 dtype pairs converted by
// the kernels' host twin and by the CPU loop (convert.cc), over every bit
// pattern of the 16-bit types, random bits of the others and values next to
// the float16/bfloat16 rounding ties, must give the same bytes. The one
// freedom is a NaN's payload: both sides must give a NaN, but GPUs
// canonicalise payloads in their conversion instructions (PTX cvt), so the
// payload bits are no promise of either path.
struct Dtype {
  dlnode::Scalar scalar;
  ElementType type;
  uint64_t size;
};

std::vector<Dtype> AllDtypes() {
  std::vector<Dtype> out;
  const dlnode::DtypeTable& table = dlnode::Dtypes();
  for (int i = 0; i < table.size(); ++i) {
    dlnode::Scalar s;
    if (!dlnode::ScalarOf(table.at(i), &s)) continue;
    out.push_back({s, {table.at(i).code, table.at(i).bits}, dlnode::ScalarSize(s)});
  }
  return out;
}

// Doubles next to the ties of float16 and bfloat16 (both signs, normal and
// subnormal ranges): the midpoint itself and a few double ulps either side.
std::vector<double> NearTies(std::mt19937_64& rng) {
  std::vector<double> out;
  for (int k = 0; k < 4000; ++k) {
    const bool bf = (k & 1) != 0;
    const int exp_bits = bf ? 8 : 5;
    const int man_bits = bf ? 7 : 10;
    const uint32_t inf = ((1u << exp_bits) - 1) << man_bits;
    const auto bits = static_cast<uint16_t>(rng() % (inf - 1));
    const double lo = SmallFloatValue(bits, exp_bits, man_bits);
    const double hi = SmallFloatValue(static_cast<uint16_t>(bits + 1), exp_bits, man_bits);
    double mid = lo + (hi - lo) / 2;
    if ((k & 2) != 0) mid = -mid;
    out.push_back(mid);
    double up = mid;
    double down = mid;
    for (int step = 0; step < 3; ++step) {
      up = std::nextafter(up, INFINITY);
      down = std::nextafter(down, -INFINITY);
      out.push_back(up);
      out.push_back(down);
    }
    // The ones the review found: a tie in float32, below it in double.
    out.push_back(mid + std::ldexp(std::fabs(mid), -29));
    out.push_back(mid - std::ldexp(std::fabs(mid), -29));
  }
  out.push_back(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  return out;
}

// Source elements of `t`, as bytes.
std::vector<char> Samples(const Dtype& t, std::mt19937_64& rng) {
  std::vector<char> out;
  auto put = [&](const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    out.insert(out.end(), c, c + n);
  };
  const std::vector<double> ties = NearTies(rng);
  if (t.type.code == kDLBool) {
    for (int v : {0, 1, 2, 255}) put(&v, 1);  // any nonzero byte reads as true
    return out;
  }
  if (t.size == 2 && t.type.code != kDLInt && t.type.code != kDLUInt) {
    for (uint32_t v = 0; v < 65536; ++v) put(&v, 2);  // every float16/bfloat16
    return out;
  }
  for (int k = 0; k < 20000; ++k) {  // random bits: NaNs, infinities, subnormals
    const uint64_t a = rng();
    const uint64_t b = rng();
    put(&a, t.size < 8 ? t.size : 8);
    if (t.size == 16) put(&b, 8);
  }
  if (t.type.code == kDLInt || t.type.code == kDLUInt) {
    // Integers with 9 to 12 significant bits, at every shift, and their
    // neighbours: ties and near-ties of float16 and bfloat16 (int32
    // 16842753 = 2^24 + 2^16 + 1 is the review's case).
    for (int shift = 0; shift + 9 <= static_cast<int>(t.type.bits); ++shift) {
      for (int k = 0; k < 40; ++k) {
        const uint64_t m = (rng() % 4096) | 256;
        for (int64_t d = -1; d <= 1; ++d) {
          const uint64_t v = (m << shift) + static_cast<uint64_t>(d);
          put(&v, t.size);
        }
      }
    }
    const uint64_t review = 16842753;
    put(&review, t.size);
    return out;
  }
  for (double v : ties) {
    if (t.size == 4 || (t.size == 8 && t.type.code == kDLComplex)) {
      const auto f = static_cast<float>(v);
      put(&f, 4);
      if (t.size == 8) put(&f, 4);
    } else {
      put(&v, 8);
      if (t.size == 16) put(&v, 8);
    }
  }
  return out;
}

bool IsNaNBits(ElementType t, const char* p) {
  uint64_t b = 0;
  switch (t.code) {
    case kDLFloat:
    case kDLComplex:
      if (t.bits == 16) {
        memcpy(&b, p, 2);
        return (b & 0x7C00) == 0x7C00 && (b & 0x3FF) != 0;
      }
      if (t.bits == 32 || (t.bits == 64 && t.code == kDLComplex)) {
        float f;
        memcpy(&f, p, 4);
        return std::isnan(f);
      } else {
        double d;
        memcpy(&d, p, 8);
        return std::isnan(d);
      }
    case kDLBfloat:
      memcpy(&b, p, 2);
      return (b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0;
    default:
      return false;
  }
}

TEST(Convert, DeviceRulesAgreeWithTheCpuLoopForEveryDtypePair) {
  const std::vector<Dtype> dtypes = AllDtypes();
  ASSERT_EQ(dtypes.size(), static_cast<size_t>(dlnode::kScalarCount));
  std::mt19937_64 rng(2024);
  int pairs = 0;
  for (const Dtype& from : dtypes) {
    std::vector<char> src = Samples(from, rng);
    const int64_t count = static_cast<int64_t>(src.size() / from.size);
    for (const Dtype& to : dtypes) {
      std::vector<char> cpu(static_cast<size_t>(count) * to.size);
      std::vector<char> gpu(cpu.size());
      const int64_t shape[1] = {count};
      const int64_t one[1] = {1};
      dlnode::ConvertStrided(1, shape, to.scalar, dlnode::StridedView{cpu.data(), one},
                             dlnode::ByteRange{cpu.data(), cpu.data() + cpu.size()}, from.scalar,
                             dlnode::StridedView{src.data(), one},
                             dlnode::ByteRange{src.data(), src.data() + src.size()});
      ConvertStrided(MakeCopyPlan(1, shape, one, one), to.type, gpu.data(), from.type, src.data());
      // A complex element is checked as its two parts.
      const ElementType part = to.type.code == kDLComplex
                                   ? ElementType{kDLFloat, static_cast<uint8_t>(to.type.bits / 2)}
                                   : to.type;
      const size_t part_size = part.bits / 8;
      int mismatches = 0;
      for (size_t at = 0; at < cpu.size() && mismatches < 5; at += part_size) {
        if (memcmp(&cpu[at], &gpu[at], part_size) == 0) continue;
        if (IsNaNBits(part, &cpu[at]) && IsNaNBits(part, &gpu[at])) continue;
        const size_t element = at / to.size;
        std::string bytes;
        for (size_t b = 0; b < from.size; ++b) {
          char hex[4];
          snprintf(hex, sizeof hex, "%02x",
                   static_cast<unsigned char>(src[element * from.size + from.size - 1 - b]));
          bytes += hex;
        }
        uint64_t c = 0;
        uint64_t g = 0;
        memcpy(&c, &cpu[at], part_size < 8 ? part_size : 8);
        memcpy(&g, &gpu[at], part_size < 8 ? part_size : 8);
        ADD_FAILURE() << int(from.type.code) << '/' << int(from.type.bits) << " -> "
                      << int(to.type.code) << '/' << int(to.type.bits) << ": source 0x" << bytes
                      << " gives 0x" << std::hex << c << " on the CPU, 0x" << g << " on the device"
                      << std::dec;
        ++mismatches;
      }
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 225);
}

}  // namespace
