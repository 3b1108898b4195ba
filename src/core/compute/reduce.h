// Reductions over strided tensors (docs/API.md "Reductions"): sum, mean,
// amax, amin over a set of dims; max/min/argmax/argmin, softmax, logSoftmax
// and topk along one dim. Pure C++: callers hand element 0, the dtype, and
// shape and strides in elements; lib/reduce.js validates and allocates.
//
// The rules, written once here:
//  - result dtypes (ResultType): sum of bool and integers is int64 (integer
//    sums wrap modulo 2^64), of floats and complex their own dtype; mean takes
//    floats and complex only (torch refuses integers); amax/amin/max/min/
//    argmax/argmin/topk take every real dtype, softmax/logSoftmax floats only;
//  - float16/bfloat16 compute in float32 and round once at the end; float32
//    accumulates in float32, float64 in float64;
//  - a sum is pairwise: eight interleaved lanes (element i in lane i % 8), each
//    summed pairwise over leaves of 32, then the lanes in a fixed tree (error
//    O(log n) ulps, as NumPy's pairwise sum), inside blocks of kSumBlock
//    elements whose partial sums are combined the same way. The order depends
//    on the element count only, never on the layout or the thread count, so
//    any number of threads gives the same bits;
//  - NaN propagates through amax/amin/max/min; max/min/argmax/argmin give the
//    first index of the extreme (the first NaN when there is one); topk counts
//    NaN as larger than every number (torch's order), equal values by index.
#ifndef DLPACK_NODE_CORE_COMPUTE_REDUCE_H_
#define DLPACK_NODE_CORE_COMPUTE_REDUCE_H_

#include <cstdint>

#include "../convert.h"

// X(jsName, Constant): every operation of this unit (lib/reduce.js reads the
// list and the result dtypes at load).
#define DLNODE_REDUCE_OPS(X) \
  X(sum, kSum)               \
  X(mean, kMean)             \
  X(amax, kAmax)             \
  X(amin, kAmin)             \
  X(max, kMax)               \
  X(min, kMin)               \
  X(softmax, kSoftmax)       \
  X(logSoftmax, kLogSoftmax) \
  X(topk, kTopk)

namespace dlnode {

enum class ReduceOp {
#define DLNODE_REDUCE_OP(js, constant) constant,
  DLNODE_REDUCE_OPS(DLNODE_REDUCE_OP)
#undef DLNODE_REDUCE_OP
};
constexpr int kReduceOpCount = 9;

// Elements per block of a sum (a multiple of 8): longer reductions are cut
// into blocks of this many, summed apart (in parallel) and then combined.
constexpr int64_t kSumBlock = 32768;

// The dtype `op` writes for input `in` (max/min/topk: the values; indices are
// int64), or false when `op` refuses `in`.
bool ResultType(ReduceOp op, Scalar in, Scalar* out);

// A strided input: element 0, its dtype, and per dim size and stride in
// elements (any sign, 0 allowed).
struct StridedInput {
  const char* first;
  Scalar type;
  int ndim;
  const int64_t* shape;
  const int64_t* strides;
};

// op is kSum, kMean, kAmax or kAmin. Reduces the last `reduced` dims of `in`
// (the kept dims come first, in the result's order) and writes one element per
// kept index, row-major and contiguous, of ResultType(op, in.type) at `out`.
// A sum of no elements is 0, a mean NaN; amax/amin of none is the caller's
// to refuse (nothing is written then).
void Reduce(ReduceOp op, const StridedInput& in, int reduced, char* out);

// Along dim `dim` of `in` (shape[dim] > 0 unless the input is empty), op kMax or kMin:
// the extreme's value (when `values` is not null, in.type) and its index
// (when `indices` is not null). Each result has in's dims but `dim`, at
// `out_strides` (per dim of `in`, in elements; `dim`'s is not read).
void ArgExtreme(ReduceOp op, const StridedInput& in, int dim, char* values, int64_t* indices,
                const int64_t* out_strides);

// op kSoftmax or kLogSoftmax along `dim` (a float dtype), into `out` of
// in.type and in's shape at `out_strides`. Numerically stable: the lane's
// maximum is subtracted before exp().
void Softmax(ReduceOp op, const StridedInput& in, int dim, char* out, const int64_t* out_strides);

// The k largest (or smallest) of each lane along `dim` (0 <= k <= shape[dim]):
// values (in.type) and int64 indices, each of in's shape with `dim` of size k,
// at `out_strides`. `sorted`: in order, largest first (smallest first when
// !largest); else in an unspecified order.
void TopK(const StridedInput& in, int dim, int64_t k, bool largest, bool sorted, char* values,
          int64_t* indices, const int64_t* out_strides);

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_REDUCE_H_
