// Element conversion between the 15 dtypes, over strided views (t.to(dtype),
// copyFrom, cat/stack). The rules, defined here once (docs/API.md
// "Conversion"):
//  - float -> integer truncates toward zero; NaN gives 0 and values outside
//    the integer's range, +-Infinity included, saturate to its min/max
//    (WebAssembly's trunc_sat), so no conversion is undefined behaviour;
//  - integer -> integer wraps modulo 2^bits, as torch and NumPy do;
//  - anything -> bool is `value != 0` (NaN is nonzero); bool reads as 0/1;
//  - complex -> real takes the real part (torch), real -> complex has im 0;
//  - float16 and bfloat16 are produced from the float32 value, rounding to
//    nearest, ties to even (torch's c10::Half/BFloat16 constructors).
// Copies whose source and destination bytes overlap stage the source
// through a temporary first (NumPy's rule), whatever objects describe them.
#ifndef DLPACK_NODE_CORE_CONVERT_H_
#define DLPACK_NODE_CORE_CONVERT_H_

#include <cstdint>

#include "dtype.h"
#include "strided_copy.h"

namespace dlnode {

enum class Scalar {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kFloat16,
  kBfloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
};
constexpr int kScalarCount = 15;

// The scalar type of a (DLPack code, bits) pair; false when there is none.
bool ScalarOf(DtypeEntry entry, Scalar* out);
uint64_t ScalarSize(Scalar s);

// IEEE binary16 / bfloat16 bits <-> float, round to nearest even.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBfloat16(float value);
float Bfloat16ToFloat(uint16_t bits);

// Bytes [lo, hi) a view touches.
struct ByteRange {
  const char* lo;
  const char* hi;
};

// dst[i] = convert(src[i]) for every index of `shape`. Strides are in
// elements of each side's own type. When `dst_range` and `src_range`
// overlap, the source's bytes are copied aside first (scratch.h: a failure
// throws std::bad_alloc before anything is written).
void ConvertStrided(int ndim, const int64_t* shape, Scalar dst_type, StridedView dst,
                    ByteRange dst_range, Scalar src_type, StridedView src, ByteRange src_range);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CONVERT_H_
