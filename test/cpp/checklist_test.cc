// The import checklist (CheckTensor) on hand-built DLTensors: one test per
// rule that rejects, and the layouts of the tensors it accepts.
#include "checklist.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "test_dtypes.h"

namespace {

using dlnode::CheckFailure;
using dlnode::CheckResult;
using dlnode::CheckTensor;
using dlnode::ComputeExtent;
using dlnode::Dtypes;
using dlnode::Layout;
using dlnode_test::Dtype;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

void* Address(uintptr_t a) { return reinterpret_cast<void*>(a); }

// A DLTensor whose shape and strides arrays live as long as the builder.
// Defaults: a CPU float32 tensor over a real buffer.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  bool null_shape = false;
  bool null_strides = false;
  DLTensor t{};

  Tensor(std::vector<int64_t> shape_in, std::vector<int64_t> strides_in, void* data,
         DLDataType dtype = Dtype(kDLFloat, 32))
      : shape(std::move(shape_in)), strides(std::move(strides_in)) {
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = dtype;
    t.byte_offset = 0;
  }

  // Pointers are taken at the last moment so the vectors can be edited.
  const DLTensor& get() {
    t.shape = null_shape || shape.empty() ? nullptr : shape.data();
    t.strides = null_strides || strides.empty() ? nullptr : strides.data();
    return t;
  }
};

class CheckTensorTest : public ::testing::Test {
 protected:
  CheckResult Check(Tensor& tensor, bool null_strides_ok = false) {
    return CheckTensor(tensor.get(), null_strides_ok, dtypes_, &layout_);
  }
  void ExpectFailure(Tensor& tensor, CheckFailure failure, const char* fragment,
                     bool null_strides_ok = false) {
    const CheckResult r = Check(tensor, null_strides_ok);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.failure, failure) << r.message;
    EXPECT_NE(r.message.find(fragment), std::string::npos)
        << "message \"" << r.message << "\" lacks \"" << fragment << "\"";
  }

  dlnode::DtypeTable dtypes_ = Dtypes();
  Layout layout_;
  alignas(16) char buffer_[4096] = {};
};

// --- failures, one per rule -------------------------------------------------

TEST_F(CheckTensorTest, RejectsNegativeNdim) {
  Tensor tensor({}, {}, buffer_);
  tensor.t.ndim = -1;
  ExpectFailure(tensor, CheckFailure::kNdim, "received -1");
}

TEST_F(CheckTensorTest, RejectsNdimAboveSixtyFour) {
  std::vector<int64_t> ones(65, 1);
  Tensor tensor(ones, ones, buffer_);
  ASSERT_EQ(tensor.t.ndim, 65);
  ExpectFailure(tensor, CheckFailure::kNdim, "received 65");
}

TEST_F(CheckTensorTest, AcceptsNdimSixtyFour) {
  std::vector<int64_t> ones(64, 1);
  Tensor tensor(ones, ones, buffer_);
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.ndim, 64);
  EXPECT_EQ(layout_.size, 1u);
  EXPECT_EQ(layout_.high, 4u);
}

TEST_F(CheckTensorTest, RejectsCudaDeviceWhereCudaIsNotAllowed) {
  Tensor tensor({4}, {1}, buffer_);
  tensor.t.device = {kDLCUDA, 0};
  ExpectFailure(tensor, CheckFailure::kNoCuda, "received device type 2");
  EXPECT_STREQ(Check(tensor).code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
  tensor.t.device = {kDLROCM, 0};
  ExpectFailure(tensor, CheckFailure::kDevice, "received device type 10");
  EXPECT_STREQ(Check(tensor).code(), "ERR_DLPACK_UNSUPPORTED");
}

TEST_F(CheckTensorTest, AdmitsCudaOnlyWithANonNegativeDeviceIdWhereCudaIsAllowed) {
  Tensor tensor({4}, {1}, buffer_);
  tensor.t.device = {kDLCUDA, 1};
  ASSERT_TRUE(CheckTensor(tensor.get(), false, dtypes_, &layout_, true).ok());
  EXPECT_EQ(layout_.device.device_id, 1);
  tensor.t.device = {kDLCUDA, -1};
  const CheckResult r = CheckTensor(tensor.get(), false, dtypes_, &layout_, true);
  EXPECT_EQ(r.failure, CheckFailure::kDevice);
  EXPECT_NE(r.message.find("non-negative device_id"), std::string::npos) << r.message;
}

TEST_F(CheckTensorTest, RejectsOpenClDevice) {
  Tensor tensor({4}, {1}, buffer_);
  tensor.t.device = {kDLOpenCL, 0};
  ExpectFailure(tensor, CheckFailure::kDevice, "received device type 4");
}

TEST_F(CheckTensorTest, AcceptsHostAccessibleDevicesAndKeepsTheDeviceId) {
  for (DLDeviceType type : {kDLCPU, kDLCUDAHost, kDLCUDAManaged}) {
    Tensor tensor({4}, {1}, buffer_);
    tensor.t.device = {type, 3};
    ASSERT_TRUE(Check(tensor).ok()) << "device type " << type;
    EXPECT_EQ(layout_.device.device_type, type);
    EXPECT_EQ(layout_.device.device_id, 3);
  }
}

TEST(IsHostAccessible, OnlyCpuPinnedAndManaged) {
  for (int32_t type = -1; type <= 20; ++type) {
    const bool expected = type == kDLCPU || type == kDLCUDAHost || type == kDLCUDAManaged;
    EXPECT_EQ(dlnode::IsHostAccessible(type), expected) << "device type " << type;
  }
}

TEST_F(CheckTensorTest, RejectsVectorLanes) {
  Tensor tensor({4}, {1}, buffer_, Dtype(kDLFloat, 32, 4));
  ExpectFailure(tensor, CheckFailure::kLanes, "received 4");
}

TEST_F(CheckTensorTest, RejectsZeroLanes) {
  Tensor tensor({4}, {1}, buffer_, Dtype(kDLFloat, 32, 0));
  ExpectFailure(tensor, CheckFailure::kLanes, "received 0");
}

TEST_F(CheckTensorTest, RejectsFloat8) {
  Tensor tensor({4}, {1}, buffer_, Dtype(kDLFloat, 8));
  ExpectFailure(tensor, CheckFailure::kDtype, "code 2 bits 8");
}

TEST_F(CheckTensorTest, RejectsSixteenBitBool) {
  Tensor tensor({4}, {1}, buffer_, Dtype(kDLBool, 16));
  ExpectFailure(tensor, CheckFailure::kDtype, "code 6 bits 16");
}

TEST_F(CheckTensorTest, RejectsOpaqueHandle) {
  Tensor tensor({4}, {1}, buffer_, Dtype(kDLOpaqueHandle, 64));
  ExpectFailure(tensor, CheckFailure::kDtype, "code 3 bits 64");
}

TEST_F(CheckTensorTest, RejectsNullShapeWithPositiveNdim) {
  Tensor tensor({2, 3}, {3, 1}, buffer_);
  tensor.null_shape = true;
  ExpectFailure(tensor, CheckFailure::kShape, "received NULL");
}

TEST_F(CheckTensorTest, RejectsNegativeDim) {
  Tensor tensor({2, -3}, {3, 1}, buffer_);
  ExpectFailure(tensor, CheckFailure::kShape, "shape[1]");
}

TEST_F(CheckTensorTest, RejectsElementCountThatOverflowsUint64) {
  Tensor tensor({INT64_C(1) << 32, INT64_C(1) << 32}, {INT64_C(1) << 32, 1}, buffer_);
  ExpectFailure(tensor, CheckFailure::kShape, "element count");
}

TEST_F(CheckTensorTest, RejectsElementCountAboveSafeInteger) {
  Tensor tensor({INT64_C(1) << 27, INT64_C(1) << 26}, {INT64_C(1) << 26, 1}, buffer_,
                Dtype(kDLUInt, 8));
  ExpectFailure(tensor, CheckFailure::kShape, "element count");
}

TEST_F(CheckTensorTest, AcceptsElementCountAtSafeIntegerLimit) {
  // Nothing is dereferenced: the checklist only does arithmetic.
  const int64_t n = static_cast<int64_t>(dlnode::kMaxSafeInteger);
  Tensor tensor({n}, {1}, buffer_, Dtype(kDLUInt, 8));
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.size, dlnode::kMaxSafeInteger);
  EXPECT_EQ(layout_.extent(), dlnode::kMaxSafeInteger);
}

TEST_F(CheckTensorTest, RejectsNullStridesWhenTheVersionRequiresThem) {
  Tensor tensor({2, 3}, {}, buffer_);
  ExpectFailure(tensor, CheckFailure::kStrides, "received NULL", /*null_strides_ok=*/false);
}

TEST_F(CheckTensorTest, NullStridesMeanRowMajorWhenAllowed) {
  Tensor tensor({2, 3, 4}, {}, buffer_, Dtype(kDLInt, 16));
  ASSERT_TRUE(Check(tensor, /*null_strides_ok=*/true).ok());
  EXPECT_EQ(layout_.strides[0], 12);
  EXPECT_EQ(layout_.strides[1], 4);
  EXPECT_EQ(layout_.strides[2], 1);
  EXPECT_EQ(layout_.size, 24u);
  EXPECT_EQ(layout_.low, 0u);
  EXPECT_EQ(layout_.high, 48u);
}

TEST_F(CheckTensorTest, TheVersionDecidesFirstAndSaysWhenNullStridesAreRowMajor) {
  Tensor tensor({2, 3}, {}, buffer_);  // NULL strides
  const DLTensor& t = tensor.get();
  for (const DLPackVersion version :
       {DLPackVersion{0, 9}, DLPackVersion{1, 0}, DLPackVersion{1, 1}}) {
    EXPECT_TRUE(dlnode::CheckManagedTensor(&version, t, dtypes_, &layout_).ok()) << version.minor;
    EXPECT_EQ(layout_.strides[0], 3);
  }
  EXPECT_TRUE(dlnode::CheckManagedTensor(nullptr, t, dtypes_, &layout_).ok());  // legacy
  for (const DLPackVersion version :
       {DLPackVersion{1, 2}, DLPackVersion{1, 3}, DLPackVersion{1, 99}}) {
    EXPECT_EQ(dlnode::CheckManagedTensor(&version, t, dtypes_, &layout_).failure,
              CheckFailure::kStrides);
  }
  // An unknown major fails before the tensor is looked at, even a malformed one.
  Tensor bad({-1}, {1}, buffer_);
  const DLPackVersion two{2, 0};
  const CheckResult r = dlnode::CheckManagedTensor(&two, bad.get(), dtypes_, &layout_);
  EXPECT_EQ(r.failure, CheckFailure::kVersion);
  EXPECT_NE(r.message.find("received 2"), std::string::npos) << r.message;
}

TEST_F(CheckTensorTest, NullStridesOfAZeroSizeTensorStepOverTheZeroDim) {
  Tensor tensor({1, 8, 0, 128}, {}, nullptr);
  ASSERT_TRUE(Check(tensor, /*null_strides_ok=*/true).ok());
  EXPECT_EQ(layout_.strides[0], 1024);
  EXPECT_EQ(layout_.strides[1], 128);
  EXPECT_EQ(layout_.strides[2], 128);
  EXPECT_EQ(layout_.strides[3], 1);
  EXPECT_EQ(layout_.size, 0u);
}

TEST_F(CheckTensorTest, RejectsInt64MinStride) {
  Tensor tensor({2}, {kInt64Min}, buffer_);
  ExpectFailure(tensor, CheckFailure::kStrides, "strides[0]");
}

// Regressions: an empty tensor used to skip the safe-integer checks.
TEST_F(CheckTensorTest, RejectsHugeDimsOfAnEmptyTensor) {
  Tensor tensor({0, INT64_C(1) << 62}, {1, 1}, nullptr);
  ExpectFailure(tensor, CheckFailure::kShape, "shape[1] below 2^53");
}

TEST_F(CheckTensorTest, EmptyTensorVerdictDoesNotDependOnWhereTheZeroIs) {
  const int64_t big = INT64_C(1) << 40;
  Tensor first({0, big, big}, {1, 1, 1}, nullptr);
  Tensor last({big, big, 0}, {1, 1, 1}, nullptr);  // its count used to overflow before the 0
  ASSERT_TRUE(Check(first).ok());
  ASSERT_TRUE(Check(last).ok());
  EXPECT_EQ(layout_.size, 0u);
}

TEST_F(CheckTensorTest, UnrepresentableStrideOfASizeOneDimBecomesZero) {
  Tensor tensor({1, 3}, {kInt64Max, 1}, buffer_);
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.strides[0], 0);
  EXPECT_EQ(layout_.strides[1], 1);
}

TEST_F(CheckTensorTest, RejectsRowMajorStridesThatOverflowForAnEmptyTensor) {
  const int64_t d = INT64_C(1) << 40;
  Tensor tensor({0, d, d, d}, {}, nullptr);
  ExpectFailure(tensor, CheckFailure::kStrides, "strides overflow", /*null_strides_ok=*/true);
  Tensor smaller({0, INT64_C(1) << 30, INT64_C(1) << 30, INT64_C(1) << 30}, {}, nullptr);
  ExpectFailure(smaller, CheckFailure::kStrides, "strides overflow", /*null_strides_ok=*/true);
}

TEST_F(CheckTensorTest, UnrepresentableStridesOfAnEmptyTensorBecomeZero) {
  Tensor tensor({0, 2}, {INT64_C(1) << 60, 1}, nullptr);
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.strides[0], 0);
  EXPECT_EQ(layout_.size, 0u);
}

TEST_F(CheckTensorTest, RejectsStrideWhoseByteStepOverflows) {
  Tensor tensor({3}, {kInt64Max}, buffer_);
  ExpectFailure(tensor, CheckFailure::kStrides, "strides[0] within +-2^53");
  Tensor step({3}, {INT64_C(1) << 52}, buffer_, Dtype(kDLFloat, 64));  // 2^52 * 2 * 8 bytes
  ExpectFailure(step, CheckFailure::kStrides, "overflowing stride");
}

TEST_F(CheckTensorTest, RejectsExtentAboveSafeInteger) {
  // 2 * 2^50 elements * 8 bytes = 2^54 bytes.
  Tensor tensor({3}, {INT64_C(1) << 50}, buffer_, Dtype(kDLFloat, 64));
  ExpectFailure(tensor, CheckFailure::kStrides, "overflowing stride");
}

TEST_F(CheckTensorTest, RejectsExtentWhoseSidesSumAboveSafeInteger) {
  // Each side alone fits below 2^53; together they do not.
  Tensor tensor({2, 2}, {INT64_C(1) << 52, -(INT64_C(1) << 52)}, buffer_, Dtype(kDLUInt, 8));
  ExpectFailure(tensor, CheckFailure::kStrides, "overflowing stride");
}

TEST_F(CheckTensorTest, RejectsNullDataInANonEmptyTensor) {
  Tensor tensor({4}, {1}, nullptr);
  ExpectFailure(tensor, CheckFailure::kByteOffset, "non-NULL data");
}

TEST_F(CheckTensorTest, RejectsByteOffsetThatWrapsTheAddressSpace) {
  Tensor tensor({4}, {1}, buffer_);
  tensor.t.byte_offset = UINT64_MAX - 7;
  ExpectFailure(tensor, CheckFailure::kByteOffset, "received byte_offset");
}

TEST_F(CheckTensorTest, RejectsExtentPastTheTopOfTheAddressSpace) {
  Tensor tensor({100}, {1}, Address(UINTPTR_MAX - 64));
  ExpectFailure(tensor, CheckFailure::kByteOffset, "received byte_offset 0");
}

TEST_F(CheckTensorTest, RejectsNegativeStridesReachingBelowAddressZero) {
  // Element 99 would be at 0x10 - 396.
  Tensor tensor({100}, {-1}, Address(0x10));
  ExpectFailure(tensor, CheckFailure::kByteOffset, "address space");
}

TEST_F(CheckTensorTest, ChecksRunInTheDocumentedOrder) {
  // Every field is wrong; fixing them one at a time walks the checklist.
  Tensor tensor({-1}, {kInt64Min}, nullptr, Dtype(kDLOpaqueHandle, 8, 2));
  tensor.t.ndim = 65;
  tensor.t.device = {kDLCUDA, 0};
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kNdim);
  tensor.t.ndim = 1;
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kNoCuda);
  tensor.t.device = {kDLCPU, 0};
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kLanes);
  tensor.t.dtype.lanes = 1;
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kDtype);
  tensor.t.dtype = Dtype(kDLFloat, 32);
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kShape);
  tensor.shape[0] = 4;
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kStrides);
  tensor.strides[0] = 1;
  EXPECT_EQ(Check(tensor).failure, CheckFailure::kByteOffset);
  tensor.t.data = buffer_;
  EXPECT_TRUE(Check(tensor).ok());
}

// --- accepted tensors --------------------------------------------------------

TEST_F(CheckTensorTest, ZeroDimTensorWithNullShapeAndStrides) {
  Tensor tensor({}, {}, buffer_, Dtype(kDLFloat, 64));
  tensor.t.byte_offset = 8;
  for (bool null_strides_ok : {false, true}) {
    const CheckResult r = Check(tensor, null_strides_ok);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(layout_.ndim, 0);
    EXPECT_EQ(layout_.size, 1u);
    EXPECT_EQ(layout_.item_size, 8u);
    EXPECT_EQ(layout_.first, reinterpret_cast<uintptr_t>(buffer_) + 8);
    EXPECT_EQ(layout_.low, 0u);
    EXPECT_EQ(layout_.high, 8u);
  }
}

TEST_F(CheckTensorTest, ZeroSizeTensorMayHaveNullData) {
  Tensor tensor({1, 8, 0, 128}, {8192, 1024, 128, 1}, nullptr);
  const CheckResult r = Check(tensor);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(layout_.ndim, 4);
  EXPECT_EQ(layout_.size, 0u);
  EXPECT_EQ(layout_.first, 0u);
  EXPECT_EQ(layout_.low, 0u);
  EXPECT_EQ(layout_.high, 0u);
  EXPECT_EQ(layout_.shape[2], 0);
  EXPECT_EQ(layout_.strides[1], 1024);
}

TEST_F(CheckTensorTest, SizeOneDimsMayCarryAnyStride) {
  Tensor tensor({10, 5, 1}, {5, 1, 7777}, buffer_, Dtype(kDLFloat, 64));
  const CheckResult r = Check(tensor);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(layout_.size, 50u);
  EXPECT_EQ(layout_.low, 0u);
  EXPECT_EQ(layout_.high, 400u);  // (9 * 5 + 4 * 1) * 8 + 8
  EXPECT_EQ(layout_.strides[2], 7777);

  Tensor odd({1, 3, 1}, {kInt64Max, 1, -12345}, buffer_, Dtype(kDLFloat, 64));
  ASSERT_TRUE(Check(odd).ok());
  EXPECT_EQ(layout_.strides[2], -12345);  // representable: kept as it is
  EXPECT_EQ(layout_.low, 0u);
  EXPECT_EQ(layout_.high, 24u);
}

TEST_F(CheckTensorTest, NegativeStridesGiveLowAndHigh) {
  // int16 [3, 4] with both axes reversed: element 0 is the last in memory.
  Tensor tensor({3, 4}, {-4, -1}, buffer_ + 22, Dtype(kDLInt, 16));
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.low, 22u);  // (2 * 4 + 3 * 1) * 2
  EXPECT_EQ(layout_.high, 2u);
  EXPECT_EQ(layout_.extent(), 24u);
  EXPECT_EQ(layout_.base(), reinterpret_cast<uintptr_t>(buffer_));
}

TEST_F(CheckTensorTest, MixedSignStrides) {
  // int32 [3, 4] with the inner axis reversed.
  Tensor tensor({3, 4}, {4, -1}, buffer_ + 12, Dtype(kDLInt, 32));
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.low, 12u);   // 3 * 1 * 4
  EXPECT_EQ(layout_.high, 36u);  // 2 * 4 * 4 + 4
  EXPECT_EQ(layout_.base(), reinterpret_cast<uintptr_t>(buffer_));
}

TEST_F(CheckTensorTest, NegativeStridesMayReachExactlyAddressZero) {
  Tensor tensor({5}, {-1}, Address(16), Dtype(kDLInt, 32));
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.base(), 0u);
}

TEST_F(CheckTensorTest, TransposedStrides) {
  Tensor tensor({4, 3}, {1, 4}, buffer_, Dtype(kDLFloat, 32));
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.high, 48u);  // (3 * 1 + 2 * 4) * 4 + 4
}

TEST_F(CheckTensorTest, BroadcastZeroStride) {
  Tensor tensor({1000, 3}, {0, 1}, buffer_, Dtype(kDLFloat, 32));
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.size, 3000u);
  EXPECT_EQ(layout_.extent(), 12u);
}

TEST_F(CheckTensorTest, ByteOffsetIsHonoured) {
  Tensor tensor({2, 2}, {2, 1}, buffer_, Dtype(kDLFloat, 32));
  tensor.t.byte_offset = 64;
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.first, reinterpret_cast<uintptr_t>(buffer_) + 64);
  EXPECT_EQ(layout_.base(), reinterpret_cast<uintptr_t>(buffer_) + 64);
  EXPECT_EQ(layout_.extent(), 16u);
}

TEST_F(CheckTensorTest, ByteOffsetPaysForNegativeStrides) {
  // data at the buffer start, element 0 at the end via byte_offset.
  Tensor tensor({4}, {-1}, buffer_, Dtype(kDLFloat, 64));
  tensor.t.byte_offset = 24;
  ASSERT_TRUE(Check(tensor).ok());
  EXPECT_EQ(layout_.base(), reinterpret_cast<uintptr_t>(buffer_));
  EXPECT_EQ(layout_.low, 24u);
  EXPECT_EQ(layout_.high, 8u);
}

TEST_F(CheckTensorTest, EveryDtypeInTheTableMapsToItsIndexAndItemSize) {
  struct Row {
    uint8_t code;
    uint8_t bits;
    int index;
    uint64_t item_size;
  };
  using namespace dlnode::dtype;  // the dtype index names
  const Row rows[] = {
      {6, 8, kBool, 1},     {0, 8, kInt8, 1},       {0, 16, kInt16, 2},        {0, 32, kInt32, 4},
      {0, 64, kInt64, 8},   {1, 8, kUint8, 1},      {1, 16, kUint16, 2},       {1, 32, kUint32, 4},
      {1, 64, kUint64, 8},  {2, 16, kFloat16, 2},   {4, 16, kBfloat16, 2},     {2, 32, kFloat32, 4},
      {2, 64, kFloat64, 8}, {5, 64, kComplex64, 8}, {5, 128, kComplex128, 16},
  };
  static_assert(sizeof(rows) / sizeof(rows[0]) == kCount, "one row per dtype");
  for (const Row& row : rows) {
    Tensor tensor({3}, {1}, buffer_, Dtype(row.code, row.bits));
    const CheckResult r = Check(tensor);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(layout_.dtype_index, row.index) << "code " << +row.code << " bits " << +row.bits;
    EXPECT_EQ(layout_.item_size, row.item_size) << "code " << +row.code << " bits " << +row.bits;
    EXPECT_EQ(layout_.high, 3 * row.item_size);
  }
}

// --- ComputeExtent on its own (export uses it directly) -----------------------

TEST(ComputeExtent, ContiguousAndReversed) {
  const int64_t shape[] = {2, 3};
  const int64_t forward[] = {3, 1};
  const int64_t reversed[] = {-3, -1};
  uint64_t low = 99;
  uint64_t high = 99;
  ASSERT_TRUE(ComputeExtent(2, shape, forward, 4, &low, &high));
  EXPECT_EQ(low, 0u);
  EXPECT_EQ(high, 24u);
  ASSERT_TRUE(ComputeExtent(2, shape, reversed, 4, &low, &high));
  EXPECT_EQ(low, 20u);
  EXPECT_EQ(high, 4u);
}

TEST(ComputeExtent, ZeroSizeIsEmpty) {
  const int64_t shape[] = {3, 0};
  const int64_t strides[] = {kInt64Min, 1};
  uint64_t low = 99;
  uint64_t high = 99;
  ASSERT_TRUE(ComputeExtent(2, shape, strides, 8, &low, &high));
  EXPECT_EQ(low, 0u);
  EXPECT_EQ(high, 0u);
}

TEST(ComputeExtent, ZeroDimIsOneItem) {
  uint64_t low = 99;
  uint64_t high = 99;
  ASSERT_TRUE(ComputeExtent(0, nullptr, nullptr, 16, &low, &high));
  EXPECT_EQ(low, 0u);
  EXPECT_EQ(high, 16u);
}

TEST(ComputeExtent, SafeIntegerBoundary) {
  const int64_t max = static_cast<int64_t>(dlnode::kMaxSafeInteger);
  const int64_t fits[] = {max};
  const int64_t too_big[] = {max + 1};
  const int64_t stride[] = {1};
  uint64_t low = 0;
  uint64_t high = 0;
  EXPECT_TRUE(ComputeExtent(1, fits, stride, 1, &low, &high));
  EXPECT_EQ(high, dlnode::kMaxSafeInteger);
  EXPECT_FALSE(ComputeExtent(1, too_big, stride, 1, &low, &high));
}

// --- CountElements: every compute entry's element count (issue 37, finding 4) ---

TEST(CountElements, ProductsUpToTheSafeIntegerLimit) {
  uint64_t n = 99;
  EXPECT_TRUE(dlnode::CountElements(0, nullptr, &n));
  EXPECT_EQ(n, 1u);
  const int64_t fits[] = {1 << 26, 1 << 26, 2};  // 2^52, then 2^53: one past the limit
  EXPECT_FALSE(dlnode::CountElements(3, fits, &n));
  EXPECT_TRUE(dlnode::CountElements(2, fits, &n));
  EXPECT_EQ(n, uint64_t{1} << 52);
  // 2^64 elements of stride 0 (expand([2^32, 2^32])): the product wraps to 0
  // in 64 bits, which the reductions read as empty.
  const int64_t wraps[] = {int64_t{1} << 32, int64_t{1} << 32};
  EXPECT_FALSE(dlnode::CountElements(2, wraps, &n));
  // A 0 dim anywhere is empty, however large the others.
  const int64_t empty[] = {int64_t{1} << 40, int64_t{1} << 40, 0};
  EXPECT_TRUE(dlnode::CountElements(3, empty, &n));
  EXPECT_EQ(n, 0u);
  const int64_t negative[] = {2, -1};
  EXPECT_FALSE(dlnode::CountElements(2, negative, &n));
}

}  // namespace
