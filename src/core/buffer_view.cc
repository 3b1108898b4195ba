#include "buffer_view.h"

#include <string>
#include <utility>

#include "layout.h"  // kMaxSafeInteger

namespace dlnode {
namespace {

// Whether `x` is an integer from 0 to 2^53 - 1 (-0 included); if so, `*out`
// is its value. The range test comes first: converting a double outside
// uint64_t's range (or NaN, which fails every comparison) is undefined.
bool SafeUnsigned(double x, uint64_t* out) {
  if (!(x >= 0 && x <= static_cast<double>(kMaxSafeInteger))) return false;
  const auto v = static_cast<uint64_t>(x);  // truncates toward zero
  if (static_cast<double>(v) != x) return false;
  *out = v;
  return true;
}

ViewResult Fail(ViewFailure failure, std::string message = {}) {
  ViewResult r;
  r.failure = failure;
  r.message = std::move(message);
  return r;
}

ViewResult Count(uint64_t n) {
  ViewResult r;
  r.count = n;
  return r;
}

}  // namespace

ViewResult CheckBufferView(double byte_length, double view_base, double item_size, double offset,
                           double count) {
  uint64_t length = 0;
  uint64_t base = 0;
  uint64_t item = 0;
  if (!SafeUnsigned(byte_length, &length) || !SafeUnsigned(view_base, &base) ||
      !SafeUnsigned(item_size, &item) || item == 0 || base + length > kMaxSafeInteger) {
    return Fail(ViewFailure::kSource,
                "Expected a byte length, view offset and element size that are safe integers "
                "for `source`, received values outside that range");
  }
  uint64_t start = 0;
  if (!SafeUnsigned(offset, &start) || start > length) return Fail(ViewFailure::kOffset);
  // JavaScript views must be aligned in the underlying buffer, not just in
  // the view the caller passed.
  if ((base + start) % item != 0) return Fail(ViewFailure::kMisaligned);
  const uint64_t rest = length - start;
  if (count == -1) {
    if (rest % item != 0) return Fail(ViewFailure::kRemainder);
    return Count(rest / item);
  }
  uint64_t n = 0;
  uint64_t bytes = 0;
  if (!SafeUnsigned(count, &n) || __builtin_mul_overflow(n, item, &bytes) || bytes > rest) {
    return Fail(ViewFailure::kCount);
  }
  return Count(n);
}

}  // namespace dlnode
