// DLDataType shorthand for the tests. The dtype table itself is the library's
// (dlnode::Dtypes(), src/core/dtype.h), never a copy.
#ifndef DLPACK_NODE_TEST_CPP_TEST_DTYPES_H_
#define DLPACK_NODE_TEST_CPP_TEST_DTYPES_H_

#include <cstdint>

#include "dtype.h"

namespace dlnode_test {

inline DLDataType Dtype(uint8_t code, uint8_t bits, uint16_t lanes = 1) {
  return DLDataType{code, bits, lanes};
}

}  // namespace dlnode_test

#endif  // DLPACK_NODE_TEST_CPP_TEST_DTYPES_H_
