// The calling convention between lib/binding.js and the bindings: the scratch
// block's slots and the numbers that come back through it. Each list is
// written once, here or in the core header that owns it (ViewFailure in
// ../core/buffer_view.h, MemoryKind in ../core/cuda_memory.h, the dtypes in
// ../core/dtype.h); init() hands them all to lib/binding.js (Convention()).
#ifndef DLPACK_NODE_ADDON_CONVENTION_H_
#define DLPACK_NODE_ADDON_CONVENTION_H_

#include <napi.h>

#include <cstdint>

#include "../core/convert.h"
#include "../core/layout.h"

// Scratch slots (doubles): X(jsName, Constant, first slot). Inputs a binding
// reads and results it writes share the block; each binding's comment says
// which it uses.
// operandStrides: an op's second and third input (2 x kMaxDims slots).
#define DLNODE_SCRATCH_SLOTS(X)                                                \
  X(ndim, kNdim, 0)                                                            \
  X(dtype, kDtype, 1)                                                          \
  X(deviceType, kDeviceType, 2)                                                \
  X(deviceId, kDeviceId, 3)                                                    \
  X(flags, kFlags, 4)                                                          \
  X(byteOffset, kByteOffset, 5)                                                \
  X(extent, kExtent, 6)                                                        \
  X(major, kMajor, 7)                                                          \
  X(minor, kMinor, 8)                                                          \
  X(result, kResult, 9)                                                        \
  X(view, kView, 10)       /* 5 slots: fromBuffer's numbers (buffer_view.h) */ \
  X(offsets, kOffsets, 16) /* 4 slots: a dense op's byte offsets (ops.h) */    \
  X(shape, kShape, 20)                                                         \
  X(strides, kStrides, kShape + kMaxDims)                                      \
  X(sourceStrides, kSourceStrides, kStrides + kMaxDims) /* a copy's source */  \
  X(operandStrides, kOperandStrides, kSourceStrides + kMaxDims)                \
  X(count, kCount, kOperandStrides + 2 * kMaxDims) /* the block's length */

// What importCapsule hands back (slot kResult): X(jsName, Constant, value).
#define DLNODE_IMPORT_RESULTS(X) \
  X(jsBuffer, kJsBuffer, 0)      \
  X(foreign, kForeign, 1)        \
  X(copied, kCopied, 2)

namespace dlnode {

namespace slot {
// NOLINTNEXTLINE(bugprone-macro-parentheses): `constant` is a name being declared
#define DLNODE_SLOT_CONSTANT(js, constant, value) constexpr int constant = (value);
DLNODE_SCRATCH_SLOTS(DLNODE_SLOT_CONSTANT)
#undef DLNODE_SLOT_CONSTANT
}  // namespace slot

enum class ImportResult {
#define DLNODE_IMPORT_RESULT(js, constant, value) constant = (value),
  DLNODE_IMPORT_RESULTS(DLNODE_IMPORT_RESULT)
#undef DLNODE_IMPORT_RESULT
};

// { slots, importResult, viewFailure, memoryKind, dtypes, ops, maxThreads,
// maxDims, dlpackVersion, dlpackFlags, hugePageAdviceMin, slab }: every list above as JS
// reads it (dtypes: [[name, code, bits], ...] in index order; slab: the
// struct slab's { states, fields: { name: [byte offset, bytes] }, layout },
// ../core/struct_slab.h). Each is a fact written once in C++; lib/ reads it
// from here and writes no copy (test/architecture.test.js).
Napi::Object Convention(Napi::Env env);

// Reading what JS wrote, bounded. lib/ checks every value, but tensor state
// that JavaScript can reach may have been changed since, so no native entry
// point trusts a number it is given: each of these throws ERR_OUT_OF_RANGE.
// The scratch block's ndim: an integer in [0, kMaxDims].
int ScratchNdim(const double* scratch);
// `count` integers from slot `first` into `out`, each of magnitude below 2^53
// and, where `sizes`, not negative.
void ScratchInts(const double* scratch, int first, int count, bool sizes, int64_t* out);
// A shape of `ndim` sizes from the shape slots into `shape` (ScratchInts'
// checks), whose element count is at most 2^53 - 1 (CountElements).
void ScratchShape(const double* scratch, int ndim, int64_t* shape);
// A byte offset: an integer in [0, 2^53).
uint64_t ByteOffsetOf(double value, const char* what);
// The arithmetic type of the dtype at table index `index` (lib/dtypes.js
// order): ERR_DLPACK_UNSUPPORTED for an index outside the table or a dtype
// without arithmetic.
Scalar ScalarArg(const Napi::Value& index);
// Whether `length` bytes hold a view whose bytes are [offset - low,
// offset + high), in arithmetic that cannot wrap.
inline bool Holds(uint64_t length, uint64_t offset, uint64_t low, uint64_t high) {
  return offset >= low && high <= length && offset <= length - high;
}

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_CONVENTION_H_
