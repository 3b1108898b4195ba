#include "dtype.h"

namespace dlnode {

int DtypeTable::Find(DLDataType type) const {
  if (type.lanes != 1) return -1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].code == type.code && entries_[i].bits == type.bits) return static_cast<int>(i);
  }
  return -1;
}

const DtypeTable& Dtypes() {
#define DLNODE_DTYPE_ENTRY(name, index, code, bits) {static_cast<uint8_t>(code), bits},
  static const auto* table = new DtypeTable({DLNODE_DTYPES(DLNODE_DTYPE_ENTRY)});
#undef DLNODE_DTYPE_ENTRY
  return *table;  // never destroyed: deleters and worker threads may use it at exit
}

}  // namespace dlnode
