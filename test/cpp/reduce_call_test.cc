// The reductions' one entry (src/core/compute/reduce_call.h RunReduce): the
// host fork is the engine (reduce.h), bit for bit; a device's call is the
// row kernels where PlanDeviceRows takes the operands (dense rows in the
// computing dtype, the reduced dims last), kNotOnDevice with nothing written
// where it does not (lib/reduce.js then stages them: one permute and
// conversion copy), and the coded unavailable failure in a build or on a
// machine without CUDA. The kernels' arithmetic runs in test/cuda-ops.test.js.
#include "compute/reduce_call.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_runtime.h"

namespace dlnode {
namespace {

bool HasDevice() {
  int devices = 0;
  return cuda::Compiled() && cuda::DeviceCount(&devices).ok && devices > 0;
}

// A [2, 3] input of `type` at `strides` over `data`, reduced over its last dim.
ReduceCall RowSums(const void* data, Scalar type, const int64_t* shape, const int64_t* strides,
                   void* out) {
  ReduceCall call;
  call.op = ReduceOp::kSum;
  call.in = StridedInput{static_cast<const char*>(data), type, 2, shape, strides};
  call.reduced = 1;
  call.values = static_cast<char*>(out);
  return call;
}

TEST(ReduceCallTest, TheHostForkIsTheEngine) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  const int64_t dense[] = {3, 1};
  std::vector<float> out(2, -1.0F);
  std::vector<float> engine(2, -1.0F);
  const ReduceCall call = RowSums(x.data(), Scalar::kFloat32, shape, dense, out.data());
  ASSERT_TRUE(RunReduce(call).ok());
  Reduce(ReduceOp::kSum, call.in, 1, reinterpret_cast<char*>(engine.data()));
  EXPECT_EQ(out, engine);
  EXPECT_EQ(out, (std::vector<float>{6, 15}));

  // topk along dim 0 of the same input read transposed ([3, 2] at [1, 3]).
  const int64_t tshape[] = {3, 2};
  const int64_t tstrides[] = {1, 3};
  const int64_t out_strides[] = {2, 1};
  std::vector<float> values(4, -1.0F);
  std::vector<int64_t> indices(4, -1);
  ReduceCall picks;
  picks.op = ReduceOp::kTopk;
  picks.in =
      StridedInput{reinterpret_cast<const char*>(x.data()), Scalar::kFloat32, 2, tshape, tstrides};
  picks.dim = 0;
  picks.k = 2;
  picks.out_strides = out_strides;
  picks.values = reinterpret_cast<char*>(values.data());
  picks.indices = indices.data();
  ASSERT_TRUE(RunReduce(picks).ok());
  EXPECT_EQ(values, (std::vector<float>{3, 6, 2, 5}));
  EXPECT_EQ(indices, (std::vector<int64_t>{2, 2, 1, 1}));
}

TEST(ReduceCallTest, ThePlannerTakesDenseRowsInTheComputingType) {
  const std::vector<float> x(6, 1.0F);
  std::vector<float> out(6);
  const int64_t shape[] = {2, 3};
  const int64_t dense[] = {3, 1};
  const int64_t permuted[] = {1, 2};  // a transposed [3, 2] read as [2, 3]
  DeviceRowPlan plan;

  ReduceCall call = RowSums(x.data(), Scalar::kFloat32, shape, dense, out.data());
  ASSERT_TRUE(PlanDeviceRows(call, &plan));
  EXPECT_EQ(plan.rows, 2);
  EXPECT_EQ(plan.n, 3);
  call.reduced = 2;  // all: one row
  ASSERT_TRUE(PlanDeviceRows(call, &plan));
  EXPECT_EQ(plan.rows, 1);
  EXPECT_EQ(plan.n, 6);

  // Strided, not the computing type, a sum whose result is of another type,
  // a mean (the caller divides a sum): staged by the caller.
  EXPECT_FALSE(
      PlanDeviceRows(RowSums(x.data(), Scalar::kFloat32, shape, permuted, out.data()), &plan));
  EXPECT_FALSE(
      PlanDeviceRows(RowSums(x.data(), Scalar::kFloat16, shape, dense, out.data()), &plan));
  EXPECT_FALSE(PlanDeviceRows(RowSums(x.data(), Scalar::kInt32, shape, dense, out.data()), &plan));
  EXPECT_FALSE(PlanDeviceRows(RowSums(x.data(), Scalar::kUint64, shape, dense, out.data()), &plan));
  ReduceCall mean = RowSums(x.data(), Scalar::kFloat32, shape, dense, out.data());
  mean.op = ReduceOp::kMean;
  EXPECT_FALSE(PlanDeviceRows(mean, &plan));

  // Along a dim: the last one, results dense; a softmax not in place.
  const int64_t results[] = {3, 1};
  ReduceCall soft;
  soft.op = ReduceOp::kSoftmax;
  soft.in =
      StridedInput{reinterpret_cast<const char*>(x.data()), Scalar::kFloat32, 2, shape, dense};
  soft.dim = 1;
  soft.out_strides = results;
  soft.values = reinterpret_cast<char*>(out.data());
  ASSERT_TRUE(PlanDeviceRows(soft, &plan));
  EXPECT_EQ(plan.rows, 2);
  EXPECT_EQ(plan.n, 3);
  EXPECT_EQ(plan.k, 3);
  soft.dim = 0;
  EXPECT_FALSE(PlanDeviceRows(soft, &plan));
  soft.dim = 1;
  const int64_t column[] = {1, 2};
  soft.out_strides = column;
  EXPECT_FALSE(PlanDeviceRows(soft, &plan));
  soft.out_strides = results;
  soft.values = const_cast<char*>(reinterpret_cast<const char*>(x.data()));  // in place
  EXPECT_FALSE(PlanDeviceRows(soft, &plan));

  std::vector<int64_t> indices(4);
  const int64_t picked[] = {2, 1};
  ReduceCall top;
  top.op = ReduceOp::kTopk;
  top.in = soft.in;
  top.dim = 1;
  top.k = 2;
  top.out_strides = picked;
  top.values = reinterpret_cast<char*>(out.data());
  top.indices = indices.data();
  ASSERT_TRUE(PlanDeviceRows(top, &plan));
  EXPECT_EQ(plan.k, 2);
  top.k = 4;  // more than the row
  EXPECT_FALSE(PlanDeviceRows(top, &plan));
}

// Every dtype an op takes is staged in one the planner takes (a mean as the
// sum it is staged as): lib/reduce.js staged() calls again after one
// conversion, and a refusal then would be a second kNotOnDevice, which it
// cannot stage further.
TEST(ReduceCallTest, EveryStagedTypeIsOneThePlannerTakes) {
  std::vector<double> in(6, 1.0);
  std::vector<double> out(6);
  std::vector<int64_t> indices(6);
  const int64_t shape[] = {2, 3};
  const int64_t dense[] = {3, 1};
  const int64_t picked[] = {1, 1};  // [2, 1]: one pick a row
  int planned = 0;
  for (int op = 0; op < kReduceOpCount; ++op) {
    for (int t = 0; t < kScalarCount; ++t) {
      const ReduceOp reduce = static_cast<ReduceOp>(op);
      const Scalar type = static_cast<Scalar>(t);
      Scalar result = type;
      if (!ResultType(reduce, type, &result)) continue;
      Scalar staged = type;
      const bool complex = type == Scalar::kComplex64 || type == Scalar::kComplex128;
      ASSERT_EQ(StagedType(reduce, type, &staged), !complex) << op << " " << t;
      if (complex) continue;
      ReduceCall call;
      call.op = reduce == ReduceOp::kMean ? ReduceOp::kSum : reduce;
      call.device = 0;
      call.in = StridedInput{reinterpret_cast<const char*>(in.data()), staged, 2, shape, dense};
      call.values = reinterpret_cast<char*>(out.data());
      if (ReducesDims(reduce)) {
        call.reduced = 1;
      } else {
        const bool softmax = reduce == ReduceOp::kSoftmax || reduce == ReduceOp::kLogSoftmax;
        call.dim = 1;
        call.k = 1;
        call.out_strides = softmax ? dense : picked;
        call.indices = softmax ? nullptr : indices.data();
      }
      DeviceRowPlan plan;
      EXPECT_TRUE(PlanDeviceRows(call, &plan)) << "op " << op << ", dtype " << t;
      ++planned;
    }
  }
  EXPECT_GT(planned, 50);  // the table is not empty
}

TEST(ReduceCallTest, ADeviceCallIsStagedOrUnavailable) {
  if (HasDevice()) {
    GTEST_SKIP() << "a CUDA device is present: test/cuda-ops.test.js runs the device fork";
  }
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  const int64_t dense[] = {3, 1};
  const int64_t permuted[] = {1, 2};
  std::vector<float> out(2, -1.0F);

  ReduceCall strided = RowSums(x.data(), Scalar::kFloat32, shape, permuted, out.data());
  strided.device = 0;
  const ReduceResult staged = RunReduce(strided);
  EXPECT_EQ(staged.failure, ReduceFailure::kNotOnDevice);
  EXPECT_STREQ(staged.code(), "ERR_DLPACK_UNSUPPORTED");
  EXPECT_EQ(out, std::vector<float>(2, -1.0F));

  ReduceCall rows = RowSums(x.data(), Scalar::kFloat32, shape, dense, out.data());
  rows.device = 0;
  const ReduceResult result = RunReduce(rows);
  EXPECT_EQ(result.failure, ReduceFailure::kCudaUnavailable);
  EXPECT_STREQ(result.code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
  EXPECT_NE(result.message.find("the reduction kernel on device 0"), std::string::npos)
      << result.message;
  EXPECT_EQ(out, std::vector<float>(2, -1.0F));
}

}  // namespace
}  // namespace dlnode
