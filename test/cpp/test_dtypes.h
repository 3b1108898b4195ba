// The dtype table the addon receives at load, in the order of lib/dtypes.js.
#ifndef DLPACK_NODE_TEST_CPP_TEST_DTYPES_H_
#define DLPACK_NODE_TEST_CPP_TEST_DTYPES_H_

#include <cstdint>

#include "dtype.h"

namespace dlnode_test {

// Indices into the table, as lib/dtypes.js numbers its rows.
enum DtypeIndex {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kFloat16,
  kBfloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
  kDtypeCount,
};

inline dlnode::DtypeTable JsDtypeTable() {
  return dlnode::DtypeTable({
      {6, 8},    // bool
      {0, 8},    // int8
      {0, 16},   // int16
      {0, 32},   // int32
      {0, 64},   // int64
      {1, 8},    // uint8
      {1, 16},   // uint16
      {1, 32},   // uint32
      {1, 64},   // uint64
      {2, 16},   // float16
      {4, 16},   // bfloat16
      {2, 32},   // float32
      {2, 64},   // float64
      {5, 64},   // complex64
      {5, 128},  // complex128
  });
}

inline DLDataType Dtype(uint8_t code, uint8_t bits, uint16_t lanes = 1) {
  return DLDataType{code, bits, lanes};
}

}  // namespace dlnode_test

#endif  // DLPACK_NODE_TEST_CPP_TEST_DTYPES_H_
