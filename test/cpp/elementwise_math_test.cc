// The code the CUDA elementwise kernel runs (elementwise_math.h), run on the
// host: each element function against the host engine (elementwise.h) over
// every pair of edge values of every type it computes in, the refusals
// against the engine's, and the kernel's index plan (MakeOpPlan, OpOffsets)
// against a plain row-major walk; the row picks (argmax/argmin, max/min
// along a dim, topk) and the one-launch softmax against the host reductions
// (reduce.h); the rows a warp takes against the rows a block takes, bit for
// bit. A GPU runs the same functions; only the launch itself goes untested
// here.
#include "compute/elementwise_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "compute/elementwise.h"
#include "compute/reduce.h"
#include "convert.h"
#include "cuda_ops.h"

namespace {

using dlnode::ElementwiseOp;
using dlnode::Operand;
using dlnode::Scalar;
namespace math = dlnode::math;

constexpr ElementwiseOp kOps[] = {
#define DLNODE_TEST_OP(js, constant, ...) ElementwiseOp::constant,
    DLNODE_ELEMENTWISE_OPS(DLNODE_TEST_OP)
#undef DLNODE_TEST_OP
};

std::string NameOf(ElementwiseOp op) {
  static const char* const kNames[] = {
#define DLNODE_TEST_NAME(js, constant, ...) #js,
      DLNODE_ELEMENTWISE_OPS(DLNODE_TEST_NAME)
#undef DLNODE_TEST_NAME
  };
  return kNames[static_cast<int>(op)];
}

bool Transcendental(ElementwiseOp op) {
  return op == ElementwiseOp::kExp || op == ElementwiseOp::kLog || op == ElementwiseOp::kSqrt ||
         op == ElementwiseOp::kSigmoid || op == ElementwiseOp::kTanh || op == ElementwiseOp::kPow;
}

template <typename T>
std::vector<T> EdgeValues() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point<T>::value) {
    return {T(0),          T(-0.0),        T(1),           T(-1),          T(0.5),   T(2.5),
            T(-2.5),       T(3),           T(1e30),        T(-7.25),       L::max(), L::lowest(),
            L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min()};
  } else {
    std::vector<T> v = {T(0), T(1), T(2), T(3), T(7), L::max(), L::min(), T(L::max() - 1)};
    if (std::is_signed<T>::value) {
      v.push_back(static_cast<T>(-1));
      v.push_back(static_cast<T>(-2));
      v.push_back(static_cast<T>(-5));
      v.push_back(static_cast<T>(L::min() + 1));
    }
    return v;
  }
}

// Every (a, b, c) triple of edge values, each as a dense column.
template <typename T>
struct Columns {
  std::vector<T> a;
  std::vector<T> b;
  std::vector<T> c;
  std::vector<uint8_t> cond;
};

template <typename T>
Columns<T> Triples(const std::vector<T>& values) {
  Columns<T> cols;
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      for (size_t k = 0; k < values.size(); k += 3) {
        cols.a.push_back(values[i]);
        cols.b.push_back(values[j]);
        cols.c.push_back(values[k]);
        cols.cond.push_back(static_cast<uint8_t>((i + j + k) % 3));  // 2 is true too
      }
    }
  }
  return cols;
}

// The bits of a value (NaN payloads and -0 included), as an unsigned integer.
template <typename T>
auto BitsOf(T v) {
  using U =
      std::conditional_t<sizeof(T) == 8, uint64_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t,
                                            std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
  U bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  return bits;
}

bool SameValue(double x, double y, double tol) {
  if (std::isnan(x) && std::isnan(y)) return true;
  if (x == y) return true;
  if (tol == 0 || !std::isfinite(x) || !std::isfinite(y)) return false;
  return std::fabs(x - y) <= tol * std::fmax(std::fabs(x), std::fabs(y));
}

// For every op: the twin refuses where the engine refuses, and otherwise
// gives the engine's bits (transcendental float32: within `tol`, the engine
// using fast_math.h there).
template <typename T, bool IsBool>
void CheckType(Scalar type, const std::vector<T>& values, double tol) {
  const Columns<T> cols = Triples(values);
  const int64_t n = static_cast<int64_t>(cols.a.size());
  const int64_t shape[1] = {n};
  const int64_t dense[1] = {1};
  for (const ElementwiseOp op : kOps) {
    SCOPED_TRACE(NameOf(op));
    const bool compare = math::IsComparison(op);
    const bool where = op == ElementwiseOp::kWhere;
    std::vector<T> out(static_cast<size_t>(n));
    std::vector<uint8_t> flags(static_cast<size_t>(n));
    Columns<T> in = cols;  // the engine takes non-const pointers
    Operand inputs[3];
    if (where) {
      inputs[0] = Operand{reinterpret_cast<char*>(in.cond.data()), dense};
      inputs[1] = Operand{reinterpret_cast<char*>(in.a.data()), dense};
      inputs[2] = Operand{reinterpret_cast<char*>(in.b.data()), dense};
    } else {
      inputs[0] = Operand{reinterpret_cast<char*>(in.a.data()), dense};
      inputs[1] = Operand{reinterpret_cast<char*>(in.b.data()), dense};
      inputs[2] = Operand{reinterpret_cast<char*>(in.c.data()), dense};
    }
    const Operand dst{
        compare ? reinterpret_cast<char*>(flags.data()) : reinterpret_cast<char*>(out.data()),
        dense};
    const bool computed = dlnode::Elementwise(op, type, 1, shape, dst, inputs);
    ASSERT_EQ(computed, (math::Computes<T, IsBool>(op)));
    if (!computed) continue;
    const bool close = tol > 0 && Transcendental(op);
    // The kernel's path (cuda_ops.cu): integers widened to 64 bits, the
    // result's low bytes written back; bool and floats in their own type.
    using W = std::conditional_t<IsBool, T, math::Widened<T>>;
    constexpr int kWidth = sizeof(T);
    const auto* a = reinterpret_cast<const char*>(cols.a.data());
    const auto* b = reinterpret_cast<const char*>(cols.b.data());
    const auto* c = reinterpret_cast<const char*>(cols.c.data());
    std::vector<T> twins(static_cast<size_t>(n));
    auto* twin_bytes = reinterpret_cast<char*>(twins.data());
    for (int64_t i = 0; i < n; ++i) {
      const auto at = static_cast<size_t>(i);
      const W wa = math::LoadWidened<W>(a, i, kWidth);
      const W wb = math::LoadWidened<W>(b, i, kWidth);
      if (compare) {
        ASSERT_EQ(flags[at], (math::Compare<W, IsBool>(op, wa, wb))) << "at " << i;
        continue;
      }
      const W value = where
                          ? math::Select<W, IsBool>(cols.cond[at], wa, wb)
                          : math::Apply<W, IsBool>(op, wa, wb, math::LoadWidened<W>(c, i, kWidth));
      math::StoreNarrowed<W>(twin_bytes, i, kWidth, value);
      const T twin = twins[at];
      if (close) {
        ASSERT_TRUE(SameValue(static_cast<double>(out[at]), static_cast<double>(twin), tol))
            << "at " << i << ": engine " << out[at] << ", twin " << twin;
      } else {
        ASSERT_EQ(BitsOf(out[at]), BitsOf(twin))
            << "at " << i << ": engine " << +out[at] << ", twin " << +twin << " (a " << +cols.a[at]
            << ", b " << +cols.b[at] << ")";
      }
    }
  }
}

TEST(ElementwiseMath, TheTwinGivesTheHostEnginesResults) {
  CheckType<uint8_t, true>(Scalar::kBool, {0, 1, 2, 255}, 0);
  CheckType<int8_t, false>(Scalar::kInt8, EdgeValues<int8_t>(), 0);
  CheckType<int16_t, false>(Scalar::kInt16, EdgeValues<int16_t>(), 0);
  CheckType<int32_t, false>(Scalar::kInt32, EdgeValues<int32_t>(), 0);
  CheckType<int64_t, false>(Scalar::kInt64, EdgeValues<int64_t>(), 0);
  CheckType<uint8_t, false>(Scalar::kUint8, EdgeValues<uint8_t>(), 0);
  CheckType<uint16_t, false>(Scalar::kUint16, EdgeValues<uint16_t>(), 0);
  CheckType<uint32_t, false>(Scalar::kUint32, EdgeValues<uint32_t>(), 0);
  CheckType<uint64_t, false>(Scalar::kUint64, EdgeValues<uint64_t>(), 0);
  // float32 exp, sigmoid and tanh: fast_math.h on the host engine.
  CheckType<float, false>(Scalar::kFloat32, EdgeValues<float>(), 1e-6);
  CheckType<double, false>(Scalar::kFloat64, EdgeValues<double>(), 1e-15);
}

TEST(ElementwiseMath, ScalarsAsTheKernelReadsThem) {
  const int8_t minus3 = -3;
  EXPECT_EQ(dlnode::cuda::ScalarBits(Scalar::kInt8, &minus3), static_cast<uint64_t>(int64_t{-3}));
  const uint16_t top = 65535;
  EXPECT_EQ(dlnode::cuda::ScalarBits(Scalar::kUint16, &top), 65535U);
  const float half = 0.5F;
  uint32_t half_bits = 0;
  std::memcpy(&half_bits, &half, sizeof half);
  EXPECT_EQ(dlnode::cuda::ScalarBits(Scalar::kFloat32, &half), half_bits);
  const uint8_t yes = 1;
  EXPECT_EQ(dlnode::cuda::ScalarBits(Scalar::kBool, &yes), 1U);
}

TEST(ElementwiseMath, EdgeRules) {
  // NaN-propagating maximum, clamp keeps NaN, lo > hi gives hi.
  EXPECT_TRUE(std::isnan(math::Max<float>(1.0F, NAN)));
  EXPECT_TRUE(std::isnan(math::Min<double>(NAN, 1.0)));
  EXPECT_TRUE(std::isnan(math::Clamp<float>(NAN, 0.0F, 1.0F)));
  EXPECT_EQ(math::Clamp<int>(5, 3, 1), 1);
  // Wrapping and torch's integer pow.
  EXPECT_EQ(math::WrapAdd<int8_t>(127, 1), -128);
  EXPECT_EQ(math::WrapSub<int8_t>(0, -128), -128);
  EXPECT_EQ(math::IntPow<int32_t>(-1, -3), -1);
  EXPECT_EQ(math::IntPow<int32_t>(2, -1), 0);
  EXPECT_EQ(math::IntPow<uint8_t>(3, 5), 243);
  EXPECT_EQ(math::IntPow<uint8_t>(2, 9), 0);
  // Half to even.
  EXPECT_EQ(math::Round(2.5F), 2.0F);
  EXPECT_EQ(math::Round(-1.5), -2.0);
  // bool: any nonzero byte is true.
  EXPECT_EQ((math::Compare<uint8_t, true>(ElementwiseOp::kEq, 2, 1)), 1);
  EXPECT_EQ((math::Apply<uint8_t, true>(ElementwiseOp::kMaximum, 2, 0, 0)), 1);
  EXPECT_EQ((math::Select<uint8_t, true>(7, 3, 0)), 1);
}

// A plain row-major walk: offsets of element i in each operand.
void NaiveOffsets(int ndim, const int64_t* shape, int n, const std::vector<std::vector<int64_t>>& s,
                  int64_t i, int64_t* out) {
  for (int k = 0; k < n; ++k) out[k] = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    const int64_t r = i % shape[d];
    i /= shape[d];
    for (int k = 0; k < n; ++k) out[k] += r * s[k][static_cast<size_t>(d)];
  }
}

TEST(ElementwiseMath, PlanOffsetsAreTheRowMajorWalk) {
  std::mt19937 gen(23);
  for (int trial = 0; trial < 500; ++trial) {
    const int ndim = static_cast<int>(gen() % 6);
    const int n = 2 + static_cast<int>(gen() % 3);
    std::vector<int64_t> shape(static_cast<size_t>(ndim));
    for (auto& d : shape) d = 1 + static_cast<int64_t>(gen() % 4);
    std::vector<std::vector<int64_t>> strides(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
      // Contiguous, then a permutation, a negative step or a broadcast now and then.
      std::vector<int64_t> s(static_cast<size_t>(ndim));
      int64_t step = 1;
      for (int d = ndim - 1; d >= 0; --d) {
        s[static_cast<size_t>(d)] = step;
        step *= shape[static_cast<size_t>(d)];
      }
      for (auto& v : s) {
        const unsigned r = gen() % 6;
        if (r == 0) v = 0;
        if (r == 1) v = -v;
        if (r == 2) v *= 3;
      }
      strides[static_cast<size_t>(k)] = s;
    }
    const int64_t* rows[dlnode::kMaxOperands] = {};
    for (int k = 0; k < n; ++k) rows[k] = strides[static_cast<size_t>(k)].data();
    const dlnode::OpPlan plan = dlnode::MakeOpPlan(ndim, shape.data(), n, rows);
    int64_t count = 1;
    for (const int64_t d : shape) count *= d;
    ASSERT_EQ(plan.count, count);
    ASSERT_LE(plan.ndim, ndim);
    for (int64_t i = 0; i < count; ++i) {
      int64_t got[dlnode::kMaxOperands];
      int64_t want[dlnode::kMaxOperands];
      dlnode::OpOffsets(plan, i, got);
      NaiveOffsets(ndim, shape.data(), n, strides, i, want);
      for (int k = 0; k < n; ++k) ASSERT_EQ(got[k], want[k]) << "trial " << trial << " i " << i;
    }
  }
}

TEST(ElementwiseMath, PlansCoalesce) {
  // Dense operands of [2, 3, 4] and a size-1 dim: one dimension, no division.
  const int64_t shape[4] = {2, 1, 3, 4};
  const int64_t dense[4] = {12, 12, 4, 1};
  const int64_t* rows[2] = {dense, dense};
  const dlnode::OpPlan plan = dlnode::MakeOpPlan(4, shape, 2, rows);
  EXPECT_EQ(plan.ndim, 1);
  EXPECT_EQ(plan.count, 24);
  // A broadcast row operand keeps two dimensions.
  const int64_t row[4] = {0, 0, 0, 1};
  const int64_t* mixed[2] = {dense, row};
  EXPECT_EQ(dlnode::MakeOpPlan(4, shape, 2, mixed).ndim, 2);
  // Zero elements: count 0.
  const int64_t empty[2] = {0, 5};
  const int64_t s2[2] = {5, 1};
  const int64_t* rows2[2] = {s2, s2};
  EXPECT_EQ(dlnode::MakeOpPlan(2, empty, 2, rows2).count, 0);
}

// The row reduction the kernel runs (one block per row, math::ReduceRow's
// order): float sums within a few ulp of the exact sum at every length, the
// integers' wrapping sum and max/min exact, NaN propagated.
TEST(ElementwiseMath, RowReductions) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> unit(0.0F, 1.0F);
  for (const int64_t n : {0, 1, 2, 255, 256, 257, 1000, 100000, 1 << 20}) {
    std::vector<float> f(static_cast<size_t>(n));
    std::vector<double> d(static_cast<size_t>(n));
    std::vector<int64_t> k(static_cast<size_t>(n));
    long double exact_f = 0;
    long double exact_d = 0;
    uint64_t wrapped = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      f[i] = unit(gen);
      d[i] = static_cast<double>(unit(gen)) * 1e3;
      k[i] = static_cast<int64_t>(gen()) * 1000003 - (int64_t{1} << 62);
      exact_f += f[i];
      exact_d += d[i];
      wrapped += static_cast<uint64_t>(k[i]);
    }
    SCOPED_TRACE(n);
    const float sum_f = math::ReduceRow<float>(math::RowOp::kSum, f.data(), n);
    EXPECT_LE(std::fabs(static_cast<long double>(sum_f) - exact_f), 4e-7L * exact_f + 1e-30L);
    const double sum_d = math::ReduceRow<double>(math::RowOp::kSum, d.data(), n);
    EXPECT_LE(std::fabs(static_cast<long double>(sum_d) - exact_d), 1e-15L * exact_d + 1e-300L);
    EXPECT_EQ(static_cast<uint64_t>(math::ReduceRow<int64_t>(math::RowOp::kSum, k.data(), n)),
              wrapped);
    if (n == 0) continue;
    EXPECT_EQ(math::ReduceRow<int64_t>(math::RowOp::kMax, k.data(), n),
              *std::max_element(k.begin(), k.end()));
    EXPECT_EQ(math::ReduceRow<int64_t>(math::RowOp::kMin, k.data(), n),
              *std::min_element(k.begin(), k.end()));
    EXPECT_EQ(math::ReduceRow<float>(math::RowOp::kMax, f.data(), n),
              *std::max_element(f.begin(), f.end()));
    f[static_cast<size_t>(n / 2)] = NAN;
    EXPECT_TRUE(std::isnan(math::ReduceRow<float>(math::RowOp::kMax, f.data(), n)));
    EXPECT_TRUE(std::isnan(math::ReduceRow<float>(math::RowOp::kMin, f.data(), n)));
    EXPECT_TRUE(std::isnan(math::ReduceRow<float>(math::RowOp::kSum, f.data(), n)));
  }
  const uint64_t big[3] = {~uint64_t{0}, 1, uint64_t{1} << 63};
  EXPECT_EQ(math::ReduceRow<uint64_t>(math::RowOp::kMax, big, 3), ~uint64_t{0});
  EXPECT_EQ(math::ReduceRow<uint64_t>(math::RowOp::kMin, big, 3), 1U);
}

// A row of `n` drawn from edge values (NaN, +-inf, -0/+0, ties) and randoms.
template <typename T>
std::vector<T> EdgeRow(std::mt19937& gen, int64_t n, bool with_nan) {
  std::vector<T> row(static_cast<size_t>(n));
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<int> small(-3, 3);
  for (T& x : row) {
    const int c = pick(gen);
    if constexpr (std::is_floating_point<T>::value) {
      const T inf = std::numeric_limits<T>::infinity();
      const T edge[] = {with_nan ? static_cast<T>(NAN) : T(1), inf, -inf, T(-0.0), T(0)};
      x = c < 5 ? edge[c] : static_cast<T>(small(gen));
    } else {
      x = static_cast<T>(small(gen));
      if (c == 0) x = std::numeric_limits<T>::max();
      if (c == 1) x = std::numeric_limits<T>::min();
    }
  }
  return row;
}

template <typename T>
dlnode::StridedInput RowInput(const std::vector<T>& row, Scalar type, const int64_t* shape) {
  static const int64_t kDense[1] = {1};
  return {reinterpret_cast<const char*>(row.data()), type, 1, shape, kDense};
}

// The pick tree (k = 1) gives the host engine's argmax/argmin and value bits.
template <typename T>
void PicksMatchTheHost(Scalar type) {
  std::mt19937 gen(11);
  const int64_t zero[1] = {0};
  for (int64_t n = 1; n <= 1000; n += (n < 300 ? 1 : 37)) {
    for (const bool nan : {false, true}) {
      const std::vector<T> row = EdgeRow<T>(gen, n, nan);
      const int64_t shape[1] = {n};
      for (const bool largest : {true, false}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " largest " << largest << " nan " << nan);
        T value{};
        int64_t index = -1;
        dlnode::ArgExtreme(largest ? dlnode::ReduceOp::kMax : dlnode::ReduceOp::kMin,
                           RowInput(row, type, shape), 0, reinterpret_cast<char*>(&value), &index,
                           zero);
        const math::RowPick<T> p = math::PickRow<T>({largest, true}, row.data(), n, {T(0), -1});
        ASSERT_EQ(p.index, index);
        EXPECT_EQ(BitsOf(p.value), BitsOf(value));
      }
    }
  }
}

TEST(ElementwiseMath, RowPicksAreTheHostArgExtremes) {
  PicksMatchTheHost<float>(Scalar::kFloat32);
  PicksMatchTheHost<double>(Scalar::kFloat64);
  PicksMatchTheHost<int64_t>(Scalar::kInt64);
  PicksMatchTheHost<uint64_t>(Scalar::kUint64);
}

// k rounds of the pick rule (each after the last pick) give the host topk,
// in its order, for every k, ties and NaN included.
template <typename T>
void TopkRoundsMatchTheHost(Scalar type) {
  std::mt19937 gen(5);
  for (const int64_t n : {1, 2, 3, 7, 40, 257, 300}) {
    const std::vector<T> row = EdgeRow<T>(gen, n, true);
    const int64_t shape[1] = {n};
    const int64_t one[1] = {1};
    for (const bool largest : {true, false}) {
      for (int64_t k = 1; k <= n; k += (n < 50 ? 1 : 13)) {
        SCOPED_TRACE(testing::Message() << "n " << n << " k " << k << " largest " << largest);
        std::vector<T> values(static_cast<size_t>(k));
        std::vector<int64_t> indices(static_cast<size_t>(k));
        dlnode::TopK(RowInput(row, type, shape), 0, k, largest, true,
                     reinterpret_cast<char*>(values.data()), indices.data(), one);
        math::RowPick<T> after{T(0), -1};
        for (int64_t j = 0; j < k; ++j) {
          after = math::PickRow<T>({largest, largest}, row.data(), n, after);
          ASSERT_EQ(after.index, indices[static_cast<size_t>(j)]) << "pick " << j;
          EXPECT_EQ(BitsOf(after.value), BitsOf(values[static_cast<size_t>(j)]));
        }
      }
    }
  }
}

TEST(ElementwiseMath, TopkRoundsAreTheHostTopk) {
  TopkRoundsMatchTheHost<float>(Scalar::kFloat32);
  TopkRoundsMatchTheHost<double>(Scalar::kFloat64);
  TopkRoundsMatchTheHost<int64_t>(Scalar::kInt64);
}

// The one-launch softmax row (the kernel's order, on one thread) is the host
// softmax within a few ulp, and its values sum to 1.
template <typename T>
void SoftmaxMatchesTheHost(Scalar type, T tolerance) {
  std::mt19937 gen(3);
  std::normal_distribution<T> normal(T(0), T(4));
  const int64_t one[1] = {1};
  for (const int64_t n : {1, 2, 5, 255, 256, 257, 1000, 4097}) {
    std::vector<T> row(static_cast<size_t>(n));
    for (T& x : row) x = normal(gen);
    const int64_t shape[1] = {n};
    for (const bool log : {false, true}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " log " << log);
      std::vector<T> host(row.size());
      std::vector<T> twin(row.size());
      dlnode::Softmax(log ? dlnode::ReduceOp::kLogSoftmax : dlnode::ReduceOp::kSoftmax,
                      RowInput(row, type, shape), 0, reinterpret_cast<char*>(host.data()), one);
      math::SoftmaxRow<T>(log, row.data(), twin.data(), n);
      long double total = 0;
      for (size_t i = 0; i < row.size(); ++i) {
        // Relative, and for logSoftmax also absolute (x - top - log(sum) near
        // 0 is a difference of close values).
        const T scale = std::fabs(host[i]) + (log ? T(1) : T(1e-30));
        ASSERT_NEAR(twin[i], host[i], tolerance * scale) << i;
        total += log ? std::exp(static_cast<long double>(twin[i])) : twin[i];
      }
      EXPECT_NEAR(static_cast<double>(total), 1.0, static_cast<double>(tolerance) * n);
    }
  }
  // A NaN makes the row NaN; an all -inf row is NaN too (as on the host).
  const T bad[3] = {T(1), static_cast<T>(NAN), T(2)};
  T out[3];
  math::SoftmaxRow<T>(false, bad, out, 3);
  for (const T x : out) EXPECT_TRUE(std::isnan(x));
}

TEST(ElementwiseMath, SoftmaxRowIsTheHostSoftmax) {
  SoftmaxMatchesTheHost<float>(Scalar::kFloat32, 4e-6F);
  SoftmaxMatchesTheHost<double>(Scalar::kFloat64, 1e-13);
}

// A row whose float sums change bits with any change of the order of the
// additions: magnitudes from 2^-20 to 2^20 of both signs, and edge values
// (NaN where `with_nan`, +-inf, -0 and +0, ties) now and then.
template <typename T>
std::vector<T> OrderSensitiveRow(std::mt19937& gen, int64_t n, bool with_nan) {
  std::vector<T> row = EdgeRow<T>(gen, n, with_nan);
  if constexpr (std::is_floating_point<T>::value) {
    std::uniform_real_distribution<T> unit(T(-1), T(1));
    std::uniform_int_distribution<int> scale(-20, 20);
    std::uniform_int_distribution<int> pick(0, 19);
    for (T& x : row) {
      if (pick(gen) != 0) x = std::ldexp(unit(gen), scale(gen));
    }
  } else {
    // In uint64_t, whose overflow wraps (int64_t's is undefined: UBSan).
    for (T& x : row)
      x = static_cast<T>(static_cast<uint64_t>(gen()) * uint64_t{2654435761U} + gen());
  }
  return row;
}

// The warp a row (a lane standing for kLaneThreads threads: LaneTree, then
// the warp's shuffles) gives the block tree's bits, for every row length a
// warp takes and past it, each op, with NaN, infinities, signed zeros and
// sums whose bits move with the order; a pairing other than the block
// tree's fails here.
template <typename T>
void WarpReducesAsTheBlock() {
  std::mt19937 gen(13);
  for (int64_t n = 0; n <= 1100; n += (n < 600 ? 1 : 7)) {
    for (const bool nan : {false, true}) {
      const std::vector<T> row = OrderSensitiveRow<T>(gen, n, nan);
      for (const math::RowOp op : {math::RowOp::kSum, math::RowOp::kMax, math::RowOp::kMin}) {
        SCOPED_TRACE(testing::Message()
                     << "n " << n << " op " << static_cast<int>(op) << " nan " << nan);
        const T warp = math::ReduceRowByWarp<T>(op, row.data(), n);
        const T block = math::ReduceRow<T>(op, row.data(), n);
        // A NaN's sign and payload are not the order's: the compiler may
        // swap the operands of an addition (inf + -inf and NaN + NaN give
        // either sign at -O3), so a NaN only has to be NaN on both.
        if (math::IsNan(block)) {
          ASSERT_TRUE(math::IsNan(warp));
        } else {
          ASSERT_EQ(BitsOf(warp), BitsOf(block));
        }
      }
    }
  }
}

TEST(ElementwiseMath, WarpRowReductionsAreTheBlocks) {
  WarpReducesAsTheBlock<float>();
  WarpReducesAsTheBlock<double>();
  WarpReducesAsTheBlock<int64_t>();
  WarpReducesAsTheBlock<uint64_t>();
}

// A row's float sum keeps its infinities: the compensation of Kahan's step
// once the sum is infinite would be inf - inf, and a row of -inf summed to
// NaN on an H200 (2026-11-28) where the host engine gives -inf. The block's
// and the warp's order, every thread with zero, one or several infinities.
template <typename T>
void RowSumsKeepInfinities() {
  const T inf = std::numeric_limits<T>::infinity();
  for (const int64_t n : {1, 2, 255, 256, 257, 300, 513, 1024, 3000}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    std::vector<T> row(static_cast<size_t>(n), -inf);
    EXPECT_EQ(math::ReduceRow<T>(math::RowOp::kSum, row.data(), n), -inf);
    EXPECT_EQ(math::ReduceRowByWarp<T>(math::RowOp::kSum, row.data(), n), -inf);
    std::fill(row.begin(), row.end(), T(1.5));
    row[0] = inf;
    row[static_cast<size_t>(n - 1)] = inf;
    EXPECT_EQ(math::ReduceRow<T>(math::RowOp::kSum, row.data(), n), inf);
    EXPECT_EQ(math::ReduceRowByWarp<T>(math::RowOp::kSum, row.data(), n), inf);
    if (n > 1) {
      row[static_cast<size_t>(n / 2)] = -inf;  // inf + -inf
      EXPECT_TRUE(std::isnan(math::ReduceRow<T>(math::RowOp::kSum, row.data(), n)));
      EXPECT_TRUE(std::isnan(math::ReduceRowByWarp<T>(math::RowOp::kSum, row.data(), n)));
    }
  }
}

TEST(ElementwiseMath, RowSumsKeepInfinities) {
  RowSumsKeepInfinities<float>();
  RowSumsKeepInfinities<double>();
}

// The same for softmax and logSoftmax, every output element's bits: rows of
// normal values, of order-sensitive ones, with NaN, with -inf (an all -inf
// row is NaN), with +inf.
template <typename T>
void WarpSoftmaxIsTheBlocks() {
  std::mt19937 gen(17);
  std::normal_distribution<T> normal(T(0), T(4));
  for (int64_t n = 1; n <= 1100; n += (n < 600 ? 1 : 7)) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<T> row(static_cast<size_t>(n));
      if (kind == 0) {
        for (T& x : row) x = normal(gen);
      } else {
        row = OrderSensitiveRow<T>(gen, n, kind == 2);
        if (kind == 3) std::fill(row.begin(), row.end(), -std::numeric_limits<T>::infinity());
      }
      for (const bool log : {false, true}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " kind " << kind << " log " << log);
        std::vector<T> block(row.size());
        std::vector<T> warp(row.size());
        math::SoftmaxRow<T>(log, row.data(), block.data(), n);
        math::SoftmaxRowByWarp<T>(log, row.data(), warp.data(), n);
        for (size_t i = 0; i < row.size(); ++i) {
          ASSERT_EQ(BitsOf(warp[i]), BitsOf(block[i])) << i;
        }
      }
    }
  }
}

TEST(ElementwiseMath, WarpSoftmaxRowsAreTheBlocks) {
  WarpSoftmaxIsTheBlocks<float>();
  WarpSoftmaxIsTheBlocks<double>();
}

}  // namespace
