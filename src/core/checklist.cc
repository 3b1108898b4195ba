#include "checklist.h"

#include <string>
#include <utility>

namespace dlnode {
namespace {

CheckResult Fail(CheckFailure f, std::string message) { return Failed(f, std::move(message)); }

std::string Num(int64_t v) { return std::to_string(v); }

}  // namespace

CheckResult CheckManagedTensor(const DLPackVersion* version, const DLTensor& t,
                               const DtypeTable& dtypes, Layout* out, bool allow_cuda) {
  if (version != nullptr && version->major > 1) {
    return Fail(CheckFailure::kVersion, "Expected DLPack major version 0 or 1, received " +
                                            Num(version->major) +
                                            " (the producer's deleter was called)");
  }
  const bool null_strides_ok = version == nullptr || version->major == 0 || version->minor < 2;
  return CheckTensor(t, null_strides_ok, dtypes, out, allow_cuda);
}

CheckResult CheckTensor(const DLTensor& t, bool null_strides_ok, const DtypeTable& dtypes,
                        Layout* out, bool allow_cuda) {
  if (t.ndim < 0 || t.ndim > kMaxDims) {
    return Fail(CheckFailure::kNdim,
                "Expected ndim between 0 and 64 in the DLPack tensor, received " + Num(t.ndim));
  }
  const bool cuda = allow_cuda && t.device.device_type == kDLCUDA;
  if (cuda && t.device.device_id < 0) {
    return Fail(CheckFailure::kDevice,
                "Expected a non-negative device_id for the kDLCUDA tensor, received " +
                    Num(t.device.device_id));
  }
  if (!IsHostAccessible(t.device.device_type) && !cuda) {
    const std::string expected =
        "Expected a CPU-accessible device (kDLCPU 1, kDLCUDAHost 3, kDLCUDAManaged 13) "
        "in the DLPack tensor, received device type " +
        Num(t.device.device_type);
    // CUDA device memory needs a CUDA build; in one, a kDLCUDA tensor refused
    // here has a bad device_id (above).
    if (t.device.device_type == kDLCUDA && !allow_cuda) {
      return Fail(CheckFailure::kNoCuda, expected + "; this build of dlpack has no CUDA support");
    }
    return Fail(CheckFailure::kDevice, expected);
  }
  if (t.dtype.lanes != 1) {
    return Fail(CheckFailure::kLanes,
                "Expected dtype.lanes 1 in the DLPack tensor, received " + Num(t.dtype.lanes));
  }
  const int index = dtypes.Find(t.dtype);
  if (index < 0) {
    return Fail(CheckFailure::kDtype,
                "Expected a supported dtype in the DLPack tensor, received "
                "code " +
                    Num(t.dtype.code) + " bits " + Num(t.dtype.bits));
  }
  const int ndim = t.ndim;
  if (ndim > 0 && t.shape == nullptr) {
    return Fail(CheckFailure::kShape, "Expected a shape array in the DLPack tensor, received NULL");
  }
  // Every dimension must be a safe integer, whether or not the tensor is
  // empty; the count is 0 if any dimension is, wherever it sits.
  bool empty = false;
  for (int i = 0; i < ndim; ++i) {
    const int64_t d = t.shape[i];
    if (d < 0) {
      return Fail(CheckFailure::kShape, "Expected non-negative shape[" + Num(i) +
                                            "] in the DLPack tensor, received " + Num(d));
    }
    if (static_cast<uint64_t>(d) > kMaxSafeInteger) {
      return Fail(
          CheckFailure::kShape,
          "Expected shape[" + Num(i) + "] below 2^53 in the DLPack tensor, received " + Num(d));
    }
    empty = empty || d == 0;
  }
  uint64_t size = empty ? 0 : 1;
  for (int i = 0; i < ndim && !empty; ++i) {
    if (__builtin_mul_overflow(size, static_cast<uint64_t>(t.shape[i]), &size) ||
        size > kMaxSafeInteger) {
      return Fail(CheckFailure::kShape,
                  "Expected an element count below 2^53 in the DLPack tensor, received an "
                  "overflowing shape");
    }
  }
  const uint64_t item = DtypeTable::ItemSize(dtypes.at(index));
  if (ndim > 0 && t.strides == nullptr) {
    if (!null_strides_ok) {
      return Fail(CheckFailure::kStrides,
                  "Expected strides in a DLPack >= 1.2 tensor with ndim > 0, received NULL");
    }
    uint64_t running = 1;  // row-major; empty dimensions count as 1 (PyTorch's rule)
    for (int i = ndim - 1; i >= 0; --i) {
      out->strides[i] = static_cast<int64_t>(running);
      const uint64_t d = t.shape[i] == 0 ? 1 : static_cast<uint64_t>(t.shape[i]);
      if (i > 0 && (__builtin_mul_overflow(running, d, &running) || running > kMaxSafeInteger)) {
        return Fail(CheckFailure::kStrides,
                    "Expected row-major strides below 2^53 for the DLPack tensor's shape, received "
                    "a shape whose strides overflow");
      }
    }
  } else {
    for (int i = 0; i < ndim; ++i) {
      const int64_t st = t.strides[i];
      const bool unsafe =
          st > static_cast<int64_t>(kMaxSafeInteger) || st < -static_cast<int64_t>(kMaxSafeInteger);
      if (unsafe && (empty || t.shape[i] == 1)) {
        // The stride of a size-1 dimension (or of an empty tensor) never
        // moves a pointer; one JS numbers cannot hold becomes 0.
        out->strides[i] = 0;
        continue;
      }
      if (unsafe) {
        return Fail(CheckFailure::kStrides, "Expected strides[" + Num(i) +
                                                "] within +-2^53 in the DLPack tensor, received " +
                                                Num(st));
      }
      out->strides[i] = st;
    }
  }
  for (int i = 0; i < ndim; ++i) out->shape[i] = t.shape[i];
  uint64_t low = 0;
  uint64_t high = 0;
  if (size != 0 && !ComputeExtent(ndim, out->shape, out->strides, item, &low, &high)) {
    return Fail(CheckFailure::kStrides,
                "Expected strides whose byte extent fits below 2^53 in the DLPack tensor, "
                "received an overflowing stride");
  }
  const uintptr_t data = reinterpret_cast<uintptr_t>(t.data);
  uintptr_t first = 0;
  if (size != 0) {
    if (data == 0) {
      return Fail(CheckFailure::kByteOffset,
                  "Expected a non-NULL data pointer in a non-empty DLPack tensor, received NULL");
    }
    uintptr_t end = 0;
    if (__builtin_add_overflow(data, t.byte_offset, &first) || first < low ||
        __builtin_add_overflow(first, high, &end)) {
      return Fail(CheckFailure::kByteOffset,
                  "Expected data + byte_offset and the tensor's extent inside the address space, "
                  "received byte_offset " +
                      std::to_string(t.byte_offset));
    }
  }
  out->ndim = ndim;
  out->dtype_index = index;
  out->item_size = item;
  out->device = t.device;
  out->size = size;
  out->first = first;
  out->low = low;
  out->high = high;
  return {};
}

}  // namespace dlnode
