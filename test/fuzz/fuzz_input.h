// Shared by the fuzz harnesses: a little-endian reader over the fuzz input
// that yields 0 once the bytes run out, and the check that stops the run.
//
// Small numbers are one byte so that mutations find short shapes and
// strides quickly: Small32/Small64 read a signed byte, and the byte 0x80
// (-128) means "a raw 4- or 8-byte value follows" (INT_MIN, 2^53, ... are
// reached that way). test/fuzz/make_corpus.js writes the same encoding.
#ifndef DLPACK_NODE_TEST_FUZZ_FUZZ_INPUT_H_
#define DLPACK_NODE_TEST_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

// A broken invariant is a crash, so that libFuzzer saves the input.
#define FUZZ_REQUIRE(cond)                                                                    \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      __builtin_trap();                                                                       \
    }                                                                                         \
  } while (0)

namespace dlnode_fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // An integer type's value, least significant byte first; gcc and clang
  // narrow to signed types modulo 2^N.
  template <typename T>
  T Raw() {
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      const uint64_t b = pos_ < size_ ? data_[pos_++] : 0;
      v |= b << (8 * i);
    }
    return static_cast<T>(v);
  }

  double Double() {
    const auto bits = Raw<uint64_t>();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

  int32_t Small32() {
    const auto b = Raw<int8_t>();
    return b == INT8_MIN ? Raw<int32_t>() : b;
  }

  int64_t Small64() {
    const auto b = Raw<int8_t>();
    return b == INT8_MIN ? Raw<int64_t>() : b;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace dlnode_fuzz

#endif  // DLPACK_NODE_TEST_FUZZ_FUZZ_INPUT_H_
