#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "libstdcxx_floor.h"

namespace dlnode {
namespace {

thread_local bool t_in_task = false;
thread_local bool t_off_event_loop = false;
std::atomic<int> g_num_threads{0};  // 0: not decided yet

int DefaultThreads() {
  if (const char* env = std::getenv("DLPACK_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= kMaxThreads) return static_cast<int>(v);
  }
  return OnlineCores();
}

// A pause inside a spin: lets the other hyperthread run and saves power.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How long a pool thread keeps watching for the next loop after its last
// one, and how long a caller watches for the pool threads to finish, before
// either blocks in the kernel. Waking a blocked thread costs a system call
// each way and, on a virtual machine whose idle vCPU the host has
// descheduled, tens of microseconds more: longer than a 1M-element loop's
// half. OpenMP runtimes spin the same way (GOMP_SPINCOUNT, KMP_BLOCKTIME).
// Spinning happens only after loops that were split, and never longer.
using Clock = std::chrono::steady_clock;
constexpr auto kWorkerSpin = std::chrono::microseconds(200);
constexpr auto kCallerSpin = std::chrono::microseconds(100);
// A loop of fewer grains than this runs on its caller when no pool thread is
// awake (ParallelFor).
constexpr int64_t kWakeGrains = 8;

// Spins until ready() or `budget` has passed; returns ready().
template <class Ready>
bool SpinUntil(const Ready& ready, std::chrono::microseconds budget) {
  const auto deadline = Clock::now() + budget;
  for (int i = 1;; ++i) {
    if (ready()) return true;
    CpuRelax();
    if (i % 64 == 0 && Clock::now() >= deadline) return ready();
  }
}

// One loop at a time; its caller holds `busy` and takes part in it.
class Pool {
 public:
  // Runs fn over `chunks` chunks of `len` (the last shorter) with up to
  // chunks - 1 pool threads; the caller holds busy_.
  void Run(int64_t n, int64_t len, int chunks, const std::function<void(int64_t, int64_t)>& fn) {
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      StartThreads(chunks - 1);
      fn_ = &fn;
      n_ = n;
      len_ = len;
      chunks_ = chunks;
      next_.store(0, std::memory_order_relaxed);
      done_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      wake = sleeping_ > 0;  // a spinning thread sees generation_ by itself
    }
    if (wake) work_.notify_all();
    const int mine = Claim();
    done_.fetch_add(mine, std::memory_order_acq_rel);
    SpinUntil([&] { return Finished(); }, kCallerSpin);
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return Finished(); });
    fn_ = nullptr;
    chunks_ = 0;
  }

  std::mutex& busy() { return busy_; }

  // Whether a pool thread is watching for the next loop right now.
  bool Awake() const { return spinning_.load(std::memory_order_acquire) > 0; }

  // When the last loop ParallelFor gave the pool (split or not) ended.
  Clock::time_point LastEnd() const {
    return Clock::time_point(Clock::duration(last_end_.load(std::memory_order_relaxed)));
  }
  void Ended() {
    last_end_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }

  // Starts up to `helpers` pool threads, and wakes the blocked ones with no
  // loop to run: they watch for the next one for kWorkerSpin, then block
  // again (a thread just started watches the same way). The caller holds
  // busy_.
  void Nudge(int helpers) {
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      StartThreads(helpers);
      generation_.fetch_add(1, std::memory_order_release);  // chunks_ == 0: nothing to run
      wake = sleeping_ > 0;
    }
    if (wake) work_.notify_all();
  }

 private:
  // Every chunk ran and no pool thread is still inside the loop.
  bool Finished() const {
    return done_.load(std::memory_order_acquire) == chunks_ &&
           active_.load(std::memory_order_acquire) == 0;
  }

  // Runs chunks until none is left; returns how many it ran.
  int Claim() {
    int ran = 0;
    for (;;) {
      const int i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= chunks_) return ran;
      const int64_t begin = i * len_;
      (*fn_)(begin, std::min(n_, begin + len_));
      ++ran;
    }
  }

  // Under mutex_. A thread that cannot be started leaves its chunks to the others.
  void StartThreads(int wanted) {
    while (started_ < wanted) {
      try {
        std::thread([this] { Serve(); }).detach();
      } catch (const std::system_error&) {
        return;
      }
      ++started_;
    }
  }

  void Serve() {
    t_in_task = true;
    uint64_t seen = 0;
    for (;;) {
      spinning_.fetch_add(1, std::memory_order_acq_rel);
      SpinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; },
                seen == 0 ? std::chrono::microseconds(0) : kWorkerSpin);
      spinning_.fetch_sub(1, std::memory_order_acq_rel);
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleeping_;
      work_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      --sleeping_;
      seen = generation_.load(std::memory_order_relaxed);
      if (chunks_ == 0) continue;  // woke after that loop ended
      active_.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      const int ran = Claim();
      done_.fetch_add(ran, std::memory_order_acq_rel);
      lock.lock();
      // Under the lock: a caller between its predicate check and its wait
      // cannot miss this.
      if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) finished_.notify_all();
    }
  }

  std::mutex busy_;
  std::mutex mutex_;  // guards everything below but the atomics
  std::condition_variable work_;
  std::condition_variable finished_;
  int started_ = 0;
  int sleeping_ = 0;              // threads blocked in work_
  std::atomic<int> spinning_{0};  // threads watching generation_
  std::atomic<uint64_t> generation_{0};
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int64_t len_ = 0;
  int chunks_ = 0;
  std::atomic<int> done_{0};
  std::atomic<int> active_{0};
  std::atomic<int> next_{0};
  std::atomic<Clock::rep> last_end_{0};
};

// Never destroyed: its threads may run until the process ends.
Pool& ThePool() {
  static Pool* pool = new Pool();  // NOLINT(cppcoreguidelines-owning-memory): leaked on purpose
  return *pool;
}

}  // namespace

int GetNumThreads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int expected = 0;
    n = DefaultThreads();
    if (!g_num_threads.compare_exchange_strong(expected, n)) n = expected;
  }
  return n;
}

bool SetNumThreads(int n) {
  if (n < 1 || n > kMaxThreads) return false;
  g_num_threads.store(n, std::memory_order_relaxed);
  return true;
}

bool InParallelRegion() { return t_in_task; }

int OnlineCores() {
  static const int cores = [] {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxThreads));
  }();
  return cores;
}

int LoopThreads(int threads, int cores, bool off_event_loop) {
  if (!off_event_loop) return threads;
  return std::min(threads, std::max(1, cores - 1));
}

OffEventLoop::OffEventLoop() : was_(t_off_event_loop) { t_off_event_loop = true; }

OffEventLoop::~OffEventLoop() { t_off_event_loop = was_; }

void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t most = (n + grain - 1) / grain;
  const int threads = LoopThreads(GetNumThreads(), OnlineCores(), t_off_event_loop);
  const int chunks = static_cast<int>(std::min<int64_t>(threads, most));
  if (chunks <= 1 || t_in_task) {
    fn(0, n);
    return;
  }
  Pool& pool = ThePool();
  std::unique_lock<std::mutex> busy(pool.busy(), std::try_to_lock);
  if (!busy.owns_lock()) {  // another thread's loop has the pool: no oversubscription
    fn(0, n);
    return;
  }
  if (most < kWakeGrains && !pool.Awake()) {
    // A small loop and a pool whose threads sleep: waking one would cost more
    // than its half of the loop (and on a VM, a descheduled vCPU's wake-up).
    // This thread runs it. If the previous loop ended less than kWorkerSpin
    // ago (loops back to back, as a video's frames), the pool threads are
    // woken (and started, if no loop has started them) to watch for the next
    // one, which they then share; after a longer gap the next loop is likely
    // as far off, and the wake-up (a system call, on a VM an interrupt to a
    // halted vCPU) would only slow this one: a cold frame took 0.04 ms
    // longer on the benchmark VM when every call woke the pool.
    if (Clock::now() - pool.LastEnd() < kWorkerSpin) pool.Nudge(chunks - 1);
    busy.unlock();
    t_in_task = true;  // as in a split loop: a loop nested in it runs inline
    fn(0, n);
    t_in_task = false;
    pool.Ended();
    return;
  }
  const int64_t len = (n + chunks - 1) / chunks;
  t_in_task = true;  // the caller runs chunks too: a nested loop there runs inline
  pool.Run(n, len, static_cast<int>((n + len - 1) / len), fn);
  t_in_task = false;
  pool.Ended();
}

void ParallelChunks(int64_t n, int max_chunks,
                    const std::function<void(int64_t, int64_t, int)>& fn) {
  if (n <= 0) return;
  const int threads = LoopThreads(GetNumThreads(), OnlineCores(), t_off_event_loop);
  const int chunks = static_cast<int>(std::min<int64_t>(std::min(threads, max_chunks), n));
  if (chunks <= 1 || t_in_task) {
    fn(0, n, 0);
    return;
  }
  Pool& pool = ThePool();
  std::unique_lock<std::mutex> busy(pool.busy(), std::try_to_lock);
  if (!busy.owns_lock()) {
    fn(0, n, 0);
    return;
  }
  // Range i is [i * len, (i + 1) * len): at most `chunks` of them, each run once.
  const int64_t len = (n + chunks - 1) / chunks;
  const std::function<void(int64_t, int64_t)> range = [&](int64_t begin, int64_t end) {
    fn(begin, end, static_cast<int>(begin / len));
  };
  t_in_task = true;
  pool.Run(n, len, static_cast<int>((n + len - 1) / len), range);
  t_in_task = false;
  pool.Ended();
}

}  // namespace dlnode
