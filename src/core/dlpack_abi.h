// DLPack ABI (major version 1, minor 3), written for this project from the
// field order, enum values and flag bits of the DLPack specification
// (dmlc/dlpack include/dlpack/dlpack.h, v1.3). Both the versioned
// DLManagedTensorVersioned and the legacy DLManagedTensor are declared.
// The static_asserts pin the x86_64 / LP64 layout every peer relies on.
#ifndef DLPACK_NODE_CORE_DLPACK_ABI_H_
#define DLPACK_NODE_CORE_DLPACK_ABI_H_

#include <cstddef>
#include <cstdint>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

// Flag bits of DLManagedTensorVersioned::flags.
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

extern "C" {

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
  kDLTrn = 18,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
  kDLFloat8_e3m4 = 7,
  kDLFloat8_e4m3 = 8,
  kDLFloat8_e4m3b11fnuz = 9,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e4m3fnuz = 11,
  kDLFloat8_e5m2 = 12,
  kDLFloat8_e5m2fnuz = 13,
  kDLFloat8_e8m0fnu = 14,
  kDLFloat6_e2m3fn = 15,
  kDLFloat6_e3m2fn = 16,
  kDLFloat4_e2m1fn = 17,
} DLDataTypeCode;

typedef struct {
  uint8_t code;    // a DLDataTypeCode
  uint8_t bits;    // bits of one lane; complex counts the whole value
  uint16_t lanes;  // 1 for scalars
} DLDataType;

typedef struct {
  void* data;  // first element is at (char*)data + byte_offset
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;    // may be NULL when ndim == 0
  int64_t* strides;  // in elements; NULL only for ndim == 0 (or < v1.2)
  uint64_t byte_offset;
} DLTensor;

// Legacy (pre-1.0) managed tensor, spoken when a consumer asks for major 0.
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

// Everything up to and including `flags` is the stable prefix: a consumer may
// read `version` and call `deleter` whatever the major version says.
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

}  // extern "C"

#if defined(__x86_64__) || defined(_M_X64) || defined(__aarch64__)
static_assert(sizeof(DLPackVersion) == 8, "DLPackVersion size");
static_assert(offsetof(DLPackVersion, minor) == 4, "DLPackVersion.minor");
static_assert(sizeof(DLDeviceType) == 4, "DLDeviceType is int32_t");
static_assert(sizeof(DLDevice) == 8, "DLDevice size");
static_assert(offsetof(DLDevice, device_id) == 4, "DLDevice.device_id");
static_assert(sizeof(DLDataType) == 4 && alignof(DLDataType) == 2, "DLDataType");
static_assert(offsetof(DLDataType, bits) == 1, "DLDataType.bits");
static_assert(offsetof(DLDataType, lanes) == 2, "DLDataType.lanes");
static_assert(sizeof(DLTensor) == 48 && alignof(DLTensor) == 8, "DLTensor");
static_assert(offsetof(DLTensor, data) == 0, "DLTensor.data");
static_assert(offsetof(DLTensor, device) == 8, "DLTensor.device");
static_assert(offsetof(DLTensor, ndim) == 16, "DLTensor.ndim");
static_assert(offsetof(DLTensor, dtype) == 20, "DLTensor.dtype");
static_assert(offsetof(DLTensor, shape) == 24, "DLTensor.shape");
static_assert(offsetof(DLTensor, strides) == 32, "DLTensor.strides");
static_assert(offsetof(DLTensor, byte_offset) == 40, "DLTensor.byte_offset");
static_assert(sizeof(DLManagedTensor) == 64, "DLManagedTensor size");
static_assert(offsetof(DLManagedTensor, dl_tensor) == 0, "DLManagedTensor.dl_tensor");
static_assert(offsetof(DLManagedTensor, manager_ctx) == 48, "DLManagedTensor.manager_ctx");
static_assert(offsetof(DLManagedTensor, deleter) == 56, "DLManagedTensor.deleter");
static_assert(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned size");
static_assert(offsetof(DLManagedTensorVersioned, version) == 0, "Versioned.version");
static_assert(offsetof(DLManagedTensorVersioned, manager_ctx) == 8, "Versioned.manager_ctx");
static_assert(offsetof(DLManagedTensorVersioned, deleter) == 16, "Versioned.deleter");
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24, "Versioned.flags");
static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32, "Versioned.dl_tensor");
#endif

static_assert(DLPACK_FLAG_BITMASK_READ_ONLY == 1, "READ_ONLY bit");
static_assert(DLPACK_FLAG_BITMASK_IS_COPIED == 2, "IS_COPIED bit");
static_assert(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED == 4, "IS_SUBBYTE_TYPE_PADDED bit");
static_assert(kDLCPU == 1 && kDLCUDA == 2 && kDLCUDAHost == 3 && kDLOpenCL == 4, "devices");
static_assert(kDLVulkan == 7 && kDLMetal == 8 && kDLVPI == 9 && kDLROCM == 10, "devices");
static_assert(kDLROCMHost == 11 && kDLExtDev == 12 && kDLCUDAManaged == 13, "devices");
static_assert(kDLOneAPI == 14 && kDLWebGPU == 15 && kDLHexagon == 16, "devices");
static_assert(kDLMAIA == 17 && kDLTrn == 18, "devices");
static_assert(kDLInt == 0 && kDLUInt == 1 && kDLFloat == 2 && kDLOpaqueHandle == 3, "codes");
static_assert(kDLBfloat == 4 && kDLComplex == 5 && kDLBool == 6, "codes");
static_assert(kDLFloat8_e3m4 == 7 && kDLFloat8_e8m0fnu == 14, "codes");
static_assert(kDLFloat6_e2m3fn == 15 && kDLFloat4_e2m1fn == 17, "codes");

#endif  // DLPACK_NODE_CORE_DLPACK_ABI_H_
