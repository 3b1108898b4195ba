// The element functions of the elementwise ops (elementwise.h), written once
// for the host engine (elementwise.cc) and the CUDA kernel (cuda_ops.cu):
// DLNODE_HD is __host__ __device__ under nvcc. GoogleTest runs this code on
// the host (test/cpp/elementwise_math_test.cc) against the host engine, so
// the kernel's arithmetic is tested on machines without a GPU.
//
// The host engine keeps its vectorised float32 exp, sigmoid and tanh
// (fast_math.h); the kernel calls the CUDA math library (expf, tanhf: a few
// ulp from the host's). Every other function is the same code on both sides.
#ifndef DLPACK_NODE_CORE_ELEMENTWISE_MATH_H_
#define DLPACK_NODE_CORE_ELEMENTWISE_MATH_H_

#include <math.h>

#include <cstdint>
#include <type_traits>

#include "device_copy.h"  // DLNODE_HD
#include "elementwise.h"
#include "layout.h"

namespace dlnode {
namespace math {

// bool is stored as a byte; any nonzero byte reads as true.
using Bool = uint8_t;

template <typename T>
constexpr bool kIsFloat = std::is_floating_point<T>::value;

// Integer arithmetic in an unsigned type at least as wide as int, so that
// overflow wraps instead of being undefined.
template <typename T>
using WrapType = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;

template <typename T>
DLNODE_HD T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <typename T>
DLNODE_HD T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
}
template <typename T>
DLNODE_HD T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}

// torch's integer pow: repeated squaring, wrapping; a negative exponent gives
// 1 for a base of 1, +-1 for -1 and 0 otherwise (what 1 / base^-e truncates to).
template <typename T>
DLNODE_HD T IntPow(T base, T exp) {
  if constexpr (std::is_signed<T>::value) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp % 2 == 0) ? 1 : -1;
      return 0;
    }
  }
  T result = 1;
  while (exp != 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

// NaN test that needs no <cmath> overload on the device (false for integers).
template <typename T>
DLNODE_HD bool IsNan(T a) {
  if constexpr (kIsFloat<T>) {
    return a != a;  // NOLINT(misc-redundant-expression): true for NaN only
  } else {
    return false;
  }
}

// NaN-propagating maximum/minimum (torch.maximum, np.maximum).
template <typename T>
DLNODE_HD T Max(T a, T b) {
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  return a > b ? a : b;
}
template <typename T>
DLNODE_HD T Min(T a, T b) {
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  return a < b ? a : b;
}

// torch's clamp_kernel: NaN input stays NaN; min(max(x, lo), hi), so lo > hi
// gives hi.
template <typename T>
DLNODE_HD T Clamp(T x, T lo, T hi) {
  if (IsNan(x)) return x;
  return Min<T>(Max<T>(x, lo), hi);
}

// The C library's functions by type: the same names on the host and, under
// nvcc, the CUDA math library's device functions.
DLNODE_HD float Exp(float a) { return expf(a); }
DLNODE_HD double Exp(double a) { return exp(a); }
DLNODE_HD float Log(float a) { return logf(a); }
DLNODE_HD double Log(double a) { return log(a); }
DLNODE_HD float Sqrt(float a) { return sqrtf(a); }
DLNODE_HD double Sqrt(double a) { return sqrt(a); }
DLNODE_HD float Tanh(float a) { return tanhf(a); }
DLNODE_HD double Tanh(double a) { return tanh(a); }
DLNODE_HD float Pow(float a, float b) { return powf(a, b); }
DLNODE_HD double Pow(double a, double b) { return pow(a, b); }
DLNODE_HD float Abs(float a) { return fabsf(a); }
DLNODE_HD double Abs(double a) { return fabs(a); }
// Half to even, as torch.round (the default rounding mode).
DLNODE_HD float Round(float a) { return nearbyintf(a); }
DLNODE_HD double Round(double a) { return nearbyint(a); }

template <typename T>
DLNODE_HD T Sigmoid(T a) {
  return T(1) / (T(1) + Exp(-a));
}

DLNODE_HD bool IsComparison(ElementwiseOp op) {
  return op == ElementwiseOp::kEq || op == ElementwiseOp::kNe || op == ElementwiseOp::kLt ||
         op == ElementwiseOp::kLe || op == ElementwiseOp::kGt || op == ElementwiseOp::kGe;
}

// Whether the engine computes `op` in T (IsBool: T is Bool holding a bool).
// The same refusals as the host engine's Elementwise(): bool for sub, neg,
// abs, pow, round and clamp; an integer type for div and the floating-point
// functions.
template <typename T, bool IsBool>
DLNODE_HD bool Computes(ElementwiseOp op) {
  using Op = ElementwiseOp;
  switch (op) {
    case Op::kSub:
    case Op::kNeg:
    case Op::kAbs:
    case Op::kPow:
    case Op::kRound:
    case Op::kClamp:
    case Op::kClampMin:
    case Op::kClampMax:
      return !IsBool;
    case Op::kDiv:
    case Op::kExp:
    case Op::kLog:
    case Op::kSqrt:
    case Op::kSigmoid:
    case Op::kTanh:
      return kIsFloat<T>;
    case Op::kCount:
      return false;
    default:
      return true;
  }
}

// A bool operand as 0/1 (any nonzero byte is true); other types unchanged.
template <typename T, bool IsBool>
DLNODE_HD T Truth(T x) {
  if constexpr (IsBool) {
    return static_cast<T>(x != 0);
  } else {
    return x;
  }
}

// A comparison's result (IsComparison(op)), as a bool byte.
template <typename T, bool IsBool>
DLNODE_HD Bool Compare(ElementwiseOp op, T a0, T b0) {
  const T a = Truth<T, IsBool>(a0);
  const T b = Truth<T, IsBool>(b0);
  switch (op) {
    case ElementwiseOp::kEq:
      return static_cast<Bool>(a == b);
    case ElementwiseOp::kNe:
      return static_cast<Bool>(a != b);
    case ElementwiseOp::kLt:
      return static_cast<Bool>(a < b);
    case ElementwiseOp::kLe:
      return static_cast<Bool>(a <= b);
    case ElementwiseOp::kGt:
      return static_cast<Bool>(a > b);
    default:
      return static_cast<Bool>(a >= b);
  }
}

// where(c, a, b) for one element.
template <typename T, bool IsBool>
DLNODE_HD T Select(Bool c, T a, T b) {
  return c != 0 ? Truth<T, IsBool>(a) : Truth<T, IsBool>(b);
}

// Every other op (Computes<T, IsBool>(op), not a comparison, not where): the
// inputs it does not take are ignored. The floating-point functions call the
// C library (see the top of this file for the host engine's float32 ones).
template <typename T, bool IsBool>
DLNODE_HD T Apply(ElementwiseOp op, T a, T b, T c) {
  using Op = ElementwiseOp;
  if constexpr (IsBool) {
    switch (op) {
      case Op::kAdd:
        return static_cast<T>((a | b) != 0);
      case Op::kMul:
        return static_cast<T>(a != 0 && b != 0);
      case Op::kMaximum:
        return Max<T>(Truth<T, true>(a), Truth<T, true>(b));
      default:  // kMinimum
        return Min<T>(Truth<T, true>(a), Truth<T, true>(b));
    }
  } else if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::kAdd:
        return a + b;
      case Op::kSub:
        return a - b;
      case Op::kMul:
        return a * b;
      case Op::kDiv:
        return a / b;
      case Op::kMaximum:
      case Op::kClampMin:
        return Max<T>(a, b);
      case Op::kMinimum:
      case Op::kClampMax:
        return Min<T>(a, b);
      case Op::kPow:
        return Pow(a, b);
      case Op::kNeg:
        return -a;
      case Op::kAbs:
        return Abs(a);
      case Op::kExp:
        return Exp(a);
      case Op::kLog:
        return Log(a);
      case Op::kSqrt:
        return Sqrt(a);
      case Op::kSigmoid:
        return Sigmoid(a);
      case Op::kTanh:
        return Tanh(a);
      case Op::kRound:
        return Round(a);
      default:  // kClamp
        return Clamp<T>(a, b, c);
    }
  } else {
    switch (op) {
      case Op::kAdd:
        return WrapAdd<T>(a, b);
      case Op::kSub:
        return WrapSub<T>(a, b);
      case Op::kMul:
        return WrapMul<T>(a, b);
      case Op::kMaximum:
      case Op::kClampMin:
        return Max<T>(a, b);
      case Op::kMinimum:
      case Op::kClampMax:
        return Min<T>(a, b);
      case Op::kPow:
        return IntPow<T>(a, b);
      case Op::kNeg:
        return WrapSub<T>(0, a);
      case Op::kAbs:
        if constexpr (std::is_signed<T>::value) {
          return a < 0 ? WrapSub<T>(0, a) : a;
        } else {
          return a;
        }
      case Op::kRound:
        return a;
      default:  // kClamp
        return Clamp<T>(a, b, c);
    }
  }
}

// The CUDA kernel computes every integer width in the 64-bit type of its
// signedness (one kernel for int8 to int64, one for uint8 to uint64: fewer
// kernels in the binary), reading each element sign- or zero-extended and
// writing back its low bytes. The same results as computing in the narrow
// type: wrapping arithmetic and integer pow are exact modulo 2^64, so modulo
// 2^bits; comparisons, max/min, clamp and abs see the same values
// (elementwise_math_test.cc checks every op and width).
template <typename T>
using Widened =
    std::conditional_t<std::is_integral<T>::value && sizeof(T) < 8 && !std::is_same<T, bool>::value,
                       std::conditional_t<std::is_signed<T>::value, int64_t, uint64_t>, T>;

// Element i of `p`, an array of `width`-byte elements of W's signedness
// (W a 64-bit integer), extended to W; any other W reads W.
template <typename W>
DLNODE_HD W LoadWidened(const char* p, int64_t i, int width) {
  if constexpr (std::is_integral<W>::value && sizeof(W) == 8) {
    constexpr bool kSigned = std::is_signed<W>::value;
    switch (width) {
      case 1:
        return static_cast<W>(
            reinterpret_cast<const std::conditional_t<kSigned, int8_t, uint8_t>*>(p)[i]);
      case 2:
        return static_cast<W>(
            reinterpret_cast<const std::conditional_t<kSigned, int16_t, uint16_t>*>(p)[i]);
      case 4:
        return static_cast<W>(
            reinterpret_cast<const std::conditional_t<kSigned, int32_t, uint32_t>*>(p)[i]);
      default:
        break;
    }
  }
  return reinterpret_cast<const W*>(p)[i];
}

// Writes the low `width` bytes of v as element i (LoadWidened's inverse).
template <typename W>
DLNODE_HD void StoreNarrowed(char* p, int64_t i, int width, W v) {
  if constexpr (std::is_integral<W>::value && sizeof(W) == 8) {
    switch (width) {
      case 1:
        reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v);
        return;
      case 2:
        reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
        return;
      case 4:
        reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v);
        return;
      default:
        break;
    }
  }
  reinterpret_cast<W*>(p)[i] = v;
}

// Row reductions (cuda_ops.h DeviceReduceRows): sum, max or min of a dense
// row, by kRowThreads threads, thread j taking elements j, j + kRowThreads,
// ... (a float sum with Kahan's compensation), then a fixed tree over the
// threads' partials: RowPartial and RowTree are what each thread and the block
// run, ReduceRow the whole on one host thread (the same bits).
enum class RowOp : int { kSum = 0, kMax = 1, kMin = 2 };
constexpr int kRowThreads = 256;

template <typename T>
DLNODE_HD T RowIdentity(RowOp op) {
  if (op == RowOp::kSum) return T(0);
  if constexpr (kIsFloat<T>) {
    const auto inf = static_cast<T>(INFINITY);
    return op == RowOp::kMax ? -inf : inf;
  } else {
    // The least and greatest T (T is int64_t or uint64_t).
    constexpr T kLeast = std::is_signed<T>::value ? static_cast<T>(INT64_MIN) : T(0);
    constexpr T kGreatest =
        std::is_signed<T>::value ? static_cast<T>(INT64_MAX) : static_cast<T>(UINT64_MAX);
    return op == RowOp::kMax ? kLeast : kGreatest;
  }
}

template <typename T>
DLNODE_HD T RowCombine(RowOp op, T a, T b) {
  if (op == RowOp::kMax) return Max<T>(a, b);
  if (op == RowOp::kMin) return Min<T>(a, b);
  if constexpr (kIsFloat<T>) {
    return a + b;
  } else {
    return WrapAdd<T>(a, b);
  }
}

// Thread `tid`'s partial over row[0, n).
// One step of Kahan's compensated sum: `value` joins `*acc`, and `*lost` keeps
// what the addition dropped, negated (RowPartial's float sums, SoftmaxPartial,
// and the device softmax that holds its row, cuda_ops.cu: one order for all).
// Once the sum is infinite or NaN it stays so, and nothing is lost: the
// compensation would be inf - inf, NaN, and turn a row of -inf, whose sum is
// -inf, into NaN (t - t is NaN exactly when t is infinite or NaN).
template <typename T>
DLNODE_HD void KahanAdd(T* acc, T* lost, T value) {
  const T y = value - *lost;
  const T t = *acc + y;
  *lost = IsNan(t - t) ? T(0) : (t - *acc) - y;
  *acc = t;
}

template <typename T>
DLNODE_HD T RowPartial(RowOp op, const T* row, int64_t n, int tid) {
  T acc = RowIdentity<T>(op);
  if constexpr (kIsFloat<T>) {
    if (op == RowOp::kSum) {
      T lost = T(0);
      DLNODE_NO_UNROLL
      for (int64_t j = tid; j < n; j += kRowThreads) KahanAdd(&acc, &lost, row[j]);
      return acc;
    }
  }
  DLNODE_NO_UNROLL
  for (int64_t j = tid; j < n; j += kRowThreads) acc = RowCombine<T>(op, acc, row[j]);
  return acc;
}

// One level of the tree: part[tid] combines part[tid + half] (tid < half).
template <typename T>
DLNODE_HD void RowTreeStep(RowOp op, T* part, int half, int tid) {
  if (tid < half) part[tid] = RowCombine<T>(op, part[tid], part[tid + half]);
}

// The block's result, on one host thread.
template <typename T>
T ReduceRow(RowOp op, const T* row, int64_t n) {
  T part[kRowThreads];
  for (int tid = 0; tid < kRowThreads; ++tid) part[tid] = RowPartial<T>(op, row, n, tid);
  for (int half = kRowThreads / 2; half > 0; half >>= 1) {
    for (int tid = 0; tid < half; ++tid) RowTreeStep<T>(op, part, half, tid);
  }
  return part[0];
}

// Arg reductions and topk (cuda_ops.h DeviceRowPicks): a row's elements in
// one strict total order, the host engine's (reduce.cc ArgExtremeOf, TopKOf):
// the larger (`largest`) or smaller value first, then the lower index (-0 and
// +0 tie); NaN before every number where `nan_first` (argmax and argmin alike
// give the first NaN, and topk of the largest counts NaN largest, as torch
// does), else after every number (topk of the smallest). Being a total
// order, any tree of RowPickCombine gives the host's pick.
struct PickOrder {
  bool largest;
  bool nan_first;
};

template <typename T>
struct RowPick {
  T value;
  int64_t index;  // -1: no element yet
};

template <typename T>
DLNODE_HD bool RowBefore(PickOrder order, T a, int64_t ia, T b, int64_t ib) {
  const bool largest = order.largest;
  const bool a_nan = IsNan(a);
  const bool b_nan = IsNan(b);
  if (a_nan || b_nan) return a_nan && b_nan ? ia < ib : a_nan == order.nan_first;
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

template <typename T>
DLNODE_HD RowPick<T> RowPickCombine(PickOrder order, RowPick<T> a, RowPick<T> b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  return RowBefore<T>(order, b.value, b.index, a.value, a.index) ? b : a;
}

// Thread `tid`'s pick over row[0, n): its elements j = tid, tid + kRowThreads,
// ... that come after `after` in the order (topk's round rule: round r picks
// the best element strictly after round r - 1's pick; `after.index` < 0 lets
// every element in).
template <typename T>
DLNODE_HD RowPick<T> RowPickPartial(PickOrder order, const T* row, int64_t n, int tid,
                                    RowPick<T> after) {
  RowPick<T> best{T(0), -1};
  DLNODE_NO_UNROLL
  for (int64_t j = tid; j < n; j += kRowThreads) {
    if (after.index >= 0 && !RowBefore<T>(order, after.value, after.index, row[j], j)) continue;
    best = RowPickCombine<T>(order, best, RowPick<T>{row[j], j});
  }
  return best;
}

// One level of the pick tree: part[tid] combines part[tid + half] (tid < half).
template <typename T>
DLNODE_HD void RowPickTreeStep(PickOrder order, RowPick<T>* part, int half, int tid) {
  if (tid < half) part[tid] = RowPickCombine<T>(order, part[tid], part[tid + half]);
}

// The block's pick, on one host thread.
template <typename T>
RowPick<T> PickRow(PickOrder order, const T* row, int64_t n, RowPick<T> after) {
  RowPick<T> part[kRowThreads];
  for (int tid = 0; tid < kRowThreads; ++tid) {
    part[tid] = RowPickPartial<T>(order, row, n, tid, after);
  }
  for (int half = kRowThreads / 2; half > 0; half >>= 1) {
    for (int tid = 0; tid < half; ++tid) RowPickTreeStep<T>(order, part, half, tid);
  }
  return part[0];
}

// Softmax of a dense row in one block: the maximum (RowPartial and the tree,
// kMax), then thread `tid`'s Kahan sum of e^(x - top) in RowPartial's order
// (SoftmaxPartial), the kSum tree over those, then each element written
// (SoftmaxValue): e^(x - top) / total, or x - top - log(total) for
// logSoftmax. A NaN anywhere makes top, and every value, NaN (as on the host).
template <typename T>
DLNODE_HD T SoftmaxPartial(const T* row, int64_t n, int tid, T top) {
  T acc = T(0);
  T lost = T(0);
  DLNODE_NO_UNROLL
  for (int64_t j = tid; j < n; j += kRowThreads) KahanAdd(&acc, &lost, Exp(row[j] - top));
  return acc;
}

template <typename T>
DLNODE_HD T SoftmaxValue(bool log, T x, T top, T total) {
  return log ? (x - top) - Log(total) : Exp(x - top) / total;
}

// The block's softmax of row[0, n) into out, on one host thread.
template <typename T>
void SoftmaxRow(bool log, const T* row, T* out, int64_t n) {
  const T top = ReduceRow<T>(RowOp::kMax, row, n);
  T part[kRowThreads];
  for (int tid = 0; tid < kRowThreads; ++tid) part[tid] = SoftmaxPartial<T>(row, n, tid, top);
  for (int half = kRowThreads / 2; half > 0; half >>= 1) {
    for (int tid = 0; tid < half; ++tid) RowTreeStep<T>(RowOp::kSum, part, half, tid);
  }
  for (int64_t j = 0; j < n; ++j) out[j] = SoftmaxValue<T>(log, row[j], top, part[0]);
}

// Rows by a group of `lanes` threads (cuda_ops.cu's row kernels: a block of
// kRowThreads for long rows; a warp of kWarpLanes for short ones, where a
// block spent most of its time in its tree's barriers). Lane l stands for
// the threads l, l + lanes, ..., of the tree above (kRowThreads / lanes of
// them) and computes their RowPartials (SoftmaxPartials) in turn. The tree's
// levels half = kRowThreads / 2 down to `lanes` pair threads of one lane (t
// and t + half differ by a multiple of lanes): LaneTree runs them on the
// lane's partials, thread lane + s * lanes's at part[s]; the levels below
// are the group's (a warp's shuffles are the block tree's last five, which
// cuda_ops.cu GroupTree also runs by shuffles for a block). The same pairs
// in the same order give ReduceRow's and SoftmaxRow's bits at every n,
// which ReduceRowByWarp and SoftmaxRowByWarp (the warp on one host thread)
// show.
constexpr int kWarpLanes = 32;
constexpr int kLaneThreads = kRowThreads / kWarpLanes;  // the most a lane stands for

// The tree's levels over the lane's `count` partials (a power of two at
// most kLaneThreads): thread lane's value after them.
template <typename T>
DLNODE_HD T LaneTree(RowOp op, T* part, int count) {
  DLNODE_NO_UNROLL
  for (int half = count / 2; half > 0; half >>= 1) {
    DLNODE_NO_UNROLL
    for (int s = 0; s < half; ++s) part[s] = RowCombine<T>(op, part[s], part[s + half]);
  }
  return part[0];
}

// The lane's value for the group's tree: its threads' RowPartials, then
// LaneTree.
template <typename T>
DLNODE_HD T LaneReduce(RowOp op, const T* row, int64_t n, int lane, int lanes) {
  T part[kLaneThreads];
  const int count = kRowThreads / lanes;
  DLNODE_NO_UNROLL
  for (int s = 0; s < count; ++s) part[s] = RowPartial<T>(op, row, n, lane + s * lanes);
  return LaneTree<T>(op, part, count);
}

// The same for the sum of e^(x - top): its threads' SoftmaxPartials.
template <typename T>
DLNODE_HD T LaneSoftmaxSum(const T* row, int64_t n, int lane, int lanes, T top) {
  T part[kLaneThreads];
  const int count = kRowThreads / lanes;
  DLNODE_NO_UNROLL
  for (int s = 0; s < count; ++s) part[s] = SoftmaxPartial<T>(row, n, lane + s * lanes, top);
  return LaneTree<T>(RowOp::kSum, part, count);
}

// The warp's shuffles over its lanes' values (lanes[l] is lane l's), on one
// host thread: lane 0's result.
template <typename T>
T WarpTreeOnHost(RowOp op, T* lanes) {
  for (int half = kWarpLanes / 2; half > 0; half >>= 1) {
    for (int l = 0; l < half; ++l) RowTreeStep<T>(op, lanes, half, l);
  }
  return lanes[0];
}

// The warp's reduction of row[0, n), on one host thread.
template <typename T>
T ReduceRowByWarp(RowOp op, const T* row, int64_t n) {
  T lanes[kWarpLanes];
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    lanes[lane] = LaneReduce<T>(op, row, n, lane, kWarpLanes);
  }
  return WarpTreeOnHost<T>(op, lanes);
}

// The warp's softmax of row[0, n) into out, on one host thread.
template <typename T>
void SoftmaxRowByWarp(bool log, const T* row, T* out, int64_t n) {
  T lanes[kWarpLanes];
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    lanes[lane] = LaneReduce<T>(RowOp::kMax, row, n, lane, kWarpLanes);
  }
  const T top = WarpTreeOnHost<T>(RowOp::kMax, lanes);
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    lanes[lane] = LaneSoftmaxSum<T>(row, n, lane, kWarpLanes, top);
  }
  const T total = WarpTreeOnHost<T>(RowOp::kSum, lanes);
  for (int64_t j = 0; j < n; ++j) out[j] = SoftmaxValue<T>(log, row[j], top, total);
}

}  // namespace math

// The kernel's iteration over an op's operands (the output first): size-1
// dimensions dropped and neighbours contiguous in every operand merged, as
// the host engine coalesces; strides in elements of each operand's type.
struct OpPlan {
  int ndim = 0;
  int n = 0;          // operands
  int64_t count = 0;  // elements
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
};

// `strides[k]` the strides of operand k over `shape` (0 where broadcast).
OpPlan MakeOpPlan(int ndim, const int64_t* shape, int n, const int64_t* const* strides);

// The offsets (in elements) of row-major element `i` in each operand. The
// outermost dimension needs no division (a dense op coalesced to one
// dimension divides nowhere).
DLNODE_HD void OpOffsets(const OpPlan& p, int64_t i, int64_t* offsets) {
  for (int k = 0; k < p.n; ++k) offsets[k] = 0;
  for (int d = p.ndim - 1; d >= 0; --d) {
    int64_t r = i;
    if (d > 0) {
      const int64_t q = i / p.shape[d];
      r = i - q * p.shape[d];
      i = q;
    }
    for (int k = 0; k < p.n; ++k) offsets[k] += r * p.strides[k][d];
  }
}

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_ELEMENTWISE_MATH_H_
