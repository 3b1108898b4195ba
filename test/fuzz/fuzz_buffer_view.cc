// libFuzzer target: fromBuffer's numbers (CheckBufferView) on arbitrary
// doubles, the values JavaScript could hand over and many it never does
// (NaN, infinities, -0, fractions, values past 2^53, subnormals).
//
// The verdict is compared with a model that reads each double's exact value
// from its IEEE-754 bits (no floating-point operations) and applies docs/API.md's
// rules in 128-bit integers: the same failure, or the same element count.
// Accepted results are checked against their promise as well:
// offset + count * itemSize <= byteLength, the first element aligned in the
// underlying buffer, and every number a safe integer.
//
// Input: five values, in the order byteLength, viewBase, itemSize, offset,
// count. Each is a tag byte and its payload (missing bytes read as 0):
//   tag % 4 == 0  a signed byte follows: a small integer
//   tag % 4 == 1  8 bytes follow: the double's bits
//   tag % 4 == 2  no payload: kSpecial[(tag / 4) % kSpecialCount]
//   tag % 4 == 3  8 bytes follow: an int64, rounded to the nearest double
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "buffer_view.h"
#include "fuzz_input.h"
#include "layout.h"

namespace {

using dlnode::ViewFailure;
using dlnode_fuzz::Input;
using i128 = __int128;

constexpr i128 kSafe = (i128{1} << 53) - 1;

constexpr double kSpecial[] = {
    std::numeric_limits<double>::quiet_NaN(),
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
    -0.0,
    0.5,
    -1.0,
    9007199254740991.0,      // 2^53 - 1
    9007199254740992.0,      // 2^53
    9007199254740994.0,      // 2^53 + 2
    4503599627370495.5,      // 2^52 - 0.5
    18446744073709551616.0,  // 2^64
    std::numeric_limits<double>::max(),
    std::numeric_limits<double>::denorm_min(),
    -9007199254740991.0,
    4294967296.0,  // 2^32
    1e300,
};
constexpr int kSpecialCount = sizeof(kSpecial) / sizeof(kSpecial[0]);

double Value(Input& in) {
  const auto tag = in.Raw<uint8_t>();
  switch (tag % 4) {
    case 0:
      return in.Raw<int8_t>();
    case 1:
      return in.Double();
    case 2:
      return kSpecial[(tag / 4) % kSpecialCount];
    default:
      return static_cast<double>(in.Raw<int64_t>());
  }
}

// A double's exact value, from its bits.
struct Exact {
  bool integer = false;  // finite and whole (either zero included)
  bool huge = false;     // an integer of magnitude >= 2^63
  i128 value = 0;        // when integer and not huge
};

Exact Decode(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  const bool negative = bits >> 63;
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
  Exact x;
  if (exponent == 0x7ff) return x;  // NaN or an infinity
  if (exponent == 0) {              // zero or subnormal (below 2^-1022)
    x.integer = fraction == 0;
    return x;
  }
  const uint64_t significand = fraction | (UINT64_C(1) << 52);
  const int shift = exponent - 1075;  // d = significand * 2^shift
  x.integer = true;
  if (shift > 10) {
    x.huge = true;
  } else if (shift >= 0) {
    x.value = i128{significand} << shift;
  } else if (shift > -53 && (significand & ((UINT64_C(1) << -shift) - 1)) == 0) {
    x.value = significand >> -shift;
  } else {
    x.integer = false;
  }
  if (negative) x.value = -x.value;
  return x;
}

struct Expected {
  ViewFailure failure = ViewFailure::kNone;
  i128 count = 0;
};

bool SafeUnsigned(const Exact& x) {
  return x.integer && !x.huge && x.value >= 0 && x.value <= kSafe;
}

// docs/API.md "fromBuffer", in lib/create.js's order once the types are checked.
Expected Model(const Exact& length, const Exact& base, const Exact& item, const Exact& offset,
               const Exact& count) {
  if (!SafeUnsigned(length) || !SafeUnsigned(base) || !SafeUnsigned(item) || item.value == 0 ||
      base.value + length.value > kSafe) {
    return {ViewFailure::kSource};
  }
  if (!SafeUnsigned(offset) || offset.value > length.value) return {ViewFailure::kOffset};
  if ((base.value + offset.value) % item.value != 0) return {ViewFailure::kMisaligned};
  const i128 rest = length.value - offset.value;
  if (count.integer && !count.huge && count.value == -1) {
    if (rest % item.value != 0) return {ViewFailure::kRemainder};
    return {ViewFailure::kNone, rest / item.value};
  }
  // count < 2^63 and item < 2^53: the product fits.
  if (!count.integer || count.huge || count.value < 0 || count.value * item.value > rest) {
    return {ViewFailure::kCount};
  }
  return {ViewFailure::kNone, count.value};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const double length = Value(in);
  const double base = Value(in);
  const double item = Value(in);
  const double offset = Value(in);
  const double count = Value(in);

  const dlnode::ViewResult r = dlnode::CheckBufferView(length, base, item, offset, count);
  const Exact l = Decode(length);
  const Exact b = Decode(base);
  const Exact i = Decode(item);
  const Exact o = Decode(offset);
  const Expected m = Model(l, b, i, o, Decode(count));
  FUZZ_REQUIRE(r.failure == m.failure);
  if (!r.ok()) {
    FUZZ_REQUIRE(r.count == 0);
    return 0;
  }
  FUZZ_REQUIRE(static_cast<i128>(r.count) == m.count);
  // The promise lib/create.js relies on, restated.
  FUZZ_REQUIRE(r.count <= dlnode::kMaxSafeInteger);
  FUZZ_REQUIRE(o.value >= 0 && o.value <= l.value);
  FUZZ_REQUIRE(o.value + static_cast<i128>(r.count) * i.value <= l.value);
  FUZZ_REQUIRE((b.value + o.value) % i.value == 0);
  FUZZ_REQUIRE(b.value + o.value <= kSafe);
  return 0;
}
