// Random numbers from a seeded generator (torch.rand, randn, randint,
// multinomial; docs/development.md "Compute families"). A dl.Generator is
// (seed, offset): each draw reads Philox4x32-10 counters offset, offset + 1,
// ... (philox.h), tells how many it used, and lib/ moves the offset past
// them, so consecutive draws never share a counter. Element i of a draw uses
// fixed words of fixed counters (below), whatever the thread count, layout
// or platform:
//  - rand: float32 takes one 32-bit word (its top 24 bits: k / 2^24 in
//    [0, 1)), float64 two (53 bits), float16 the top 11 bits of one, bfloat16
//    the top 8: every value is exact in its type and below 1;
//  - randn: Box-Muller, in double: a pair of uniforms u1 in (0, 1], u2 in
//    [0, 1) gives sqrt(-2 ln u1) cos(2 pi u2) and ... sin(2 pi u2) for two
//    neighbouring elements (32-bit uniforms for 16- and 32-bit types, 53-bit
//    for float64); the one place libm enters (log, cos, sin), so a float64
//    value may differ in its last bit between C libraries;
//  - randint in [low, high): 64 random bits r per element, low + (r * (high -
//    low)) >> 64 (a bias below (high - low) / 2^64, where torch's modulo has
//    more);
//  - multinomial: validated first (kProbability for a negative, infinite or
//    NaN weight, kDistribution for a row summing to 0 or, without
//    replacement, with fewer nonzero weights than samples; the message names
//    the row), then with replacement an inverse-CDF draw per sample (53-bit
//    uniform), without replacement the largest w / E of each category (E an
//    exponential draw: the sampling torch does), in that order.
#ifndef DLPACK_NODE_CORE_COMPUTE_RANDOM_H_
#define DLPACK_NODE_CORE_COMPUTE_RANDOM_H_

#include <cstdint>

#include "compute_result.h"
#include "view.h"

// X(jsName, Constant)
#define DLNODE_RANDOM_OPS(X) \
  X(rand, kRand)             \
  X(randn, kRandn)           \
  X(randint, kRandint)

namespace dlnode {
namespace compute {

enum class RandomOp {
#define DLNODE_RANDOM_ENUM(js, constant) constant,
  DLNODE_RANDOM_OPS(DLNODE_RANDOM_ENUM)
#undef DLNODE_RANDOM_ENUM
};

struct RandomArgs {
  RandomOp op = RandomOp::kRand;
  uint64_t seed = 0;
  uint64_t offset = 0;  // the first counter
  int64_t low = 0;      // randint: [low, high), high > low
  int64_t high = 1;
  View out;  // rand, randn: a float type; randint: any real type
  Place place;
};

// Fills out; *used is the number of counters read (the generator's next
// offset is offset + *used).
ComputeResult Random(const RandomArgs& args, uint64_t* used);

struct MultinomialArgs {
  View probs;           // [rows, k] (a 1-d input is one row), a float type
  int64_t samples = 1;  // per row, >= 1 (and <= k without replacement: lib/)
  bool replacement = false;
  uint64_t seed = 0;
  uint64_t offset = 0;
  View out;  // [rows, samples], int64
  Place place;
};

ComputeResult Multinomial(const MultinomialArgs& args, uint64_t* used);

}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_RANDOM_H_
