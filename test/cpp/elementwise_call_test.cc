// The one entry of an elementwise op (src/core/compute/elementwise_call.h):
// the host fork gives the host engine's elements, a refusal is a coded
// failure with nothing written, operand types follow the op (comparisons
// write bool, where()'s condition is bool), and a CUDA device's call in a
// build without CUDA (or on a machine without a device) is the coded
// unavailable failure. The kernel's arithmetic is elementwise_math_test.cc's;
// test/cuda-ops.test.js runs the device fork where a GPU is.
#include "compute/elementwise_call.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda_runtime.h"

namespace dlnode {
namespace {

TEST(ElementwiseCallTest, TheHostForkIsTheEngine) {
  std::vector<float> a = {1, 2, 3, 4};
  std::vector<float> b = {10, 20, 30, 40};
  std::vector<float> viaCall(4);
  std::vector<float> viaEngine(4);
  const int64_t shape[] = {4};
  const int64_t dense[] = {1};
  const Operand in[] = {{reinterpret_cast<char*>(a.data()), dense},
                        {reinterpret_cast<char*>(b.data()), dense}};
  ElementwiseCall call;
  call.op = ElementwiseOp::kMul;
  call.ndim = 1;
  call.shape = shape;
  call.out = Operand{reinterpret_cast<char*>(viaCall.data()), dense};
  call.in = in;
  ASSERT_TRUE(RunElementwise(call).ok());
  ASSERT_TRUE(Elementwise(ElementwiseOp::kMul, Scalar::kFloat32, 1, shape,
                          Operand{reinterpret_cast<char*>(viaEngine.data()), dense}, in));
  EXPECT_EQ(viaCall, viaEngine);
  EXPECT_EQ(viaCall, (std::vector<float>{10, 40, 90, 160}));
}

TEST(ElementwiseCallTest, ARefusalIsCodedAndWritesNothing) {
  std::vector<int32_t> a = {7, 8};
  std::vector<int32_t> out = {-1, -1};
  const int64_t shape[] = {2};
  const int64_t dense[] = {1};
  const Operand in[] = {{reinterpret_cast<char*>(a.data()), dense}};
  ElementwiseCall call;
  call.op = ElementwiseOp::kExp;  // no integer exp: lib/ops.js converts first
  call.type = Scalar::kInt32;
  call.ndim = 1;
  call.shape = shape;
  call.out = Operand{reinterpret_cast<char*>(out.data()), dense};
  call.in = in;
  const ElementwiseResult result = RunElementwise(call);
  EXPECT_EQ(result.failure, ElementwiseFailure::kRefused);
  EXPECT_STREQ(result.code(), "ERR_DLPACK_UNSUPPORTED");
  EXPECT_EQ(out, (std::vector<int32_t>{-1, -1}));
}

TEST(ElementwiseCallTest, OperandTypesFollowTheOp) {
  EXPECT_EQ(ElementwiseOperandType(ElementwiseOp::kLt, Scalar::kInt16, 0), Scalar::kBool);
  EXPECT_EQ(ElementwiseOperandType(ElementwiseOp::kLt, Scalar::kInt16, 1), Scalar::kInt16);
  EXPECT_EQ(ElementwiseOperandType(ElementwiseOp::kWhere, Scalar::kFloat64, 0), Scalar::kFloat64);
  EXPECT_EQ(ElementwiseOperandType(ElementwiseOp::kWhere, Scalar::kFloat64, 1), Scalar::kBool);
  EXPECT_EQ(ElementwiseOperandType(ElementwiseOp::kWhere, Scalar::kFloat64, 2), Scalar::kFloat64);
  EXPECT_EQ(ElementwiseOperandType(ElementwiseOp::kAdd, Scalar::kUint8, 0), Scalar::kUint8);
}

TEST(ElementwiseCallTest, ADeviceCallWithoutCudaIsUnavailable) {
  int devices = 0;
  if (cuda::Compiled() && cuda::DeviceCount(&devices).ok && devices > 0) {
    GTEST_SKIP() << "a CUDA device is present: test/cuda-ops.test.js runs the device fork";
  }
  std::vector<float> a = {1};
  std::vector<float> out = {-1};
  const int64_t shape[] = {1};
  const int64_t dense[] = {1};
  const Operand in[] = {{reinterpret_cast<char*>(a.data()), dense}};
  ElementwiseCall call;
  call.op = ElementwiseOp::kNeg;
  call.device = 0;
  call.stream = 1;
  call.ndim = 1;
  call.shape = shape;
  call.out = Operand{reinterpret_cast<char*>(out.data()), dense};
  call.in = in;
  const ElementwiseResult result = RunElementwise(call);
  EXPECT_EQ(result.failure, ElementwiseFailure::kCudaUnavailable);
  EXPECT_STREQ(result.code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
  EXPECT_NE(result.message.find("the elementwise kernel on device 0"), std::string::npos)
      << result.message;
  EXPECT_EQ(out[0], -1.0F);
}

}  // namespace
}  // namespace dlnode
