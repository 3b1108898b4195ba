// src/core/scratch.h and issue 37, finding 2: every engine entry that
// allocates scratch reports a failed allocation as std::bad_alloc (which the
// bindings report as ERR_DLPACK_OUT_OF_MEMORY, sync and async) on the
// calling thread, before the work is split and before any output element is
// written, and leaks nothing. The entries that allocate, each made to fail
// here through FailScratchAfter():
//   Reduce (sum, mean, amax, amin) over more than kSumBlock elements: the
//     partial sums;
//   Softmax and LogSoftmax along a strided lane (or one its output
//     overlaps): two lane buffers per chunk;
//   TopK, k <= 32 (the k best per chunk) and k > 32 (the lane per chunk);
//   Normalize of a channel-interleaved frame: the per-channel mean and std;
//   ConvertStrided between overlapping byte ranges: the staged source.
// Each is run with every thread count that splits differently, and once with
// the failure injected on its second allocation where it makes two.
#include "scratch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "compute/elementwise.h"
#include "compute/normalize.h"
#include "compute/reduce.h"
#include "convert.h"
#include "parallel.h"

// A request past what any machine has must come back as NULL (glibc's
// answer), not as AddressSanitizer's abort, for the bad_alloc to be seen.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace dlnode {
namespace {

class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GetNumThreads();
    FailScratchAfter(0);
  }
  void TearDown() override {
    FailScratchAfter(0);
    SetNumThreads(saved_);
  }
  int saved_ = 1;
};

TEST_F(ScratchTest, AllocatesCountsAndFrees) {
  const int64_t before = ScratchBlocksLive();
  {
    Scratch<double> a(1000);
    EXPECT_NE(a.data(), nullptr);
    EXPECT_EQ(a.size(), 1000);
    a[999] = 1.5;
    Scratch<double> b = std::move(a);
    // NOLINTNEXTLINE(bugprone-use-after-move): the moved-from state is what is tested
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(b[999], 1.5);
    EXPECT_EQ(ScratchBlocksLive(), before + 1);
    const Scratch<char> none(0);  // nothing to hold: no allocation
    EXPECT_EQ(none.data(), nullptr);
    EXPECT_EQ(ScratchBlocksLive(), before + 1);
  }
  EXPECT_EQ(ScratchBlocksLive(), before);
}

TEST_F(ScratchTest, SizesThatCannotExistAreBadAllocNotOverflow) {
  const int64_t before = ScratchBlocksLive();
  EXPECT_THROW(ScratchSlots<double>(int64_t{1} << 61, 4), std::bad_alloc);  // product overflows
  EXPECT_THROW(ScratchSlots<double>(-1, 4), std::bad_alloc);
  EXPECT_THROW(AllocateScratch(UINT64_MAX / 2, 4), std::bad_alloc);
  // 2^62 bytes: past any machine; malloc refuses (under ASan:
  // allocator_may_return_null=1, as the Jest child sets it).
  EXPECT_THROW(Scratch<char>(int64_t{1} << 62), std::bad_alloc);
  EXPECT_EQ(ScratchBlocksLive(), before);
}

TEST_F(ScratchTest, TheInjectedFailureIsTheNthAllocationOnce) {
  FailScratchAfter(2);
  Scratch<int> first(4);
  EXPECT_THROW(Scratch<int>(4), std::bad_alloc);
  Scratch<int> third(4);  // once only
  EXPECT_NE(third.data(), nullptr);
}

// Runs `entry` with the n-th scratch allocation failing, for n = 1 up to
// `allocations`, on 1, 2 and 3 threads: it must throw std::bad_alloc, leave
// the `size` output bytes at `output` as they were (nothing written before
// the failure) and every scratch block freed. Then, with the failure past
// them all, it must run through: every allocation it makes comes before the
// work (and the injection did hit the entry's own allocations).
void ExpectReportsFailure(const std::string& name, int allocations,
                          const std::function<void()>& entry, const char* output, size_t size) {
  for (int threads : {1, 2, 3}) {
    ASSERT_TRUE(SetNumThreads(threads));
    for (int n = 1; n <= allocations; ++n) {
      const std::vector<char> before(output, output + size);
      const int64_t live = ScratchBlocksLive();
      FailScratchAfter(n);
      EXPECT_THROW(entry(), std::bad_alloc)
          << name << ", allocation " << n << ", threads " << threads;
      FailScratchAfter(0);
      EXPECT_EQ(ScratchBlocksLive(), live) << name << ": scratch leaked";
      EXPECT_EQ(std::vector<char>(output, output + size), before)
          << name << ": written before the failure was reported";
    }
    FailScratchAfter(allocations + 1);
    EXPECT_NO_THROW(entry()) << name;
    FailScratchAfter(0);
  }
}

TEST_F(ScratchTest, EveryEngineEntryThatAllocatesReportsAFailureAndLeaksNothing) {
  // A sum over 3 * kSumBlock elements per output: partial sums.
  const int64_t n = 3 * kSumBlock + 5;
  std::vector<float> long_rows(static_cast<size_t>(2 * n), 1.0F);
  const int64_t rows_shape[] = {2, n};
  const int64_t rows_strides[] = {n, 1};
  const StridedInput rows{reinterpret_cast<const char*>(long_rows.data()), Scalar::kFloat32, 2,
                          rows_shape, rows_strides};
  std::vector<char> out(2 * sizeof(float), 0x5a);
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kAmax, ReduceOp::kAmin}) {
    ExpectReportsFailure(
        "Reduce", 1, [&] { Reduce(op, rows, 1, out.data()); }, out.data(), out.size());
  }

  // softmax along a strided dim (not the dense path): 6 lanes of 50.
  std::vector<float> grid(300);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = static_cast<float>(i % 17) / 4;
  const int64_t grid_shape[] = {50, 6};
  const int64_t grid_strides[] = {6, 1};
  const StridedInput columns{reinterpret_cast<const char*>(grid.data()), Scalar::kFloat32, 2,
                             grid_shape, grid_strides};
  out.assign(300 * sizeof(float), 0x5a);
  for (ReduceOp op : {ReduceOp::kSoftmax, ReduceOp::kLogSoftmax}) {
    ExpectReportsFailure(
        "Softmax", 1, [&] { Softmax(op, columns, 0, out.data(), grid_strides); }, out.data(),
        out.size());
  }
  // Dense lanes written in place: they overlap their output, so they need
  // the buffers too. Each run starts from, and leaves, the same values.
  std::vector<float> in_place = grid;
  const StridedInput rows_in_place{reinterpret_cast<const char*>(in_place.data()), Scalar::kFloat32,
                                   2, grid_shape, grid_strides};
  ExpectReportsFailure(
      "Softmax in place", 1,
      [&] {
        in_place = grid;
        Softmax(ReduceOp::kSoftmax, rows_in_place, 1, reinterpret_cast<char*>(in_place.data()),
                grid_strides);
        in_place = grid;
      },
      reinterpret_cast<const char*>(in_place.data()), in_place.size() * sizeof(float));

  // topk along the 50-long strided dim, k small (a sorted buffer) and large
  // (the whole lane): values, then int64 indices, in one output block.
  for (int64_t k : {int64_t{3}, int64_t{40}}) {
    std::vector<int64_t> block(static_cast<size_t>(k * 6) * 2, 0x5a5a5a5a);
    const int64_t out_strides[] = {6, 1};
    auto* values = reinterpret_cast<char*>(block.data());
    int64_t* indices = block.data() + k * 6;
    ExpectReportsFailure(
        "TopK", 1, [&] { TopK(columns, 0, k, true, true, values, indices, out_strides); },
        reinterpret_cast<const char*>(block.data()), block.size() * sizeof(int64_t));
  }

  // normalize of a channel-interleaved [3, 2, 4] frame (HWC read as CHW):
  // the per-channel mean and std, two allocations.
  std::vector<uint8_t> hwc(24);
  for (size_t i = 0; i < hwc.size(); ++i) hwc[i] = static_cast<uint8_t>(i * 9);
  const int64_t frame[] = {3, 2, 4};
  const int64_t si[] = {1, 12, 3};
  const int64_t so[] = {8, 4, 1};
  const double mean[] = {1, 2, 3};
  const double std[] = {2, 4, 8};
  out.assign(24 * sizeof(float), 0x5a);
  ExpectReportsFailure(
      "Normalize", 2,
      [&] {
        Normalize(3, frame, Scalar::kUint8, Operand{reinterpret_cast<char*>(hwc.data()), si},
                  Scalar::kFloat32, Operand{out.data(), so}, mean, std, 1.0);
      },
      out.data(), out.size());

  // A copy between overlapping bytes: its source staged first. Each run
  // starts from, and leaves, the same values.
  std::vector<int32_t> ints(64);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i);
  const std::vector<int32_t> start = ints;
  const int64_t shape[] = {48};
  const int64_t step[] = {1};
  ExpectReportsFailure(
      "ConvertStrided", 1,
      [&] {
        ints = start;
        char* base = reinterpret_cast<char*>(ints.data());
        ConvertStrided(1, shape, Scalar::kInt32, StridedView{base + 32, step},
                       ByteRange{base + 32, base + 32 + 48 * 4}, Scalar::kInt32,
                       StridedView{base, step}, ByteRange{base, base + 48 * 4});
        ints = start;
      },
      reinterpret_cast<const char*>(ints.data()), ints.size() * sizeof(int32_t));
}

}  // namespace
}  // namespace dlnode
