// The operand of every compute family's descriptor (docs/development.md
// "Compute families"): element 0 (the memory's address plus the tensor's
// offset), the dtype, and per dim the size and the stride in elements (any
// sign, 0 where broadcast). lib/route.js builds one per operand; a family's
// entry reads inputs through it and writes outputs through it. Inputs are
// never written (`first` is not const so that one type serves both).
#ifndef DLPACK_NODE_CORE_COMPUTE_VIEW_H_
#define DLPACK_NODE_CORE_COMPUTE_VIEW_H_

#include <cstdint>
#include <string>

#include "../convert.h"
#include "../dlpack_abi.h"
#include "../layout.h"
#include "compute_result.h"

namespace dlnode {
namespace compute {

struct View {
  char* first = nullptr;
  Scalar type = Scalar::kFloat32;
  int ndim = 0;
  const int64_t* shape = nullptr;
  const int64_t* strides = nullptr;  // elements

  int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
  int64_t item() const { return static_cast<int64_t>(ScalarSize(type)); }
  // The bytes the view touches; {first, first} when it is empty.
  ByteRange bytes() const {
    if (size() == 0) return {first, first};
    int64_t lo = 0;
    int64_t hi = 0;
    for (int d = 0; d < ndim; ++d) {
      const int64_t reach = (shape[d] - 1) * strides[d];
      if (reach < 0)
        lo += reach;
      else
        hi += reach;
    }
    return {first + lo * item(), first + (hi + 1) * item()};
  }
};

// Whether two byte ranges share a byte.
inline bool Overlap(ByteRange a, ByteRange b) { return a.lo < b.hi && b.lo < a.hi; }

// Where a family computes: a DLPack device and, for CUDA, the stream the work
// is enqueued on (1 the legacy default stream, 2 per-thread, else a handle).
struct Place {
  int32_t device_type = kDLCPU;
  int32_t device = 0;
  uintptr_t stream = 0;
};

// Families that compute on the host only (for now): kUnsupported for a
// device the CPU cannot read.
inline ComputeResult RequireHost(const Place& place, const char* family) {
  if (IsHostAccessible(place.device_type)) return {};
  return Failed(ComputeFailure::kUnsupported,
                std::string("Expected a CPU tensor for ") + family + ", received device type " +
                    std::to_string(place.device_type) + " (no device kernel yet)");
}

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_VIEW_H_
