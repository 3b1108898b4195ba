// The set of (DLPack type code, bits) pairs this library can represent, in the
// order of lib/dtypes.js (the table lives in JS and is handed over at load).
#ifndef DLPACK_NODE_CORE_DTYPE_H_
#define DLPACK_NODE_CORE_DTYPE_H_

#include <cstdint>
#include <vector>

#include "dlpack_abi.h"

namespace dlnode {

struct DtypeEntry {
  uint8_t code;
  uint8_t bits;
};

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

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_DTYPE_H_
