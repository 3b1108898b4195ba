// The reductions' front (src/core/compute/reduce.h): the result dtypes, and
// Reduce() handing sums to reduce_sums.cc and amax/amin to reduce_picks.cc.
#include "reduce.h"

#include "reduce_order.h"

namespace dlnode {
namespace {

bool IsFloat(Scalar s) {
  return s == Scalar::kFloat16 || s == Scalar::kBfloat16 || s == Scalar::kFloat32 ||
         s == Scalar::kFloat64;
}
bool IsComplex(Scalar s) { return s == Scalar::kComplex64 || s == Scalar::kComplex128; }

}  // namespace

bool ResultType(ReduceOp op, Scalar in, Scalar* out) {
  switch (op) {
    case ReduceOp::kSum:
      *out = IsFloat(in) || IsComplex(in) ? in : Scalar::kInt64;
      return true;
    case ReduceOp::kMean:
      *out = in;
      return IsFloat(in) || IsComplex(in);
    case ReduceOp::kSoftmax:
    case ReduceOp::kLogSoftmax:
      *out = in;
      return IsFloat(in);
    case ReduceOp::kAmax:
    case ReduceOp::kAmin:
    case ReduceOp::kMax:
    case ReduceOp::kMin:
    case ReduceOp::kTopk:
      *out = in;
      return !IsComplex(in);
  }
  return false;
}

void Reduce(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  Scalar result;
  if (!ResultType(op, in.type, &result)) return;
  if (op == ReduceOp::kSum || op == ReduceOp::kMean) {
    reduction::ReduceSums(op, in, reduced, out);
  } else {
    reduction::ReduceExtremes(op, in, reduced, out);
  }
}

}  // namespace dlnode
