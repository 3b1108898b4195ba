#include "random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "../parallel.h"
#include "lanes.h"
#include "philox.h"
#include "scratch.h"

namespace dlnode {
namespace compute {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// Word w (0..) of the stream of a generator at `offset`.
struct Stream {
  uint64_t seed;
  uint64_t offset;
  // The four words of counter `block` of the draw.
  Philox4x32 Block(uint64_t block) const { return PhiloxBlock(seed, offset + block); }
};

double Uniform53(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(bits) * 0x1p-53;
}

// Writes element i (row-major) of out.
struct Writer {
  const View& out;
  Walk walk;
  explicit Writer(const View& v) : out(v), walk(v.ndim, v.shape, v.strides) {}
  char* At(int64_t i) const { return out.first + walk.Offset(i) * out.item(); }
};

void StoreInteger(char* p, Scalar type, int64_t v) {
  if (IsReal(type)) {
    StoreReal(p, type, static_cast<double>(v));
    return;
  }
  if (type == Scalar::kBool) v = v != 0 ? 1 : 0;
  std::memcpy(p, &v, ScalarSize(type));  // little-endian: the low bytes
}

// Elements per counter for op and type, and each counter's elements.
int PerBlock(RandomOp op, Scalar type) {
  if (op == RandomOp::kRandint) return 2;
  return type == Scalar::kFloat64 ? 2 : 4;
}

void FillBlock(const RandomArgs& args, const Writer& w, const Philox4x32& r, int64_t first,
               int64_t count) {
  const Scalar type = args.out.type;
  switch (args.op) {
    case RandomOp::kRand:
      for (int64_t j = 0; j < count; ++j) {
        double u;
        if (type == Scalar::kFloat64) {
          u = Uniform53(r.v[2 * j], r.v[2 * j + 1]);
        } else {
          const int bits = type == Scalar::kFloat16 ? 11 : type == Scalar::kBfloat16 ? 8 : 24;
          u = std::ldexp(static_cast<double>(r.v[j] >> (32 - bits)), -bits);
        }
        StoreReal(w.At(first + j), type, u);
      }
      break;
    case RandomOp::kRandn: {
      // Pairs of uniforms: float64 (u1, u2) from words (0,1) and (2,3); other
      // types from (0, 1) and (2, 3) for each half of the block.
      double z[4];
      if (type == Scalar::kFloat64) {
        const double u1 = 1.0 - Uniform53(r.v[0], r.v[1]);  // (0, 1]
        const double u2 = Uniform53(r.v[2], r.v[3]);
        const double radius = std::sqrt(-2.0 * std::log(u1));
        z[0] = radius * std::cos(kTwoPi * u2);
        z[1] = radius * std::sin(kTwoPi * u2);
      } else {
        for (int h = 0; h < 2; ++h) {
          const double u1 = (static_cast<double>(r.v[2 * h]) + 1.0) * 0x1p-32;  // (0, 1]
          const double u2 = static_cast<double>(r.v[2 * h + 1]) * 0x1p-32;
          const double radius = std::sqrt(-2.0 * std::log(u1));
          z[2 * h] = radius * std::cos(kTwoPi * u2);
          z[2 * h + 1] = radius * std::sin(kTwoPi * u2);
        }
      }
      for (int64_t j = 0; j < count; ++j) StoreReal(w.At(first + j), type, z[j]);
      break;
    }
    case RandomOp::kRandint: {
      const auto range = static_cast<uint64_t>(args.high) - static_cast<uint64_t>(args.low);
      for (int64_t j = 0; j < count; ++j) {
        const uint64_t bits = static_cast<uint64_t>(r.v[2 * j]) << 32 | r.v[2 * j + 1];
        const auto scaled =
            static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * range) >> 64);
        StoreInteger(w.At(first + j), type,
                     static_cast<int64_t>(static_cast<uint64_t>(args.low) + scaled));
      }
      break;
    }
  }
}

}  // namespace

ComputeResult Random(const RandomArgs& args, uint64_t* used) {
  *used = 0;
  if (ComputeResult r = RequireHost(args.place, "random numbers"); !r.ok()) return r;
  const int64_t n = args.out.size();
  const int per = PerBlock(args.op, args.out.type);
  const int64_t blocks = (n + per - 1) / per;
  const Stream stream{args.seed, args.offset};
  const Writer w(args.out);
  ParallelFor(blocks, std::max<int64_t>(1, kDefaultGrain / per), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      FillBlock(args, w, stream.Block(static_cast<uint64_t>(k)), k * per,
                std::min<int64_t>(per, n - k * per));
    }
  });
  *used = static_cast<uint64_t>(blocks);
  return {};
}

namespace {

std::string RowOf(int64_t row, int64_t rows) {
  return rows == 1 ? std::string("the probabilities") : "row " + std::to_string(row);
}

}  // namespace

ComputeResult Multinomial(const MultinomialArgs& args, uint64_t* used) {
  *used = 0;
  if (ComputeResult r = RequireHost(args.place, "multinomial"); !r.ok()) return r;
  const LaneView probs(args.probs, 1);
  const int64_t rows = probs.lanes();
  const int64_t k = probs.length();
  const int64_t step = probs.inner.strides[0] * args.probs.item();
  // Checked first, every row, before anything is written.
  for (int64_t r = 0; r < rows; ++r) {
    const char* lane = probs.Lane(r);
    double total = 0;
    int64_t nonzero = 0;
    for (int64_t j = 0; j < k; ++j) {
      const double p = LoadReal(lane + j * step, args.probs.type);
      if (!(p >= 0) || std::isinf(p)) {
        return Failed(ComputeFailure::kProbability,
                      "Expected every probability of multinomial finite and >= 0, received " +
                          std::to_string(p) + " at [" + std::to_string(r) + ", " +
                          std::to_string(j) + "]");
      }
      total += p;
      nonzero += p > 0 ? 1 : 0;
    }
    if (!(total > 0)) {
      return Failed(ComputeFailure::kDistribution,
                    "Expected a positive sum of every row of multinomial's probabilities, "
                    "received 0 for " +
                        RowOf(r, rows));
    }
    if (!args.replacement && nonzero < args.samples) {
      return Failed(ComputeFailure::kDistribution,
                    "Expected at least " + std::to_string(args.samples) +
                        " nonzero probabilities in every row for as many samples without "
                        "replacement, received " +
                        std::to_string(nonzero) + " in " + RowOf(r, rows));
    }
  }
  // Two 32-bit words (a 53-bit uniform) per sample, or per category.
  const int64_t draws = args.replacement ? args.samples : k;
  const uint64_t words = static_cast<uint64_t>(rows) * static_cast<uint64_t>(draws) * 2;
  const Stream stream{args.seed, args.offset};
  auto uniform = [&](int64_t row, int64_t i) {
    const uint64_t word = (static_cast<uint64_t>(row) * static_cast<uint64_t>(draws) + i) * 2;
    const Philox4x32 b = stream.Block(word / 4);
    return Uniform53(b.v[word % 4], b.v[word % 4 + 1]);
  };
  const int slots =
      static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(GetNumThreads(), rows)));
  Scratch<double> memory;  // per slot: k cumulative sums or keys, k indices
  const uint64_t need = static_cast<uint64_t>(slots) * static_cast<uint64_t>(k) * 2;
  if (!memory.Allocate(need)) return OutOfMemory("multinomial's per-row buffers", need * 8);
  const Walk out(args.out.ndim, args.out.shape, args.out.strides);
  auto put = [&](int64_t row, int64_t s, int64_t value) {
    std::memcpy(args.out.first + out.Offset(row * args.samples + s) * 8, &value, sizeof value);
  };
  ParallelChunks(rows, slots, [&](int64_t b, int64_t e, int slot) {
    double* cum = memory.data() + static_cast<uint64_t>(slot) * static_cast<uint64_t>(k) * 2;
    auto* order = reinterpret_cast<int64_t*>(cum + k);
    for (int64_t r = b; r < e; ++r) {
      const char* lane = probs.Lane(r);
      if (args.replacement) {
        double total = 0;
        for (int64_t j = 0; j < k; ++j)
          cum[j] = total += LoadReal(lane + j * step, args.probs.type);
        for (int64_t s = 0; s < args.samples; ++s) {
          const double target = uniform(r, s) * total;
          // The first category whose cumulative sum passes target (a zero
          // weight never does: its sum equals its predecessor's).
          const int64_t j = std::upper_bound(cum, cum + k, target) - cum;
          put(r, s, std::min(j, k - 1));
        }
        continue;
      }
      for (int64_t j = 0; j < k; ++j) {
        const double w = LoadReal(lane + j * step, args.probs.type);
        const double exponential = -std::log(1.0 - uniform(r, j));  // > 0
        cum[j] = w / exponential;
        order[j] = j;
      }
      std::partial_sort(order, order + args.samples, order + k, [cum](int64_t x, int64_t y) {
        return cum[x] > cum[y] || (cum[x] == cum[y] && x < y);
      });
      for (int64_t s = 0; s < args.samples; ++s) put(r, s, order[s]);
    }
  });
  *used = (words + 3) / 4;
  return {};
}

}  // namespace compute
}  // namespace dlnode
