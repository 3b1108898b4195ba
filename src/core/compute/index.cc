#include "index.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "../parallel.h"
#include "lanes.h"
#include "real_types.h"
#include "scratch.h"

namespace dlnode {
namespace compute {
namespace {

int64_t LoadIndex(const char* p, Scalar type) {
  if (type == Scalar::kInt32) {
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// "[1, 2]" for linear index i of shape.
std::string Position(int ndim, const int64_t* shape, int64_t i) {
  int64_t at[kMaxDims];
  for (int d = ndim - 1; d >= 0; --d) {
    at[d] = i % shape[d];
    i /= shape[d];
  }
  std::string s = "[";
  for (int d = 0; d < ndim; ++d) {
    if (d > 0) s += ", ";
    s += std::to_string(at[d]);
  }
  s += "]";
  return s;
}

// The first index outside [lo, hi), in row-major order, as a kIndex failure.
ComputeResult CheckIndices(const View& index, int64_t lo, int64_t hi, const char* op,
                           const std::string& range_of) {
  const Walk w(index.ndim, index.shape, index.strides);
  const int64_t n = index.size();
  Cursor c(w, 0);
  for (int64_t i = 0; i < n; ++i, c.Next()) {
    const int64_t v = LoadIndex(index.first + c.offset() * index.item(), index.type);
    if (v < lo || v >= hi) {
      return Failed(ComputeFailure::kIndex,
                    std::string("Expected every index of ") + op + " in [" + std::to_string(lo) +
                        ", " + std::to_string(hi) + ") (" + range_of + "), received " +
                        std::to_string(v) + " at " + Position(index.ndim, index.shape, i));
    }
  }
  return {};
}

// Walks the positions of `shape` in row-major order with up to three
// offsets (elements), each with its own strides.
struct Odometer {
  int ndim;
  const int64_t* shape;
  const int64_t* strides[3];
  int64_t pos[kMaxDims] = {};
  int64_t off[3] = {};

  Odometer(int n, const int64_t* s, const int64_t* s0, const int64_t* s1, const int64_t* s2,
           int64_t start)
      : ndim(n), shape(s), strides{s0, s1, s2} {
    for (int d = ndim - 1; d >= 0; --d) {
      pos[d] = start % shape[d];
      start /= shape[d];
      for (int k = 0; k < 3; ++k) off[k] += pos[d] * strides[k][d];
    }
  }
  void Next() {
    for (int d = ndim - 1; d >= 0; --d) {
      for (int k = 0; k < 3; ++k) off[k] += strides[k][d];
      if (++pos[d] < shape[d]) return;
      for (int k = 0; k < 3; ++k) off[k] -= strides[k][d] * shape[d];
      pos[d] = 0;
    }
  }
};

// out[p] = in[base(p) + index(p) * step], over out's shape, where
// base_strides are in's strides with 0 at `dim` and index_strides index's.
void Copy(const View& in, int dim, const View& out, const int64_t* base_strides, const View& index,
          const int64_t* index_strides) {
  const int64_t item = in.item();
  const int64_t step = in.strides[dim];
  const int64_t n = out.size();
  ParallelFor(n, kDefaultGrain, [&](int64_t b, int64_t e) {
    Odometer od(out.ndim, out.shape, out.strides, base_strides, index_strides, b);
    for (int64_t i = b; i < e; ++i, od.Next()) {
      const int64_t at = LoadIndex(index.first + od.off[2] * index.item(), index.type);
      std::memcpy(out.first + od.off[0] * item, in.first + (od.off[1] + at * step) * item,
                  static_cast<size_t>(item));
    }
  });
}

}  // namespace

ComputeResult Gather(const GatherArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "gather"); !r.ok()) return r;
  if (ComputeResult r = CheckIndices(args.index, 0, args.in.shape[args.dim], "gather",
                                     "the size of dim " + std::to_string(args.dim));
      !r.ok()) {
    return r;
  }
  int64_t base[kMaxDims];
  for (int d = 0; d < args.in.ndim; ++d) base[d] = d == args.dim ? 0 : args.in.strides[d];
  Copy(args.in, args.dim, args.out, base, args.index, args.index.strides);
  return {};
}

ComputeResult IndexSelect(const IndexSelectArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "indexSelect"); !r.ok()) return r;
  if (ComputeResult r = CheckIndices(args.index, 0, args.in.shape[args.dim], "indexSelect",
                                     "the size of dim " + std::to_string(args.dim));
      !r.ok()) {
    return r;
  }
  int64_t base[kMaxDims];
  int64_t index_strides[kMaxDims] = {};
  for (int d = 0; d < args.in.ndim; ++d) base[d] = d == args.dim ? 0 : args.in.strides[d];
  index_strides[args.dim] = args.index.ndim == 0 ? 0 : args.index.strides[0];
  Copy(args.in, args.dim, args.out, base, args.index, index_strides);
  return {};
}

ComputeResult Take(const TakeArgs& args) {
  if (ComputeResult r = RequireHost(args.place, "take"); !r.ok()) return r;
  const int64_t size = args.in.size();
  if (ComputeResult r = CheckIndices(args.index, -size, size, "take", "the element count");
      !r.ok()) {
    return r;
  }
  const Walk in(args.in.ndim, args.in.shape, args.in.strides);
  const Walk index(args.index.ndim, args.index.shape, args.index.strides);
  const Walk out(args.out.ndim, args.out.shape, args.out.strides);
  const int64_t item = args.in.item();
  ParallelFor(args.index.size(), kDefaultGrain, [&](int64_t b, int64_t e) {
    Cursor ci(index, b);
    Cursor co(out, b);
    for (int64_t i = b; i < e; ++i, ci.Next(), co.Next()) {
      int64_t at = LoadIndex(args.index.first + ci.offset() * args.index.item(), args.index.type);
      if (at < 0) at += size;
      std::memcpy(args.out.first + co.offset() * item, args.in.first + in.Offset(at) * item,
                  static_cast<size_t>(item));
    }
  });
  return {};
}

namespace {

// Elements per block of nonzero's count and fill (fixed: the split and the
// order of the result do not depend on the thread count).
constexpr int64_t kNonzeroBlock = 16384;

// f(i, nonzero) for elements [b, e) of in, row-major.
template <class F>
void EachNonzero(const View& in, int64_t b, int64_t e, const F& f) {
  const Walk w(in.ndim, in.shape, in.strides);
  DispatchReal(in.type, [&](auto tag) {
    using S = typename decltype(tag)::type;
    Cursor c(w, b);
    for (int64_t i = b; i < e; ++i, c.Next()) {
      if (Real<S>::Load(in.first + c.offset() * in.item()) != 0) f(i);
    }
  });
}

ComputeResult BlockCounts(const View& in, Scratch<int64_t>* counts) {
  const int64_t n = in.size();
  const int64_t blocks = (n + kNonzeroBlock - 1) / kNonzeroBlock;
  if (!counts->Allocate(static_cast<uint64_t>(blocks) + 1)) {
    return OutOfMemory("nonzero's block counts", (static_cast<uint64_t>(blocks) + 1) * 8);
  }
  ParallelFor(blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      int64_t c = 0;
      EachNonzero(in, k * kNonzeroBlock, std::min(n, (k + 1) * kNonzeroBlock),
                  [&](int64_t) { ++c; });
      (*counts)[k] = c;
    }
  });
  return {};
}

}  // namespace

ComputeResult NonzeroCount(const View& in, const Place& place, int64_t* count) {
  if (ComputeResult r = RequireHost(place, "nonzero"); !r.ok()) return r;
  Scratch<int64_t> counts;
  if (ComputeResult r = BlockCounts(in, &counts); !r.ok()) return r;
  int64_t total = 0;
  const int64_t blocks = (in.size() + kNonzeroBlock - 1) / kNonzeroBlock;
  for (int64_t k = 0; k < blocks; ++k) total += counts[k];
  *count = total;
  return {};
}

ComputeResult Nonzero(const View& in, const View& out, const Place& place) {
  if (ComputeResult r = RequireHost(place, "nonzero"); !r.ok()) return r;
  Scratch<int64_t> counts;
  if (ComputeResult r = BlockCounts(in, &counts); !r.ok()) return r;
  const int64_t n = in.size();
  const int64_t blocks = (n + kNonzeroBlock - 1) / kNonzeroBlock;
  // Exclusive prefix: where each block's rows start.
  int64_t at = 0;
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t c = counts[k];
    counts[k] = at;
    at += c;
  }
  const int64_t rows = out.ndim > 0 ? out.shape[0] : 0;
  const int64_t row_stride = out.ndim > 0 ? out.strides[0] : 0;
  const int64_t col_stride = out.ndim > 1 ? out.strides[1] : 0;
  ParallelFor(blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      int64_t row = counts[k];
      EachNonzero(in, k * kNonzeroBlock, std::min(n, (k + 1) * kNonzeroBlock), [&](int64_t i) {
        if (row >= rows) return;  // out sized by an older count: never past it
        int64_t rest = i;
        for (int d = in.ndim - 1; d >= 0; --d) {
          const int64_t v = rest % in.shape[d];
          rest /= in.shape[d];
          std::memcpy(out.first + (row * row_stride + d * col_stride) * 8, &v, sizeof v);
        }
        ++row;
      });
    }
  });
  return {};
}

}  // namespace compute
}  // namespace dlnode
