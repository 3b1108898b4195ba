// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC'11), the counter-based generator under dl.Generator:
// 128 bits of counter and 64 of key in, 128 random bits out, ten rounds of
// two 32x32 -> 64-bit multiplies. Element i of a draw is a function of (seed,
// counter) alone, so the values do not depend on the thread count or on the
// order work is done in, and the integer arithmetic gives the same bits on
// every platform. cuRAND's default generator and torch's CUDA generator are
// this algorithm too, but neither maps a seed and an element to a counter as
// random.h does: the bits are not torch's (torch's CPU generator is a
// Mersenne Twister). test/cpp/random_test.cc checks Random123's known-answer
// vectors.
#ifndef DLPACK_NODE_CORE_COMPUTE_PHILOX_H_
#define DLPACK_NODE_CORE_COMPUTE_PHILOX_H_

#include <cstdint>

namespace dlnode {
namespace compute {

struct Philox4x32 {
  uint32_t v[4];
};

inline Philox4x32 Philox(Philox4x32 counter, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMul0 = 0xD2511F53U;
  constexpr uint32_t kMul1 = 0xCD9E8D57U;
  constexpr uint32_t kWeyl0 = 0x9E3779B9U;  // the golden ratio
  constexpr uint32_t kWeyl1 = 0xBB67AE85U;  // sqrt(3) - 1
  uint32_t* c = counter.v;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * c[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32);
    const uint32_t lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32);
    const uint32_t lo1 = static_cast<uint32_t>(p1);
    const Philox4x32 next{{hi1 ^ c[1] ^ key0, lo1, hi0 ^ c[3] ^ key1, lo0}};
    counter = next;
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

// The 128 bits of counter `index` of a generator seeded with `seed`: the
// seed is the key, the 64-bit index the counter's low half.
inline Philox4x32 PhiloxBlock(uint64_t seed, uint64_t index) {
  return Philox(
      Philox4x32{{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0, 0}},
      static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_PHILOX_H_
