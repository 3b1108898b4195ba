// The dtypes this library represents: (DLPack type code, bits) pairs, lanes 1.
// DLNODE_DTYPES is the one list. Its order is the dtype index used everywhere
// (the addon's scratch slots, lib/dtypes.js's rows): init() hands the list to
// lib/binding.js, which refuses to load when lib/dtypes.js lists other rows.
#ifndef DLPACK_NODE_CORE_DTYPE_H_
#define DLPACK_NODE_CORE_DTYPE_H_

#include <cstdint>
#include <vector>

#include "dlpack_abi.h"

// X(name, Index, code, bits)
#define DLNODE_DTYPES(X)                   \
  X(bool, kBool, kDLBool, 8)               \
  X(int8, kInt8, kDLInt, 8)                \
  X(int16, kInt16, kDLInt, 16)             \
  X(int32, kInt32, kDLInt, 32)             \
  X(int64, kInt64, kDLInt, 64)             \
  X(uint8, kUint8, kDLUInt, 8)             \
  X(uint16, kUint16, kDLUInt, 16)          \
  X(uint32, kUint32, kDLUInt, 32)          \
  X(uint64, kUint64, kDLUInt, 64)          \
  X(float16, kFloat16, kDLFloat, 16)       \
  X(bfloat16, kBfloat16, kDLBfloat, 16)    \
  X(float32, kFloat32, kDLFloat, 32)       \
  X(float64, kFloat64, kDLFloat, 64)       \
  X(complex64, kComplex64, kDLComplex, 64) \
  X(complex128, kComplex128, kDLComplex, 128)

namespace dlnode {

struct DtypeEntry {
  uint8_t code;
  uint8_t bits;
};

// Dtype indices: dtype::kFloat32 is the index of float32.
namespace dtype {
enum Index : int {
#define DLNODE_DTYPE_INDEX(name, index, code, bits) index,
  DLNODE_DTYPES(DLNODE_DTYPE_INDEX)
#undef DLNODE_DTYPE_INDEX
      kCount
};
}  // namespace dtype

class DtypeTable {
 public:
  DtypeTable() = default;
  explicit DtypeTable(std::vector<DtypeEntry> entries) : entries_(std::move(entries)) {}

  // Index of `type` in the table, or -1 when it is not representable here
  // (unknown code, odd bits, or lanes != 1).
  int Find(DLDataType type) const;
  const DtypeEntry& at(int index) const { return entries_.at(static_cast<size_t>(index)); }
  int size() const { return static_cast<int>(entries_.size()); }

  // Bytes per element; complex counts both parts (bits covers the value).
  static uint64_t ItemSize(DtypeEntry e) { return (e.bits + 7u) / 8u; }

 private:
  std::vector<DtypeEntry> entries_;
};

// The table of DLNODE_DTYPES (built once, never changed).
const DtypeTable& Dtypes();

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_DTYPE_H_
