#include "index.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "../element.h"
#include "../parallel.h"
#include "lanes.h"
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
  // A dense index, the common case: one typed pass for the range, the
  // element-by-element walk below only to name the first index outside it.
  if (w.ndim == 1 && (w.strides[0] == 1 || n <= 1)) {
    bool inside = true;
    if (index.type == Scalar::kInt32) {
      const auto* p = reinterpret_cast<const int32_t*>(index.first);
      for (int64_t i = 0; i < n; ++i) inside &= p[i] >= lo && p[i] < hi;
    } else {
      const auto* p = reinterpret_cast<const int64_t*>(index.first);
      for (int64_t i = 0; i < n; ++i) inside &= p[i] >= lo && p[i] < hi;
    }
    if (inside) return {};
  }
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

// One run of the last dim: len elements of `bytes` bytes each, out at o
// (step so), the source at base + index * step (base steps sb), the indices
// at ip (step si), all in bytes. Typed on the index and the element size, so
// the loop is a load, a multiply-add and a copy.
template <class I, int kBytes>
void CopyRun(char* o, int64_t so, const char* base, int64_t sb, const char* ip, int64_t si,
             int64_t step, int64_t len) {
  for (int64_t j = 0; j < len; ++j) {
    I at;
    std::memcpy(&at, ip + j * si, sizeof at);
    std::memcpy(o + j * so, base + j * sb + static_cast<int64_t>(at) * step, kBytes);
  }
}

template <class I>
void CopyRunOf(int64_t bytes, char* o, int64_t so, const char* base, int64_t sb, const char* ip,
               int64_t si, int64_t step, int64_t len) {
  switch (bytes) {
    case 1:
      return CopyRun<I, 1>(o, so, base, sb, ip, si, step, len);
    case 2:
      return CopyRun<I, 2>(o, so, base, sb, ip, si, step, len);
    case 4:
      return CopyRun<I, 4>(o, so, base, sb, ip, si, step, len);
    case 8:
      return CopyRun<I, 8>(o, so, base, sb, ip, si, step, len);
    default:
      return CopyRun<I, 16>(o, so, base, sb, ip, si, step, len);
  }
}

// out[p] = in[base(p) + index(p) * step], over out's shape, where
// base_strides are in's strides with 0 at `dim` and index_strides index's:
// runs of the last dim, the outer dims walked once a run.
void Copy(const View& in, int dim, const View& out, const int64_t* base_strides, const View& index,
          const int64_t* index_strides) {
  const int64_t item = in.item();
  const int64_t index_item = index.item();
  const int64_t step = in.strides[dim] * item;
  // Runs along the innermost dim longer than 1 (size-1 dims after it add
  // nothing to any offset).
  int last = out.ndim - 1;
  while (last > 0 && out.shape[last] == 1) --last;
  const int64_t len = out.ndim == 0 ? 1 : out.shape[last];
  const int64_t runs = len == 0 ? 0 : out.size() / len;
  const int64_t so = out.ndim == 0 ? 0 : out.strides[last] * item;
  const int64_t sb = out.ndim == 0 ? 0 : base_strides[last] * item;
  const int64_t si = out.ndim == 0 ? 0 : index_strides[last] * index_item;
  ParallelFor(runs, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(len, 1)),
              [&](int64_t b, int64_t e) {
                Odometer od(std::max(last, 0), out.shape, out.strides, base_strides, index_strides,
                            b);
                for (int64_t r = b; r < e; ++r, od.Next()) {
                  char* o = out.first + od.off[0] * item;
                  const char* base = in.first + od.off[1] * item;
                  const char* ip = index.first + od.off[2] * index_item;
                  if (index.type == Scalar::kInt32) {
                    CopyRunOf<int32_t>(item, o, so, base, sb, ip, si, step, len);
                  } else {
                    CopyRunOf<int64_t>(item, o, so, base, sb, ip, si, step, len);
                  }
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
  element::DispatchReal(in.type, [&](auto tag) {
    using S = typename decltype(tag)::type;
    Cursor c(w, b);
    for (int64_t i = b; i < e; ++i, c.Next()) {
      if (element::Load<S>(in.first + c.offset() * in.item()) != 0) f(i);
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
