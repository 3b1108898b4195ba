// The host thread pool (src/core/parallel.h): every index once, the split
// independent of timing, inline when busy or nested, many callers at once,
// loops back to back or spaced out (the pool's spin, then its block); off the
// event loop a loop leaves a core (LoopThreads), with the same results; the
// back-off beside other pools (a late pool thread starts it, it ends, it
// loses no work, results keep their bits).
#include "parallel.h"

#include <gtest/gtest.h>

#if defined(__linux__)
#include <dirent.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compute/reduce.h"

namespace dlnode {
namespace {

// The back-off is off in these tests: they pin the split (the same ranges
// for the same size, grain and thread count), which a loaded machine's late
// pool thread would otherwise change. BackoffTest below turns it on.
class ParallelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GetNumThreads();
    saved_backoff_ = ThreadBackoff();
    SetThreadBackoff(false);
  }
  void TearDown() override {
    SetNumThreads(saved_);
    SetThreadBackoff(saved_backoff_);
  }
  int saved_ = 1;
  bool saved_backoff_ = kBackoffByDefault;
};

TEST_F(ParallelTest, CoversEveryIndexOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 4, 7}) {
    ASSERT_TRUE(SetNumThreads(threads));
    for (int64_t n : {0, 1, 5, 100, 1000, 12345}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      ParallelFor(n, 10, [&](int64_t b, int64_t e) {
        ASSERT_LE(b, e);
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << n;
    }
  }
}

// ParallelChunks: every index once, chunk numbers below max_chunks, and never
// two ranges of one chunk at once (a caller's per-chunk scratch buffer is its
// own while a range runs); small loops split too (no small-loop rule).
TEST_F(ParallelTest, ChunksCoverEveryIndexOnceAndNeverShareAChunk) {
  for (int threads : {1, 2, 4, 7}) {
    ASSERT_TRUE(SetNumThreads(threads));
    for (int max_chunks : {1, 2, 3, 16}) {
      for (int64_t n : {0, 1, 2, 5, 100}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::vector<std::atomic<int>> busy(static_cast<size_t>(max_chunks));
        std::atomic<bool> shared{false};
        std::atomic<int> ranges{0};
        ParallelChunks(n, max_chunks, [&](int64_t b, int64_t e, int chunk) {
          ASSERT_GE(chunk, 0);
          ASSERT_LT(chunk, max_chunks);
          if (busy[static_cast<size_t>(chunk)].fetch_add(1) != 0) shared = true;
          ++ranges;
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
          busy[static_cast<size_t>(chunk)].fetch_sub(1);
        });
        EXPECT_FALSE(shared) << threads << " " << max_chunks << " " << n;
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << n;
        if (n >= 2 && threads >= 2 && max_chunks >= 2) {
          EXPECT_GE(ranges.load(), 2) << n;
        }
      }
    }
  }
}

TEST_F(ParallelTest, SplitDependsOnSizeGrainAndThreadsOnly) {
  ASSERT_TRUE(SetNumThreads(3));
  std::mutex m;
  std::set<std::pair<int64_t, int64_t>> first;
  for (int round = 0; round < 50; ++round) {
    std::set<std::pair<int64_t, int64_t>> ranges;
    ParallelFor(1000, 100, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> lock(m);
      ranges.emplace(b, e);
    });
    if (round == 0) first = ranges;
    ASSERT_EQ(ranges, first);
  }
  EXPECT_EQ(first.size(), 3u);
}

TEST(LoopThreadsTest, OffTheEventLoopALoopLeavesOneCore) {
  // On the event loop's thread (or any other), the thread count as set.
  EXPECT_EQ(LoopThreads(2, 2, false), 2);
  EXPECT_EQ(LoopThreads(8, 2, false), 8);
  // Off it: at most max(1, cores - 1), never more than asked.
  EXPECT_EQ(LoopThreads(2, 2, true), 1);
  EXPECT_EQ(LoopThreads(4, 4, true), 3);
  EXPECT_EQ(LoopThreads(8, 4, true), 3);
  EXPECT_EQ(LoopThreads(3, 4, true), 3);
  EXPECT_EQ(LoopThreads(1, 1, true), 1);
  EXPECT_EQ(LoopThreads(1, 16, true), 1);
  EXPECT_GE(OnlineCores(), 1);
}

// The distinct ranges one ParallelFor(n, grain) splits into on this thread.
size_t RangesOf(int64_t n, int64_t grain) {
  std::mutex m;
  std::set<std::pair<int64_t, int64_t>> ranges;
  ParallelFor(n, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(m);
    ranges.emplace(b, e);
  });
  return ranges.size();
}

TEST_F(ParallelTest, ALoopOffTheEventLoopUsesAtMostAllCoresButOne) {
  const int cores = OnlineCores();
  ASSERT_TRUE(SetNumThreads(std::min(cores + 1, kMaxThreads)));
  const auto want = static_cast<size_t>(std::max(1, cores - 1));
  EXPECT_EQ(RangesOf(1 << 20, 10), static_cast<size_t>(std::min(cores + 1, kMaxThreads)));
  {
    const OffEventLoop off;
    EXPECT_EQ(RangesOf(1 << 20, 10), want);
    {
      const OffEventLoop nested;
      EXPECT_EQ(RangesOf(1 << 20, 10), want);
    }
    EXPECT_EQ(RangesOf(1 << 20, 10), want);  // a nested scope's end keeps the outer one
  }
  EXPECT_EQ(RangesOf(1 << 20, 10), static_cast<size_t>(std::min(cores + 1, kMaxThreads)));
}

uint32_t Bits(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

// n float32 values 1 / (i % period + 1), and the bits of their sum over
// fixed blocks (src/core/compute/reduce.h) at the thread count and back-off of now.
std::vector<float> Fractions(int64_t n, size_t period) {
  std::vector<float> values(static_cast<size_t>(n));
  for (size_t i = 0; i < values.size(); ++i) values[i] = 1.0F / static_cast<float>(i % period + 1);
  return values;
}
uint32_t SumBits(const std::vector<float>& values) {
  const int64_t shape[1] = {static_cast<int64_t>(values.size())};
  const int64_t strides[1] = {1};
  const StridedInput in{reinterpret_cast<const char*>(values.data()), Scalar::kFloat32, 1, shape,
                        strides};
  float sum = 0;
  Reduce(ReduceOp::kSum, in, 1, reinterpret_cast<char*>(&sum));
  return Bits(sum);
}

TEST_F(ParallelTest, ALoopOffTheEventLoopGivesTheSameBitsAsAnyThreadCount) {
  // A float32 sum over blocks: fixed blocks, so the same bits however many
  // threads run them, on or off the event loop.
  const std::vector<float> values = Fractions(3 * kDefaultGrain + 12345, 977);
  ASSERT_TRUE(SetNumThreads(1));
  const uint32_t want = SumBits(values);
  for (int threads : {1, 2, 3, 4, OnlineCores()}) {
    ASSERT_TRUE(SetNumThreads(threads));
    for (bool off : {false, true}) {
      uint32_t got = 0;
      if (off) {
        const OffEventLoop scope;
        got = SumBits(values);
      } else {
        got = SumBits(values);
      }
      EXPECT_EQ(got, want) << threads << (off ? " off the event loop" : "");
    }
  }
}

TEST_F(ParallelTest, SmallLoopsAndOneThreadRunInline) {
  ASSERT_TRUE(SetNumThreads(4));
  const auto self = std::this_thread::get_id();
  int calls = 0;
  ParallelFor(100, 100, [&](int64_t b, int64_t e) {
    EXPECT_EQ(std::this_thread::get_id(), self);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(SetNumThreads(1));
  calls = 0;
  ParallelFor(1 << 20, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST_F(ParallelTest, NestedCallsRunInlineOnTheTaskThread) {
  ASSERT_TRUE(SetNumThreads(4));
  std::atomic<int64_t> total{0};
  std::atomic<int> inner_elsewhere{0};
  ParallelFor(4000, 1000, [&](int64_t b, int64_t e) {
    const auto outer = std::this_thread::get_id();
    ParallelFor(e - b, 1, [&](int64_t ib, int64_t ie) {
      if (std::this_thread::get_id() != outer) inner_elsewhere++;
      total += ie - ib;
    });
  });
  EXPECT_EQ(total.load(), 4000);
  EXPECT_EQ(inner_elsewhere.load(), 0);
}

TEST_F(ParallelTest, ManyCallersAtOnceEachGetTheirWholeLoop) {
  ASSERT_TRUE(SetNumThreads(4));
  constexpr int kCallers = 8;
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 200; ++round) {
        const int64_t n = 1000 + c * 37 + round;
        std::atomic<int64_t> sum{0};
        ParallelFor(n, 64, [&](int64_t b, int64_t e) {
          int64_t s = 0;
          for (int64_t i = b; i < e; ++i) s += i;
          sum += s;
        });
        if (sum.load() != n * (n - 1) / 2) wrong++;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Pool threads watch for the next loop for a while before they block, and a
// caller watches for them to finish before it blocks: loops back to back
// (found by a spinning thread), loops spaced past the spin (found by a
// blocked one) and loops from several callers each run every chunk exactly
// once and return only when all have run.
TEST_F(ParallelTest, BackToBackAndSpacedLoopsRunEveryChunkOnce) {
  ASSERT_TRUE(SetNumThreads(4));
  constexpr int64_t kN = 4096;
  std::vector<std::atomic<int>> seen(kN);
  auto loop = [&](int round) {
    ParallelFor(kN, 64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
    });
    for (int64_t i = 0; i < kN; ++i) {
      ASSERT_EQ(seen[i].load(std::memory_order_relaxed), round + 1) << round << " " << i;
    }
  };
  int round = 0;
  for (; round < 2000; ++round) loop(round);
  for (int spaced = 0; spaced < 5; ++spaced, ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // past every spin
    loop(round);
  }
}

// A loop of fewer than 8 grains runs on its caller while the pool's threads
// sleep; one that comes right after another wakes them to watch for the next
// loop, and the same loop back to back is split. Every index still runs once
// either way.
TEST_F(ParallelTest, ASmallLoopRunsInlineOnASleepingPoolAndWakesIt) {
  ASSERT_TRUE(SetNumThreads(2));
  auto chunks = [] {
    std::atomic<int> count{0};
    std::atomic<int64_t> covered{0};
    ParallelFor(400, 100, [&](int64_t b, int64_t e) {
      count++;
      covered += e - b;
    });
    EXPECT_EQ(covered.load(), 400);
    return count.load();
  };
  ParallelFor(1 << 20, 10, [](int64_t, int64_t) {});            // starts the pool thread
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past its watch: asleep
  EXPECT_EQ(chunks(), 1);                                       // inline
  // Once it is up (a wake-up takes tens of microseconds, more on a loaded VM)
  // it watches, and the same loop is split.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool split = false;
  while (!split && std::chrono::steady_clock::now() < deadline) split = chunks() == 2;
  EXPECT_TRUE(split);
}

// The pool's threads start in a process whose every loop is small: small
// loops back to back run inline and start them, and once one watches, the
// same loop is split. (ctest runs each test in a fresh process,
// where no loop has started the pool.)
TEST_F(ParallelTest, SmallLoopsAloneStartThePool) {
  ASSERT_TRUE(SetNumThreads(2));
  auto chunks = [] {
    std::atomic<int> count{0};
    ParallelFor(400, 100, [&](int64_t, int64_t) { count++; });
    return count.load();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool split = false;
  while (!split && std::chrono::steady_clock::now() < deadline) split = chunks() == 2;
  EXPECT_TRUE(split);
}

#if defined(__linux__)
// The threads of this process, from /proc.
int ProcessThreads() {
  int count = 0;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  while (const dirent* entry = readdir(dir)) count += entry->d_name[0] != '.' ? 1 : 0;
  closedir(dir);
  return count;
}

// A small loop long after the last one (here: the first of the process)
// neither wakes nor starts the pool: the next loop is likely as far off.
// (Under ctest each test is a fresh process whose pool has not started; in
// the whole binary an earlier test has started it, and the count stays.)
TEST_F(ParallelTest, ASpacedSmallLoopLeavesThePoolAlone) {
  ASSERT_TRUE(SetNumThreads(2));
  // Past the watch of any pool an earlier test in this process left awake.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int before = ProcessThreads();
  ASSERT_GT(before, 0);
  std::atomic<int> count{0};
  ParallelFor(400, 100, [&](int64_t, int64_t) { count++; });
  EXPECT_EQ(count.load(), 1);  // inline
  EXPECT_EQ(ProcessThreads(), before);
}
#endif

TEST_F(ParallelTest, ThreadCountIsBounded) {
  EXPECT_FALSE(SetNumThreads(0));
  EXPECT_FALSE(SetNumThreads(-1));
  EXPECT_FALSE(SetNumThreads(kMaxThreads + 1));
  EXPECT_TRUE(SetNumThreads(kMaxThreads));
  EXPECT_EQ(GetNumThreads(), kMaxThreads);
  EXPECT_GE(GetNumThreads(), 1);
}

TEST_F(ParallelTest, TasksKnowTheyAreInTheRegion) {
  ASSERT_TRUE(SetNumThreads(2));
  EXPECT_FALSE(InParallelRegion());
  std::atomic<int> in_region{0};
  ParallelFor(64, 1, [&](int64_t, int64_t) {
    if (InParallelRegion()) in_region++;
  });
  EXPECT_EQ(in_region.load(), 2);
  EXPECT_FALSE(InParallelRegion());
}

// Issue 37, finding 2: a chunk that throws, on a pool thread or on the
// caller, never ends the process (std::terminate) nor unwinds past the pool
// while its threads still run the loop: the exception comes out of
// ParallelFor on the caller once every thread is out of the loop, the chunks
// not started are skipped, and the pool and the caller's state are as before.
TEST_F(ParallelTest, AChunkThatThrowsIsRethrownOnTheCallerAfterTheLoop) {
  for (int threads : {2, 3, 4}) {
    ASSERT_TRUE(SetNumThreads(threads));
    for (int64_t thrower : {int64_t{0}, int64_t{1}, int64_t{999}}) {
      std::atomic<int> inside{0};
      std::atomic<int> ran{0};
      try {
        ParallelFor(1000, 1, [&](int64_t b, int64_t e) {
          inside++;
          ran++;
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          const bool mine = b <= thrower && thrower < e;
          inside--;
          if (mine) throw std::runtime_error("chunk " + std::to_string(b));
        });
        ADD_FAILURE() << "no exception, threads " << threads;
      } catch (const std::runtime_error& e) {
        // Every chunk that started has finished: none still runs the body.
        EXPECT_EQ(inside.load(), 0);
        EXPECT_NE(std::string(e.what()).find("chunk"), std::string::npos);
      }
      EXPECT_GE(ran.load(), 1);
      EXPECT_FALSE(InParallelRegion());
      // The pool still splits the next loop and covers every index once.
      std::vector<std::atomic<int>> hits(5000);
      std::atomic<int> in_region{0};
      ParallelFor(5000, 1, [&](int64_t b, int64_t e) {
        if (InParallelRegion()) in_region++;
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
      });
      for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
      EXPECT_EQ(in_region.load(), threads);
    }
  }
}

TEST_F(ParallelTest, AnInlineLoopThatThrowsLeavesTheThreadOutOfTheRegion) {
  ASSERT_TRUE(SetNumThreads(4));
  // Fewer than 8 grains on a sleeping pool: run inline as a task.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_THROW(ParallelFor(4, 1, [](int64_t, int64_t) { throw std::bad_alloc(); }), std::bad_alloc);
  EXPECT_FALSE(InParallelRegion());
  ASSERT_TRUE(SetNumThreads(1));
  EXPECT_THROW(ParallelFor(100, 1, [](int64_t, int64_t) { throw std::bad_alloc(); }),
               std::bad_alloc);
  EXPECT_FALSE(InParallelRegion());
  // A later split loop still runs on the pool (the region flag was not left set).
  ASSERT_TRUE(SetNumThreads(2));
  std::atomic<int> in_region{0};
  ParallelFor(64, 1, [&](int64_t, int64_t) {
    if (InParallelRegion()) in_region++;
  });
  EXPECT_EQ(in_region.load(), 2);
}

// ParallelForChunks: chunk numbers below max_chunks, each chunk on one thread
// at a time (per-chunk scratch has one user), never more chunks than
// MaxChunks() said, even when the thread count grows in between.
TEST_F(ParallelTest, ChunkNumbersIndexScratchOneUserAtATime) {
  for (int threads : {1, 2, 3, 5}) {
    ASSERT_TRUE(SetNumThreads(threads));
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{100}, int64_t{10000}}) {
      const int chunks = MaxChunks(n, 10);
      EXPECT_GE(chunks, 1);
      EXPECT_LE(chunks, threads);
      std::vector<std::atomic<int>> users(static_cast<size_t>(chunks));
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::atomic<bool> shared{false};
      ASSERT_TRUE(SetNumThreads(threads + 3));  // more threads now: the bound still holds
      ParallelForChunks(n, 10, chunks, [&](int chunk, int64_t b, int64_t e) {
        ASSERT_GE(chunk, 0);
        ASSERT_LT(chunk, chunks);
        if (users[static_cast<size_t>(chunk)]++ != 0) shared = true;
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        users[static_cast<size_t>(chunk)]--;
      });
      ASSERT_TRUE(SetNumThreads(threads));
      EXPECT_FALSE(shared.load());
      for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
    }
  }
  EXPECT_EQ(MaxChunks(0, 10), 1);
}

// The back-off (parallel.h), on.
class BackoffTest : public ParallelTest {
 protected:
  void SetUp() override {
    ParallelTest::SetUp();
    SetThreadBackoff(true);
  }
};

using Clock = std::chrono::steady_clock;

// Runs split loops of 1000 in grains of 100 on 2 threads whose pool thread's
// chunk sleeps 20 ms and the caller's 2 ms, until the caller and a pool
// thread each take a chunk (a sleeping pool thread may wake after the caller
// took both; two awake ones may take both before it); returns when the loop
// they shared was called, every index run once each time.
// With `late`, the pool thread's chunk is the long one (the loop loses);
// without, the caller's (the loop wins).
Clock::time_point ShareALoop(bool late) {
  const auto self = std::this_thread::get_id();
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::vector<std::atomic<int>> hits(1000);
    std::atomic<bool> helped{false};
    std::atomic<bool> took_part{false};
    const auto called = Clock::now();
    ParallelFor(1000, 100, [&](int64_t b, int64_t e) {
      const bool pool_thread = std::this_thread::get_id() != self;
      (pool_thread ? helped : took_part) = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(pool_thread == late ? 20 : 2));
      for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
    });
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
    if (helped && took_part) return called;
  }
  ADD_FAILURE() << "the caller and a pool thread never shared a split loop in 100";
  return Clock::now();
}
Clock::time_point LoseToALatePoolThread() { return ShareALoop(true); }

// Two lost loops in a row: what starts a back-off. Returns when the second
// was called.
Clock::time_point LoseTwice() {
  LoseToALatePoolThread();
  EXPECT_FALSE(BackingOff()) << "one lost loop started a back-off";
  return LoseToALatePoolThread();
}

// The threads ParallelFor(n, grain) ran its ranges on, and the ranges.
struct Ran {
  std::set<std::thread::id> threads;
  std::set<std::pair<int64_t, int64_t>> ranges;
};
Ran RanOf(int64_t n, int64_t grain) {
  std::mutex m;
  Ran ran;
  ParallelFor(n, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(m);
    ran.threads.insert(std::this_thread::get_id());
    ran.ranges.emplace(b, e);
  });
  return ran;
}

TEST(BackoffSettingTest, TheEnvironmentTurnsItOnOrOff) {
  EXPECT_FALSE(BackoffSetting("0"));
  EXPECT_TRUE(BackoffSetting("1"));
  EXPECT_EQ(BackoffSetting(nullptr), kBackoffByDefault);
  EXPECT_EQ(BackoffSetting(""), kBackoffByDefault);
  EXPECT_EQ(BackoffSetting("off"), kBackoffByDefault);
  EXPECT_EQ(BackoffSetting("00"), kBackoffByDefault);
}

// Two split loops in a row that end later than their callers alone would
// have (each pool thread's chunk took ten times the caller's) start the
// back-off: loops of
// any size then run on their callers, in one range, as tasks; ParallelChunks
// still splits. It ends kBackoffMilliseconds after that loop, and a loop
// whose caller's part is the long one splits again and starts none.
TEST_F(BackoffTest, ALatePoolThreadStartsItAndItEnds) {
  ASSERT_TRUE(SetNumThreads(2));
  EXPECT_FALSE(BackingOff());
  const auto called = LoseTwice();
  ASSERT_TRUE(BackingOff());
  const Ran big = RanOf(1 << 20, 10);
  EXPECT_EQ(big.ranges, (std::set<std::pair<int64_t, int64_t>>{{0, 1 << 20}}));
  EXPECT_EQ(big.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  std::atomic<int> in_region{0};
  ParallelFor(64, 1, [&](int64_t, int64_t) {
    if (InParallelRegion()) in_region++;  // run as a task: a nested loop runs inline
  });
  EXPECT_EQ(in_region.load(), 1);
  EXPECT_FALSE(InParallelRegion());
  std::atomic<int> heavy{0};
  ParallelChunks(8, 2, [&](int64_t, int64_t, int) {
    heavy++;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
  EXPECT_EQ(heavy.load(), 2);
  while (BackingOff() && Clock::now() - called < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_FALSE(BackingOff());
  EXPECT_GE(Clock::now() - called, std::chrono::milliseconds(kBackoffMilliseconds));
  const auto self = std::this_thread::get_id();
  std::atomic<int> ranges{0};
  ParallelFor(1000, 100, [&](int64_t, int64_t) {
    ranges++;
    if (std::this_thread::get_id() == self)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  EXPECT_EQ(ranges.load(), 2);
  EXPECT_FALSE(BackingOff());
}

// One lost loop is not a busy pool: a loop the caller shares and does not
// lose between two lost ones ends the run, and none of the three starts a
// back-off; a loop the caller runs alone (too small to split, the pool
// asleep) tells nothing and leaves the run as it was.
TEST_F(BackoffTest, OneLostLoopStartsNone) {
  ASSERT_TRUE(SetNumThreads(2));
  LoseToALatePoolThread();
  ShareALoop(false);
  LoseToALatePoolThread();
  EXPECT_FALSE(BackingOff());
  const Ran small = RanOf(10, 10);  // one grain: on the caller, judged not
  EXPECT_EQ(small.ranges.size(), 1u);
  LoseToALatePoolThread();
  EXPECT_TRUE(BackingOff());
}

// Turned off, a back-off under way ends at once and a late pool thread
// starts none: the split is the size's, grain's and thread count's again.
TEST_F(BackoffTest, TurningItOffEndsItAndKeepsTheSplit) {
  ASSERT_TRUE(SetNumThreads(2));
  LoseTwice();
  ASSERT_TRUE(BackingOff());
  SetThreadBackoff(false);
  EXPECT_FALSE(ThreadBackoff());
  EXPECT_FALSE(BackingOff());
  EXPECT_EQ(RanOf(1000, 100).ranges.size(), 2u);
  LoseToALatePoolThread();
  LoseToALatePoolThread();
  EXPECT_FALSE(BackingOff());
  EXPECT_EQ(RanOf(1000, 100).ranges.size(), 2u);
  SetThreadBackoff(true);
  EXPECT_TRUE(ThreadBackoff());
  EXPECT_FALSE(BackingOff());  // turning it on starts none
}

// Callers on several threads, some of whose loops lose to a late pool
// thread while the others run (split, inline beside a busy pool, or on
// their callers under the back-off): every index runs once per loop, and a
// ParallelForChunks chunk never has two users at once.
TEST_F(BackoffTest, ItNeverLosesOrRepeatsWork) {
  ASSERT_TRUE(SetNumThreads(3));
  constexpr int kCallers = 4;
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  std::atomic<int> shared{0};
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      const auto self = std::this_thread::get_id();
      for (int round = 0; round < 60; ++round) {
        const int64_t n = 3000 + c * 37 + round;
        const bool late = (round + c) % 4 == 0;
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        const int chunks = MaxChunks(n, 100);
        std::vector<std::atomic<int>> users(static_cast<size_t>(chunks));
        ParallelForChunks(n, 100, chunks, [&](int chunk, int64_t b, int64_t e) {
          if (users[static_cast<size_t>(chunk)]++ != 0) shared++;
          if (late && std::this_thread::get_id() != self) {
            std::this_thread::sleep_for(std::chrono::milliseconds(3));
          }
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
          users[static_cast<size_t>(chunk)]--;
        });
        for (const auto& h : hits) {
          if (h.load() != 1) wrong++;
        }
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(shared.load(), 0);
}

// A float32 sum over fixed blocks (src/core/compute/reduce.h) gives the same bits
// under a back-off (one range, on the caller) as split and as on one thread.
TEST_F(BackoffTest, ResultsKeepTheirBitsUnderIt) {
  const std::vector<float> values = Fractions(5 * kDefaultGrain + 777, 613);
  ASSERT_TRUE(SetNumThreads(1));
  const uint32_t want = SumBits(values);
  ASSERT_TRUE(SetNumThreads(2));
  LoseTwice();
  ASSERT_TRUE(BackingOff());
  const uint32_t backing_off = SumBits(values);
  EXPECT_TRUE(BackingOff());  // still: the sum above ran within the back-off
  SetThreadBackoff(false);
  EXPECT_EQ(backing_off, want);
  EXPECT_EQ(SumBits(values), want);
}

}  // namespace
}  // namespace dlnode
