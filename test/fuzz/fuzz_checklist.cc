// libFuzzer target: the DLPack import checklist (CheckTensor) and
// ComputeExtent on arbitrary DLManagedTensor(Versioned) contents.
//
// The verdict of every run is compared with a model written from docs/API.md's
// checklist in exact 128-bit arithmetic (no overflow checks to get wrong):
// the same failure, or acceptance with the same layout. Accepted layouts are
// also checked against their promises: every number a safe integer, and for
// small tensors every element's bytes, found by brute force, inside
// [first - low, first + high) with both ends reached.
//
// Input (fuzz_input.h encodings; missing bytes read as 0):
//   u8      bit 0 versioned, bit 1 shape NULL, bit 2 strides NULL
//   u32 u32 version major, minor (versioned only: CheckManagedTensor's rules)
//   u64     flags (versioned only)
//   small32 ndim
//   u8 u8 u16  dtype code, bits, lanes
//   small32 small32  device type, device id
//   u64 u64 data pointer (never dereferenced), byte_offset
//   small64 x n shape, then small64 x n strides, where n = ndim for
//           0 <= ndim <= 64, kMaxDims + 1 above (the checklist must refuse
//           before reading), 0 below. The arrays are heap blocks of exactly
//           n entries, so AddressSanitizer catches any read past them.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "../cpp/test_dtypes.h"
#include "checklist.h"
#include "dlpack_abi.h"
#include "dtype.h"
#include "fuzz_input.h"
#include "managed.h"

namespace {

using dlnode::CheckFailure;
using dlnode::CheckResult;
using dlnode::kMaxDims;
using dlnode::Layout;
using dlnode_fuzz::Input;
using i128 = __int128;
using u128 = unsigned __int128;

constexpr i128 kSafe = (i128{1} << 53) - 1;
constexpr u128 kAddressTop = UINT64_MAX;     // largest uintptr_t (LP64)
constexpr uint64_t kBruteForceLimit = 4096;  // elements

// Bytes per element from docs/API.md's dtype list, written out independently of
// DtypeTable; 0 for anything else.
i128 ItemSize(DLDataType t) {
  switch (t.code) {
    case kDLInt:
    case kDLUInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64 ? t.bits / 8 : 0;
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64 ? t.bits / 8 : 0;
    case kDLBfloat:
      return t.bits == 16 ? 2 : 0;
    case kDLComplex:
      return t.bits == 64 || t.bits == 128 ? t.bits / 8 : 0;
    case kDLBool:
      return t.bits == 8 ? 1 : 0;
    default:
      return 0;
  }
}

i128 Saturate(i128 v) { return v > kSafe + 1 ? kSafe + 1 : v; }

struct Expected {
  CheckFailure failure = CheckFailure::kNone;
  i128 item = 0;
  i128 size = 0;
  i128 strides[kMaxDims] = {};
  i128 low = 0;
  i128 high = 0;
  u128 first = 0;
};

// docs/API.md "fromDLPack", in its order: ndim, device, lanes, dtype, shape,
// strides, byte_offset.
Expected Model(const DLTensor& t, bool null_strides_ok, bool allow_cuda) {
  Expected m;
  auto fail = [&m](CheckFailure f) {
    m.failure = f;
    return m;
  };
  if (t.ndim < 0 || t.ndim > kMaxDims) return fail(CheckFailure::kNdim);
  const int32_t type = t.device.device_type;
  const bool host = type == kDLCPU || type == kDLCUDAHost || type == kDLCUDAManaged;
  if (!host && !(allow_cuda && type == kDLCUDA && t.device.device_id >= 0)) {
    // CUDA memory where CUDA is not allowed has a row (and code) of its own.
    if (type == kDLCUDA && !allow_cuda) return fail(CheckFailure::kNoCuda);
    return fail(CheckFailure::kDevice);
  }
  if (t.dtype.lanes != 1) return fail(CheckFailure::kLanes);
  m.item = ItemSize(t.dtype);
  if (m.item == 0) return fail(CheckFailure::kDtype);

  const int n = t.ndim;
  if (n > 0 && t.shape == nullptr) return fail(CheckFailure::kShape);
  bool empty = false;
  i128 size = 1;
  for (int i = 0; i < n; ++i) {
    const i128 d = t.shape[i];
    if (d < 0 || d > kSafe) return fail(CheckFailure::kShape);
    empty = empty || d == 0;
    size = Saturate(size * d);
  }
  if (empty) size = 0;
  if (size > kSafe) return fail(CheckFailure::kShape);
  m.size = size;

  if (n > 0 && t.strides == nullptr) {
    if (!null_strides_ok) return fail(CheckFailure::kStrides);
    // Row-major, an empty dimension stepping like a size-1 one.
    for (int i = 0; i < n; ++i) {
      i128 stride = 1;
      for (int j = i + 1; j < n; ++j) {
        stride = Saturate(stride * (t.shape[j] == 0 ? 1 : t.shape[j]));
      }
      if (stride > kSafe) return fail(CheckFailure::kStrides);
      m.strides[i] = stride;
    }
  } else {
    for (int i = 0; i < n; ++i) {
      const i128 st = t.strides[i];
      if (st >= -kSafe && st <= kSafe) {
        m.strides[i] = st;
      } else if (empty || t.shape[i] == 1) {
        m.strides[i] = 0;  // never moves a pointer
      } else {
        return fail(CheckFailure::kStrides);
      }
    }
  }
  if (size == 0) return m;  // low, high and first stay 0

  // Each term is below 2^53 * 2^53 * 16, and 64 of them fit easily.
  i128 low = 0;
  i128 high = m.item;
  for (int i = 0; i < n; ++i) {
    const i128 bytes = (t.shape[i] - 1) * m.strides[i] * m.item;
    (bytes < 0 ? low : high) += bytes < 0 ? -bytes : bytes;
  }
  if (low > kSafe || high > kSafe || low + high > kSafe) return fail(CheckFailure::kStrides);
  m.low = low;
  m.high = high;

  if (t.data == nullptr) return fail(CheckFailure::kByteOffset);
  const u128 first = u128{reinterpret_cast<uintptr_t>(t.data)} + t.byte_offset;
  if (first > kAddressTop || first < static_cast<u128>(low) ||
      first + static_cast<u128>(high) > kAddressTop) {
    return fail(CheckFailure::kByteOffset);
  }
  m.first = first;
  return m;
}

bool SafeMagnitude(i128 v) { return v >= -kSafe && v <= kSafe; }

// Walks every element of a small accepted tensor: the lowest byte touched
// must be first - low and the end of the highest element first + high.
void BruteForceExtent(const Layout& layout) {
  int64_t index[kMaxDims] = {};
  i128 lowest = 0;
  i128 end = 0;
  bool any = false;
  for (;;) {
    i128 offset = 0;
    for (int i = 0; i < layout.ndim; ++i) offset += i128{index[i]} * layout.strides[i];
    const i128 address = i128{layout.first} + offset * static_cast<i128>(layout.item_size);
    if (!any || address < lowest) lowest = address;
    if (!any || address + static_cast<i128>(layout.item_size) > end) {
      end = address + static_cast<i128>(layout.item_size);
    }
    any = true;
    int i = layout.ndim - 1;
    while (i >= 0 && ++index[i] == layout.shape[i]) index[i--] = 0;
    if (i < 0) break;
  }
  FUZZ_REQUIRE(lowest == i128{layout.first} - static_cast<i128>(layout.low));
  FUZZ_REQUIRE(end == i128{layout.first} + static_cast<i128>(layout.high));
}

void CheckAccepted(const DLTensor& t, const Layout& layout, const Expected& m,
                   const dlnode::DtypeTable& dtypes) {
  FUZZ_REQUIRE(layout.ndim == t.ndim);
  FUZZ_REQUIRE(layout.device.device_type == t.device.device_type);
  FUZZ_REQUIRE(layout.device.device_id == t.device.device_id);
  FUZZ_REQUIRE(layout.dtype_index >= 0 && layout.dtype_index < dtypes.size());
  FUZZ_REQUIRE(dtypes.at(layout.dtype_index).code == t.dtype.code);
  FUZZ_REQUIRE(dtypes.at(layout.dtype_index).bits == t.dtype.bits);
  FUZZ_REQUIRE(static_cast<i128>(layout.item_size) == m.item);
  FUZZ_REQUIRE(static_cast<i128>(layout.size) == m.size);
  i128 product = 1;
  for (int i = 0; i < layout.ndim; ++i) {
    FUZZ_REQUIRE(layout.shape[i] == t.shape[i]);
    FUZZ_REQUIRE(layout.strides[i] == m.strides[i]);
    FUZZ_REQUIRE(SafeMagnitude(layout.shape[i]) && layout.shape[i] >= 0);
    FUZZ_REQUIRE(SafeMagnitude(layout.strides[i]));
    product = Saturate(product * layout.shape[i]);
  }
  FUZZ_REQUIRE(static_cast<i128>(layout.size) == product);
  FUZZ_REQUIRE(static_cast<i128>(layout.low) == m.low);
  FUZZ_REQUIRE(static_cast<i128>(layout.high) == m.high);
  FUZZ_REQUIRE(layout.size <= dlnode::kMaxSafeInteger);
  FUZZ_REQUIRE(layout.extent() <= dlnode::kMaxSafeInteger);
  if (layout.size == 0) {
    FUZZ_REQUIRE(layout.low == 0 && layout.high == 0 && layout.first == 0);
    return;
  }
  // first == data + byte_offset without wrapping, and the extent stays
  // inside the address space.
  FUZZ_REQUIRE(u128{layout.first} == u128{reinterpret_cast<uintptr_t>(t.data)} + t.byte_offset);
  FUZZ_REQUIRE(u128{layout.first} == m.first);
  FUZZ_REQUIRE(layout.first >= layout.low);
  FUZZ_REQUIRE(u128{layout.first} + layout.high <= kAddressTop);
  if (layout.size <= kBruteForceLimit) BruteForceExtent(layout);
}

// ComputeExtent on its own (export and strided copies call it with shapes
// JS has checked): exact sides when it succeeds; a refusal only when a side
// leaves the safe-integer range or a stride is INT64_MIN (which it refuses
// outright, even where the dimension never moves).
void CheckComputeExtent(int ndim, const int64_t* shape, const int64_t* strides, uint64_t item) {
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return;  // outside its contract
  }
  uint64_t low = 0;
  uint64_t high = 0;
  const bool ok = dlnode::ComputeExtent(ndim, shape, strides, item, &low, &high);
  bool empty = false;
  bool int64_min = false;
  u128 lo = 0;
  u128 hi = item;
  const u128 cap = u128{1} << 60;  // far above 2^53: saturate instead of overflowing
  for (int i = 0; i < ndim; ++i) {
    empty = empty || shape[i] == 0;
    int64_min = int64_min || strides[i] == INT64_MIN;
    if (shape[i] == 0) continue;
    const u128 magnitude = strides[i] < 0 ? u128{0} - static_cast<u128>(i128{strides[i]})
                                          : static_cast<u128>(strides[i]);
    u128 step = static_cast<u128>(shape[i] - 1) * magnitude;  // < 2^126
    if (step > cap) step = cap;
    u128 bytes = step * item;
    if (bytes > cap) bytes = cap;
    (strides[i] < 0 ? lo : hi) += bytes;
  }
  if (empty) {
    FUZZ_REQUIRE(ok && low == 0 && high == 0);
    return;
  }
  const bool fits = lo <= u128{dlnode::kMaxSafeInteger} && hi <= u128{dlnode::kMaxSafeInteger} &&
                    lo + hi <= u128{dlnode::kMaxSafeInteger};
  if (ok) {
    FUZZ_REQUIRE(fits && !int64_min && u128{low} == lo && u128{high} == hi);
  } else {
    FUZZ_REQUIRE(!fits || int64_min);
  }
}

int deleter_calls = 0;
void* deleted = nullptr;
void CountingDeleter(DLManagedTensorVersioned* self) {
  ++deleter_calls;
  deleted = self;
}
void CountingLegacyDeleter(DLManagedTensor* self) {
  ++deleter_calls;
  deleted = self;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const dlnode::DtypeTable& dtypes = dlnode::Dtypes();
  Input in(data, size);
  const auto bits = in.Raw<uint8_t>();
  const bool versioned = bits & 1;
  const bool null_shape = bits & 2;
  const bool null_strides = bits & 4;

  // Heap blocks, so that ASan sees reads past either struct.
  auto v = std::make_unique<DLManagedTensorVersioned>();
  auto legacy = std::make_unique<DLManagedTensor>();
  v->version.major = in.Raw<uint32_t>();
  v->version.minor = in.Raw<uint32_t>();
  v->flags = in.Raw<uint64_t>();
  v->deleter = &CountingDeleter;
  legacy->deleter = &CountingLegacyDeleter;
  void* ptr = versioned ? static_cast<void*>(v.get()) : static_cast<void*>(legacy.get());
  dlnode::ManagedTensor managed(ptr, versioned);
  DLTensor& t = *managed.tensor();
  FUZZ_REQUIRE(&t == (versioned ? &dlnode::TensorOf(v.get()) : &dlnode::TensorOf(legacy.get())));

  t.ndim = in.Small32();
  t.dtype.code = in.Raw<uint8_t>();
  t.dtype.bits = in.Raw<uint8_t>();
  t.dtype.lanes = in.Raw<uint16_t>();
  t.device.device_type = static_cast<DLDeviceType>(in.Small32());
  t.device.device_id = in.Small32();
  t.data = reinterpret_cast<void*>(static_cast<uintptr_t>(in.Raw<uint64_t>()));
  t.byte_offset = in.Raw<uint64_t>();

  const int entries = t.ndim < 0 ? 0 : t.ndim > kMaxDims ? kMaxDims + 1 : t.ndim;
  std::unique_ptr<int64_t[]> shape(new int64_t[entries]);
  std::unique_ptr<int64_t[]> strides(new int64_t[entries]);
  for (int i = 0; i < entries; ++i) shape[i] = in.Small64();
  for (int i = 0; i < entries; ++i) strides[i] = in.Small64();
  t.shape = null_shape ? nullptr : shape.get();
  t.strides = null_strides ? nullptr : strides.get();

  for (const bool null_strides_ok : {false, true}) {
    for (const bool allow_cuda : {false, true}) {
      Layout layout;
      const CheckResult r = dlnode::CheckTensor(t, null_strides_ok, dtypes, &layout, allow_cuda);
      const Expected m = Model(t, null_strides_ok, allow_cuda);
      FUZZ_REQUIRE(r.failure == m.failure);
      FUZZ_REQUIRE(r.ok() == r.message.empty());
      if (t.ndim > kMaxDims) FUZZ_REQUIRE(r.failure == CheckFailure::kNdim);
      if (r.ok()) CheckAccepted(t, layout, m, dtypes);
    }
  }

  // The whole checklist as the import runs it: the version decides first.
  for (const bool allow_cuda : {false, true}) {
    Layout layout;
    const DLPackVersion* version = versioned ? &v->version : nullptr;
    const CheckResult r = dlnode::CheckManagedTensor(version, t, dtypes, &layout, allow_cuda);
    if (version != nullptr && version->major > 1) {
      FUZZ_REQUIRE(r.failure == CheckFailure::kVersion && !r.message.empty());
    } else {
      const bool null_strides_ok = version == nullptr || version->major == 0 || version->minor < 2;
      const Expected m = Model(t, null_strides_ok, allow_cuda);
      FUZZ_REQUIRE(r.failure == m.failure);
      if (r.ok()) CheckAccepted(t, layout, m, dtypes);
    }
  }

  if (t.ndim >= 0 && t.ndim <= kMaxDims && !null_shape && !null_strides) {
    // Callers pass item sizes of at least 1 byte; 1 to 32 here.
    CheckComputeExtent(t.ndim, shape.get(), strides.get(), t.dtype.bits / 8u + 1u);
  }

  // Foreign deleters are not ours, and run once when called.
  FUZZ_REQUIRE(!managed.own());
  deleter_calls = 0;
  managed.reset();
  FUZZ_REQUIRE(deleter_calls == 1 && deleted == ptr && !managed);
  managed.reset();  // emptied: never a second call
  FUZZ_REQUIRE(deleter_calls == 1);
  return 0;
}
