#include "dtype.h"

namespace dlnode {

int DtypeTable::Find(DLDataType type) const {
  if (type.lanes != 1) return -1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].code == type.code && entries_[i].bits == type.bits) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace dlnode
