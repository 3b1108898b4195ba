// The GEMM driver over Eigen's building blocks (gemm.h), included by the one
// translation unit of each instruction set after <Eigen/Core>, inside that
// unit's own namespace (DLNODE_GEMM_NS) and with Eigen renamed to a namespace
// of that unit's own, so no function compiled for AVX2 can stand in for the
// baseline's at link time.
//
// Goto's algorithm as Eigen's sequential general_matrix_matrix_product runs
// it (pack a kc-deep panel of A and of B, run the register-blocked kernel
// over them), with the work cut so that the pool can share it:
//  - kRowTiles: rows in tiles of kTileRows (a multiple of every kernel's row
//    step mr), each kc x nc panel of B packed once and read by every tile;
//  - kColTiles (few rows): columns in tiles (multiples of kColUnit, so every
//    kernel's column step nr), each tile packing its own B and the small A;
//  - a batch of matrices: one matrix a task;
//  - matrix-vector products: Eigen's GEMV over blocks of kGemvRows rows.
// Every cut is at a multiple of the kernel's register block, so an element is
// computed by the same instructions in the same order whichever tile holds it,
// and which cut applies depends on the shape alone: results are the same at
// any thread count (gemm_test.cc checks it bit for bit).
#ifndef DLPACK_NODE_CORE_COMPUTE_GEMM_DRIVER_H_
#define DLPACK_NODE_CORE_COMPUTE_GEMM_DRIVER_H_

#ifndef DLNODE_GEMM_NS
#error "gemm_driver.h is included by gemm_<isa>.cc only"
#endif

namespace driver {

using Eigen::Index;
namespace ei = Eigen::internal;

// A tile's rows: a multiple of 48, the least common multiple of every
// kernel's row step (mr: 24 and 12 for float and double with AVX2, 8 and 4
// with SSE2, 12 and 8 with NEON, 48 and 24 with AVX-512).
constexpr Index kTileRows = 240;
// A column tile's width is a multiple of this (every kernel's nr divides it).
constexpr Index kColUnit = 64;
// Below this many multiply-adds a product runs as one task.
constexpr Index kSerialMacs = Index(1) << 20;
// Rows of a matrix-vector block (a multiple of every GEMV's row step).
constexpr Index kGemvRows = 256;

// One product with a column-major C: c(i, j) = c[i + j * c_ld].
template <class T>
struct Problem {
  Index m, n, k;
  const T* a;
  Index a_rs, a_cs;
  const T* b;
  Index b_rs, b_cs;
  T* c;
  Index c_ld;
  const T* bias;
  Index bias_stride;
  bool bias_by_row;  // bias[i] on row i (a transposed problem), else bias[j] on column j
};

template <class T>
struct Blocking {
  Index kc, mc, nc;
};

// Eigen's blocking for the shape (its cache sizes are read once, here, under
// a function-local static: the first read is not thread-safe in Eigen).
template <class T>
Blocking<T> BlockingFor(Index m, Index n, Index k) {
  static const bool cached = [] {
    std::ptrdiff_t l1, l2, l3;
    ei::manage_caching_sizes(Eigen::GetAction, &l1, &l2, &l3);
    return l1 > 0;
  }();
  (void)cached;
  Index kc = k, mc = m, nc = n;
  ei::computeProductBlockingSizes<T, T, 1>(kc, mc, nc, Index(1));
  return {std::max<Index>(kc, 1), std::max<Index>(mc, 1), std::max<Index>(nc, 1)};
}

// C's rows [r0, r1) x columns [c0, c1) set to the bias, or to 0.
template <class T>
void InitOut(const Problem<T>& p, Index r0, Index r1, Index c0, Index c1) {
  for (Index j = c0; j < c1; ++j) {
    T* col = p.c + j * p.c_ld;
    if (p.bias == nullptr) {
      for (Index i = r0; i < r1; ++i) col[i] = T(0);
    } else if (p.bias_by_row) {
      for (Index i = r0; i < r1; ++i) col[i] = p.bias[i * p.bias_stride];
    } else {
      const T v = p.bias[j * p.bias_stride];
      for (Index i = r0; i < r1; ++i) col[i] = v;
    }
  }
}

template <class T, int LhsOrder, int RhsOrder>
struct Kernel {
  using Traits = ei::gebp_traits<T, T>;
  using LhsMapper = ei::const_blas_data_mapper<T, Index, LhsOrder>;
  using RhsMapper = ei::const_blas_data_mapper<T, Index, RhsOrder>;
  using ResMapper = ei::blas_data_mapper<T, Index, Eigen::ColMajor, Eigen::Unaligned, 1>;
  using PackLhs = ei::gemm_pack_lhs<T, Index, LhsMapper, Traits::mr, Traits::LhsProgress,
                                    typename Traits::LhsPacket4Packing, LhsOrder>;
  using PackRhs = ei::gemm_pack_rhs<T, Index, RhsMapper, Traits::nr, RhsOrder>;
  using Gebp = ei::gebp_kernel<T, T, Index, ResMapper, Traits::mr, Traits::nr, false, false>;

  static LhsMapper Lhs(const Problem<T>& p) {
    return LhsMapper(p.a, LhsOrder == Eigen::RowMajor ? p.a_rs : p.a_cs);
  }
  static RhsMapper Rhs(const Problem<T>& p) {
    return RhsMapper(p.b, RhsOrder == Eigen::RowMajor ? p.b_rs : p.b_cs);
  }

  // Columns [c0, c1) of C, on this thread, in Eigen's sequential order;
  // block_a holds mc x kc elements, block_b kc x nc.
  static void Serial(const Problem<T>& p, const Blocking<T>& bl, Index c0, Index c1, T* block_a,
                     T* block_b) {
    InitOut(p, 0, p.m, c0, c1);
    const LhsMapper lhs = Lhs(p);
    const RhsMapper rhs = Rhs(p);
    const ResMapper res(p.c, p.c_ld);
    PackLhs pack_lhs;
    PackRhs pack_rhs;
    Gebp gebp;
    for (Index i2 = 0; i2 < p.m; i2 += bl.mc) {
      const Index mc = std::min(bl.mc, p.m - i2);
      for (Index k2 = 0; k2 < p.k; k2 += bl.kc) {
        const Index kc = std::min(bl.kc, p.k - k2);
        pack_lhs(block_a, lhs.getSubMapper(i2, k2), kc, mc);
        for (Index j2 = c0; j2 < c1; j2 += bl.nc) {
          const Index nc = std::min(bl.nc, c1 - j2);
          pack_rhs(block_b, rhs.getSubMapper(k2, j2), kc, nc);
          gebp(res.getSubMapper(i2, j2), block_a, block_b, mc, kc, nc, T(1));
        }
      }
    }
  }

  // Row tiles of kTileRows sharing each packed panel of B; block_a holds
  // every tile's panel of A (rows rounded up to a tile, times kc), block_b
  // kc x nc. slots: how many ranges may run at once (no per-range scratch).
  static void RowTiles(const Problem<T>& p, const Blocking<T>& bl, T* block_a, T* block_b,
                       int slots) {
    const LhsMapper lhs = Lhs(p);
    const RhsMapper rhs = Rhs(p);
    const ResMapper res(p.c, p.c_ld);
    const Index tiles = (p.m + kTileRows - 1) / kTileRows;
    for (Index k2 = 0; k2 < p.k; k2 += bl.kc) {
      const Index kc = std::min(bl.kc, p.k - k2);
      for (Index j2 = 0; j2 < p.n; j2 += bl.nc) {
        const Index nc = std::min(bl.nc, p.n - j2);
        PackRhs()(block_b, rhs.getSubMapper(k2, j2), kc, nc);
        ParallelChunks(tiles, slots, [&](int64_t begin, int64_t end, int) {
          PackLhs pack_lhs;
          Gebp gebp;
          for (Index t = begin; t < end; ++t) {
            const Index r0 = t * kTileRows;
            const Index rows = std::min(kTileRows, p.m - r0);
            T* tile_a = block_a + r0 * bl.kc;
            if (k2 == 0 && j2 == 0) InitOut(p, r0, r0 + rows, 0, p.n);
            if (j2 == 0) pack_lhs(tile_a, lhs.getSubMapper(r0, k2), kc, rows);
            gebp(res.getSubMapper(r0, j2), tile_a, block_b, rows, kc, nc, T(1));
          }
        });
      }
    }
  }
};

// y = L x (+ y's bias): L rows x cols, unit stride in one dim; y of `rows`.
template <class T>
struct Gemv {
  Index rows, cols;
  const T* l;
  Index l_rs, l_cs;
  const T* x;
  Index x_inc;
  T* y;
  Index y_inc;
  const T* bias;
  Index bias_stride;
};

// Rows [r0, r1) of g; x contiguous when L is row-major, y when column-major.
template <class T>
void GemvRows(const Gemv<T>& g, Index r0, Index r1) {
  for (Index i = r0; i < r1; ++i) {
    g.y[i * g.y_inc] = g.bias == nullptr ? T(0) : g.bias[i * g.bias_stride];
  }
  if (g.cols == 0) return;
  if (g.l_cs == 1) {
    using LhsMapper = ei::const_blas_data_mapper<T, Index, Eigen::RowMajor>;
    using RhsMapper = ei::const_blas_data_mapper<T, Index, Eigen::ColMajor>;
    ei::general_matrix_vector_product<Index, T, LhsMapper, Eigen::RowMajor, false, T, RhsMapper,
                                      false>::run(r1 - r0, g.cols,
                                                  LhsMapper(g.l + r0 * g.l_rs, g.l_rs),
                                                  RhsMapper(g.x, 1), g.y + r0 * g.y_inc, g.y_inc,
                                                  T(1));
  } else {
    using LhsMapper = ei::const_blas_data_mapper<T, Index, Eigen::ColMajor>;
    using RhsMapper = ei::const_blas_data_mapper<T, Index, Eigen::RowMajor>;
    ei::general_matrix_vector_product<Index, T, LhsMapper, Eigen::ColMajor, false, T, RhsMapper,
                                      false>::run(r1 - r0, g.cols, LhsMapper(g.l + r0, g.l_cs),
                                                  RhsMapper(g.x, g.x_inc), g.y + r0, 1, T(1));
  }
}

// n elements rounded up to a whole number of 64-byte lines: Eigen stores its
// packed panels with aligned stores, so every panel starts on one (the
// scratch itself is 64-byte aligned).
template <class T>
uint64_t Lines(uint64_t n) {
  constexpr uint64_t kLine = 64 / sizeof(T);
  return (n + kLine - 1) / kLine * kLine;
}

// Scratch one task of a product needs, in elements.
struct Need {
  uint64_t shared = 0;    // read by every task
  uint64_t per_slot = 0;  // one per concurrent task
};

enum class Mode { kGemv, kSerial, kRowTiles, kColTiles };

template <class T>
struct Plan {
  Mode mode = Mode::kSerial;
  Blocking<T> bl{1, 1, 1};
  Index tasks = 1;      // kColTiles: column tiles; kGemv: row blocks
  Index tile_cols = 0;  // kColTiles
  Need need;
};

// The vector case of one product of the batch: n == 1 (A x) or m == 1
// (x B, as B^T x), with the copies of x or y it needs.
template <class T>
Gemv<T> GemvOf(const Operands<T>& op, const T* a, const T* b, T* c) {
  Gemv<T> g{};
  if (op.n == 1) {
    g = {op.m, op.k, a, op.a_rs, op.a_cs, b, op.b_rs, c, op.c_rs, op.bias, 0};
  } else {
    g = {op.n, op.k, b, op.b_cs, op.b_rs, a, op.a_cs, c, op.c_cs, op.bias, op.bias_stride};
  }
  // The stride of a size-1 dim is free: one column is row-major, one row
  // column-major (GemvRows takes L row-major when l_cs is 1).
  if (g.l_cs != 1 && g.cols == 1) g.l_cs = 1;
  if (g.l_cs != 1 && g.rows == 1) g.l_rs = 1;
  return g;
}

template <class T>
Problem<T> ProblemOf(const Operands<T>& op, const T* a, const T* b, T* c) {
  Index a_rs = op.a_rs, a_cs = op.a_cs, b_rs = op.b_rs, b_cs = op.b_cs;
  // The stride of a size-1 dim is free: make it 1 where that gives an order.
  if (op.m == 1 && a_cs != 1) a_rs = 1;
  if (op.k == 1) {
    if (a_rs != 1) a_cs = 1;
    if (b_cs != 1) b_rs = 1;
  }
  if (op.n == 1 && b_rs != 1) b_cs = 1;
  const bool c_col = op.c_rs == 1 && !(op.c_cs == 1 && op.m > 1);
  if (c_col) {
    return {op.m, op.n, op.k, a,       a_rs,    a_cs,           b,
            b_rs, b_cs, c,    op.c_cs, op.bias, op.bias_stride, false};
  }
  // Row-major C: C^T = B^T A^T, column-major.
  return {op.n, op.m, op.k, b,       b_cs,    b_rs,           a,
          a_cs, a_rs, c,    op.c_rs, op.bias, op.bias_stride, true};
}

template <class T>
Plan<T> PlanOf(const Operands<T>& op, bool batched) {
  Plan<T> plan;
  const Index m = op.m, n = op.n, k = op.k;
  const Index macs = m * n * std::max<Index>(k, 1);
  if (m == 1 || n == 1) {
    plan.mode = Mode::kGemv;
    const Index rows = n == 1 ? m : n;
    plan.tasks = batched || macs < kSerialMacs ? 1 : (rows + kGemvRows - 1) / kGemvRows;
    // x copied when L is row-major and x strided; y when L is column-major
    // and y strided (both at most rows + cols).
    plan.need.per_slot = Lines<T>(static_cast<uint64_t>(m + n + k));
    return plan;
  }
  if (k == 0) return plan;  // One() writes the bias or zeros
  // Blocking of the column-major problem.
  const Problem<T> p = ProblemOf<T>(op, nullptr, nullptr, nullptr);
  plan.bl = BlockingFor<T>(p.m, p.n, p.k);
  const auto kc = static_cast<uint64_t>(plan.bl.kc);
  if (!batched && macs >= kSerialMacs && p.m >= 2 * kTileRows) {
    plan.mode = Mode::kRowTiles;
    const Index rows = (p.m + kTileRows - 1) / kTileRows * kTileRows;
    plan.need.shared = Lines<T>(static_cast<uint64_t>(rows) * kc) +
                       Lines<T>(kc * static_cast<uint64_t>(plan.bl.nc));
    return plan;
  }
  if (!batched && macs >= kSerialMacs && p.n >= 2 * kColUnit) {
    plan.mode = Mode::kColTiles;
    const Index most = (p.n + kColUnit - 1) / kColUnit;
    const Index wanted = std::min(most, (macs + kSerialMacs - 1) / kSerialMacs);
    const Index width = (p.n + wanted - 1) / wanted;
    plan.tile_cols = (width + kColUnit - 1) / kColUnit * kColUnit;
    plan.tasks = (p.n + plan.tile_cols - 1) / plan.tile_cols;
    plan.need.per_slot = Lines<T>(static_cast<uint64_t>(std::min(plan.bl.mc, p.m)) * kc) +
                         Lines<T>(kc * static_cast<uint64_t>(std::min(plan.bl.nc, plan.tile_cols)));
    return plan;
  }
  plan.mode = Mode::kSerial;
  plan.need.per_slot = Lines<T>(static_cast<uint64_t>(std::min(plan.bl.mc, p.m)) * kc) +
                       Lines<T>(kc * static_cast<uint64_t>(std::min(plan.bl.nc, p.n)));
  return plan;
}

template <class T, class Fn>
void WithOrders(const Problem<T>& p, const Fn& fn) {
  if (p.a_cs == 1) {
    if (p.b_cs == 1)
      fn(Kernel<T, Eigen::RowMajor, Eigen::RowMajor>{});
    else
      fn(Kernel<T, Eigen::RowMajor, Eigen::ColMajor>{});
  } else {
    if (p.b_cs == 1)
      fn(Kernel<T, Eigen::ColMajor, Eigen::RowMajor>{});
    else
      fn(Kernel<T, Eigen::ColMajor, Eigen::ColMajor>{});
  }
}

// The vector product g on this thread, scratch: m + n + k elements.
template <class T>
void GemvSerialOrBlocks(Gemv<T> g, T* scratch, Index blocks, int slots) {
  T* y_out = g.y;
  const Index y_inc = g.y_inc;
  if (g.l_cs == 1 && g.x_inc != 1) {
    for (Index j = 0; j < g.cols; ++j) scratch[j] = g.x[j * g.x_inc];
    g.x = scratch;
    g.x_inc = 1;
  } else if (g.l_cs != 1 && g.y_inc != 1) {
    g.y = scratch + g.cols;
    g.y_inc = 1;
  }
  if (blocks <= 1) {
    for (Index r = 0; r < g.rows; r += kGemvRows) GemvRows(g, r, std::min(g.rows, r + kGemvRows));
  } else {
    ParallelChunks(blocks, slots, [&](int64_t begin, int64_t end, int) {
      for (Index b = begin; b < end; ++b) {
        GemvRows(g, b * kGemvRows, std::min(g.rows, (b + 1) * kGemvRows));
      }
    });
  }
  if (g.y != y_out) {
    for (Index i = 0; i < g.rows; ++i) y_out[i * y_inc] = g.y[i];
  }
}

// Product `index` of the batch, on this thread, with `scratch` of
// plan.need.per_slot elements.
template <class T>
void One(const Operands<T>& op, const Plan<T>& plan, const T* a, const T* b, T* c, T* scratch) {
  if (plan.mode == Mode::kGemv) {
    GemvSerialOrBlocks(GemvOf(op, a, b, c), scratch, 1, 1);
    return;
  }
  const Problem<T> p = ProblemOf(op, a, b, c);
  if (p.k == 0) {
    InitOut(p, 0, p.m, 0, p.n);
    return;
  }
  T* block_b = scratch + Lines<T>(static_cast<uint64_t>(std::min(plan.bl.mc, p.m)) * plan.bl.kc);
  WithOrders(p,
             [&](auto kernel) { decltype(kernel)::Serial(p, plan.bl, 0, p.n, scratch, block_b); });
}

template <class T>
ComputeResult Run(const Operands<T>& op) {
  int64_t count = 1;
  for (int d = 0; d < op.batch_ndim; ++d) count *= op.batch[d];
  if (count == 0 || op.m == 0 || op.n == 0) return {};
  const bool batched = count > 1;
  const Plan<T> plan = PlanOf(op, batched);
  const int threads = GetNumThreads();
  const int64_t tasks = batched ? count : plan.tasks;
  const int slots = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks)));
  const uint64_t per = plan.mode == Mode::kRowTiles ? 0 : plan.need.per_slot;
  const uint64_t slot_count = plan.mode == Mode::kGemv && !batched ? 1 : slots;
  if (per != 0 && slot_count > (UINT64_MAX - plan.need.shared) / per) {
    return OutOfMemory("matmul's packed panels", UINT64_MAX);
  }
  const uint64_t elements = plan.need.shared + per * slot_count;
  Scratch<T> scratch;
  if (!scratch.Allocate(elements)) {
    return OutOfMemory("matmul's packed panels", elements * sizeof(T));
  }
  if (batched) {
    ParallelChunks(count, slots, [&](int64_t begin, int64_t end, int slot) {
      T* mine = scratch.data() + per * static_cast<uint64_t>(slot);
      for (int64_t i = begin; i < end; ++i) {
        int64_t rest = i;
        int64_t a_off = 0, b_off = 0, c_off = 0;
        for (int d = op.batch_ndim - 1; d >= 0; --d) {
          const int64_t at = rest % op.batch[d];
          rest /= op.batch[d];
          a_off += at * op.a_bs[d];
          b_off += at * op.b_bs[d];
          c_off += at * op.c_bs[d];
        }
        One(op, plan, op.a + a_off, op.b + b_off, op.c + c_off, mine);
      }
    });
    return {};
  }
  switch (plan.mode) {
    case Mode::kGemv:
      GemvSerialOrBlocks(GemvOf(op, op.a, op.b, op.c), scratch.data(), plan.tasks, slots);
      break;
    case Mode::kSerial:
      One(op, plan, op.a, op.b, op.c, scratch.data());
      break;
    case Mode::kRowTiles: {
      const Problem<T> p = ProblemOf(op, op.a, op.b, op.c);
      const Index rows = (p.m + kTileRows - 1) / kTileRows * kTileRows;
      WithOrders(p, [&](auto kernel) {
        decltype(kernel)::RowTiles(
            p, plan.bl, scratch.data(),
            scratch.data() + Lines<T>(static_cast<uint64_t>(rows) * plan.bl.kc), slots);
      });
      break;
    }
    case Mode::kColTiles: {
      const Problem<T> p = ProblemOf(op, op.a, op.b, op.c);
      const uint64_t a_part =
          Lines<T>(static_cast<uint64_t>(std::min(plan.bl.mc, p.m)) * plan.bl.kc);
      WithOrders(p, [&](auto kernel) {
        ParallelChunks(plan.tasks, slots, [&](int64_t begin, int64_t end, int slot) {
          T* mine = scratch.data() + per * static_cast<uint64_t>(slot);
          for (int64_t t = begin; t < end; ++t) {
            const Index c0 = t * plan.tile_cols;
            decltype(kernel)::Serial(p, plan.bl, c0, std::min(p.n, c0 + plan.tile_cols), mine,
                                     mine + a_part);
          }
        });
      });
      break;
    }
  }
  return {};
}

}  // namespace driver

#endif  // DLPACK_NODE_CORE_COMPUTE_GEMM_DRIVER_H_
