// Our DLPack ABI header against an independent one: Debian's libdlpack-dev
// (DLPack 0.6, /usr/include/dlpack/dlpack.h), included into namespace
// `debian` in this same translation unit so both sets of declarations can be
// compared directly. 0.6 predates DLPackVersion and DLManagedTensorVersioned,
// so the check covers DLDevice, DLDataType, DLTensor, the legacy
// DLManagedTensor and the enum values 0.6 knows.
//
// CMake passes DLPACK_REFERENCE_HEADER (the path it looked for) always and
// DLPACK_HAVE_REFERENCE_HEADER when the file exists; without it every test
// here skips and says why.
#include "dlpack_abi.h"

#include <gtest/gtest.h>

// The reference header includes these itself; including them first, at
// global scope, turns its own includes inside the namespace into no-ops.
#include <stddef.h>
#include <stdint.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

#ifdef DLPACK_HAVE_REFERENCE_HEADER
namespace debian {
#include DLPACK_REFERENCE_HEADER
}  // namespace debian
#endif

namespace {

#ifdef DLPACK_HAVE_REFERENCE_HEADER

static_assert(DLPACK_VERSION == 60, "the reference header should be DLPack 0.6");
static_assert(!std::is_same<::DLTensor, debian::DLTensor>::value,
              "the reference declarations must be distinct types");

// Size, alignment, and each field's offset and size.
#define EXPECT_SAME_SIZE(Type)                                             \
  do {                                                                     \
    EXPECT_EQ(sizeof(::Type), sizeof(debian::Type)) << "sizeof " #Type;    \
    EXPECT_EQ(alignof(::Type), alignof(debian::Type)) << "alignof " #Type; \
  } while (0)

#define EXPECT_SAME_FIELD(Type, field)                                                           \
  do {                                                                                           \
    EXPECT_EQ(offsetof(::Type, field), offsetof(debian::Type, field))                            \
        << "offsetof " #Type "." #field;                                                         \
    EXPECT_EQ(sizeof(::Type::field), sizeof(debian::Type::field)) << "sizeof " #Type "." #field; \
  } while (0)

#define EXPECT_SAME_ENUM(name) \
  EXPECT_EQ(static_cast<long>(::name), static_cast<long>(debian::name)) << #name

TEST(AbiCompat, DLDevice) {
  EXPECT_SAME_SIZE(DLDevice);
  EXPECT_SAME_FIELD(DLDevice, device_type);
  EXPECT_SAME_FIELD(DLDevice, device_id);
  EXPECT_EQ(sizeof(::DLDeviceType), sizeof(debian::DLDeviceType));
}

TEST(AbiCompat, DLDataType) {
  EXPECT_SAME_SIZE(DLDataType);
  EXPECT_SAME_FIELD(DLDataType, code);
  EXPECT_SAME_FIELD(DLDataType, bits);
  EXPECT_SAME_FIELD(DLDataType, lanes);
}

TEST(AbiCompat, DLTensor) {
  EXPECT_SAME_SIZE(DLTensor);
  EXPECT_SAME_FIELD(DLTensor, data);
  EXPECT_SAME_FIELD(DLTensor, device);
  EXPECT_SAME_FIELD(DLTensor, ndim);
  EXPECT_SAME_FIELD(DLTensor, dtype);
  EXPECT_SAME_FIELD(DLTensor, shape);
  EXPECT_SAME_FIELD(DLTensor, strides);
  EXPECT_SAME_FIELD(DLTensor, byte_offset);
}

TEST(AbiCompat, DLManagedTensor) {
  EXPECT_SAME_SIZE(DLManagedTensor);
  EXPECT_SAME_FIELD(DLManagedTensor, dl_tensor);
  EXPECT_SAME_FIELD(DLManagedTensor, manager_ctx);
  EXPECT_SAME_FIELD(DLManagedTensor, deleter);
}

TEST(AbiCompat, DeviceTypes) {
  EXPECT_SAME_ENUM(kDLCPU);
  EXPECT_SAME_ENUM(kDLCUDA);
  EXPECT_SAME_ENUM(kDLCUDAHost);
  EXPECT_SAME_ENUM(kDLOpenCL);
  EXPECT_SAME_ENUM(kDLVulkan);
  EXPECT_SAME_ENUM(kDLMetal);
  EXPECT_SAME_ENUM(kDLVPI);
  EXPECT_SAME_ENUM(kDLROCM);
  EXPECT_SAME_ENUM(kDLROCMHost);
  EXPECT_SAME_ENUM(kDLExtDev);
  EXPECT_SAME_ENUM(kDLCUDAManaged);
}

TEST(AbiCompat, TypeCodes) {
  EXPECT_SAME_ENUM(kDLInt);
  EXPECT_SAME_ENUM(kDLUInt);
  EXPECT_SAME_ENUM(kDLFloat);
  EXPECT_SAME_ENUM(kDLOpaqueHandle);
  EXPECT_SAME_ENUM(kDLBfloat);
  EXPECT_SAME_ENUM(kDLComplex);
}

// A 0.6 producer's managed tensor read through our declarations: the bytes
// it wrote are the values we read, and its deleter is callable through ours.
int g_reference_deletes = 0;
void ReferenceDeleter(debian::DLManagedTensor* self) {
  ++g_reference_deletes;
  EXPECT_EQ(self->manager_ctx, &g_reference_deletes);
}

TEST(AbiCompat, ReadsAManagedTensorFromAReferenceProducer) {
  int64_t shape[] = {2, 3};
  int64_t strides[] = {3, 1};
  float data[6] = {};
  debian::DLManagedTensor theirs;
  std::memset(&theirs, 0xA5, sizeof(theirs));  // padding must not matter
  theirs.dl_tensor.data = data;
  theirs.dl_tensor.device = {debian::kDLCUDAManaged, 7};
  theirs.dl_tensor.ndim = 2;
  theirs.dl_tensor.dtype = {debian::kDLBfloat, 16, 1};
  theirs.dl_tensor.shape = shape;
  theirs.dl_tensor.strides = strides;
  theirs.dl_tensor.byte_offset = 0x0102030405060708u;
  theirs.manager_ctx = &g_reference_deletes;
  theirs.deleter = &ReferenceDeleter;

  ::DLManagedTensor ours;
  static_assert(sizeof(ours) == sizeof(theirs), "same size");
  std::memcpy(&ours, &theirs, sizeof(ours));
  const ::DLTensor& t = ours.dl_tensor;
  EXPECT_EQ(t.data, data);
  EXPECT_EQ(t.device.device_type, kDLCUDAManaged);
  EXPECT_EQ(t.device.device_id, 7);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.dtype.code, kDLBfloat);
  EXPECT_EQ(t.dtype.bits, 16);
  EXPECT_EQ(t.dtype.lanes, 1);
  EXPECT_EQ(t.shape, shape);
  EXPECT_EQ(t.strides, strides);
  EXPECT_EQ(t.byte_offset, 0x0102030405060708u);
  EXPECT_EQ(ours.manager_ctx, &g_reference_deletes);
  ASSERT_NE(ours.deleter, nullptr);

  // Call it the way import does: through our function-pointer type. The
  // parameter types differ only in name, which is what crossing the C ABI
  // between two libraries' headers always looks like.
  g_reference_deletes = 0;
  ours.deleter(&ours);
  EXPECT_EQ(g_reference_deletes, 1);
}

#else  // !DLPACK_HAVE_REFERENCE_HEADER

TEST(AbiCompat, AgainstDebianDlpackHeader) {
  const char* reason =
      "no reference dlpack.h at " DLPACK_REFERENCE_HEADER
      " (install libdlpack-dev, or configure with -DDLPACK_DEBIAN_HEADER=/path/to/dlpack.h)";
  std::printf("abi_compat_test skipped: %s\n", reason);
  GTEST_SKIP() << reason;
}

#endif  // DLPACK_HAVE_REFERENCE_HEADER

}  // namespace
