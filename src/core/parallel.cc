#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
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
// How long split loops run on their callers after one whose pool threads
// made it end later than its caller alone would have (parallel.h "back-off").
constexpr auto kBackoff = std::chrono::milliseconds(kBackoffMilliseconds);
// By how much longer than its caller alone would have taken a split loop
// must take to start a back-off. Waking a sleeping pool thread costs tens of
// microseconds on a quiet VM, more than half of a loop of a few grains
// (softmax(-1) of [256, 1000]): without this margin every such loop after a
// back-off, when the pool has gone to sleep, started the next one, and the
// loop never split again. A core taken elsewhere costs up to a scheduler
// tick, milliseconds.
constexpr auto kBackoffMargin = std::chrono::microseconds(200);
// How many split loops in a row must lose (end later than their callers
// alone, by the margin) to start a back-off. One alone proved too little: a
// pool thread descheduled once (another process's burst, a page-fault storm)
// put the large loops of bench/compute.js on one thread for 100 ms, in two
// of three quiet runs (bench/README.md "Threads beside onnxruntime"), while
// beside a busy pool every split loop loses, so the second starts it.
constexpr int kBackoffLosses = 2;

// Spins until ready() or `budget` has passed; returns ready(). With
// `yield`, every 64 pauses it also offers the core to another runnable
// thread: on a VM of few vCPUs a woken pool thread is often placed on its
// caller's core, and its 200 us watch after the loop then kept the caller
// from running (bench/README.md "Threads beside onnxruntime"). On with the
// back-off (parallel.h): off, the pool spins as it did before either.
template <class Ready>
bool SpinUntil(const Ready& ready, std::chrono::microseconds budget, bool yield) {
  const auto deadline = Clock::now() + budget;
  for (int i = 1;; ++i) {
    if (ready()) return true;
    CpuRelax();
    if (i % 64 == 0) {
      if (yield) std::this_thread::yield();
      if (Clock::now() >= deadline) return ready();
    }
  }
}

// A loop's body as either entry point takes it: fn(begin, end) or
// fn(chunk, begin, end).
struct Body {
  const std::function<void(int64_t, int64_t)>* plain = nullptr;
  const std::function<void(int, int64_t, int64_t)>* chunked = nullptr;
  // ParallelChunks: every index is heavy work (a GEMM tile, a matrix of a
  // batch), so a loop of few indices splits even while the pool sleeps.
  bool heavy = false;
  void operator()(int chunk, int64_t begin, int64_t end) const {
    if (plain != nullptr) {
      (*plain)(begin, end);
    } else {
      (*chunked)(chunk, begin, end);
    }
  }
};

// Marks this thread as running a task while it lives (a loop nested in it
// runs inline), and restores the mark however the task ends.
class InTask {
 public:
  InTask() : was_(t_in_task) { t_in_task = true; }
  ~InTask() { t_in_task = was_; }
  InTask(const InTask&) = delete;
  InTask& operator=(const InTask&) = delete;

 private:
  bool was_;
};

// What a chunk threw (Pool::Run rethrows it on the caller).
enum class Thrown { kNone, kBadAlloc, kOther };

// What one thread took of a loop: chunks (run, or skipped after a chunk
// threw) and the elements of those it ran.
struct Taken {
  int chunks = 0;
  int64_t elements = 0;
};

// The back-off's setting before any SetThreadBackoff(): the environment.
bool BackoffAtStart() { return BackoffSetting(std::getenv("DLPACK_THREAD_BACKOFF")); }

// One loop at a time; its caller holds `busy` and takes part in it.
class Pool {
 public:
  // Runs `body` over `chunks` chunks of `len` (the last shorter) with up to
  // chunks - 1 pool threads; the caller holds busy_. A chunk that throws
  // ends the loop early (the chunks not started are skipped); the first
  // exception is rethrown here once no pool thread is inside the loop: a
  // std::bad_alloc as itself, anything else as a std::runtime_error with its
  // message. (Not through std::exception_ptr, whose copies GCC 12's
  // libstdc++ exports at CXXABI_1.3.13, above lib/floors.js's floor.)
  void Run(int64_t n, int64_t len, int chunks, const Body& body) {
    const auto start = Clock::now();
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      StartThreads(chunks - 1);
      body_ = body;
      failed_.store(false, std::memory_order_relaxed);
      n_ = n;
      len_ = len;
      chunks_ = chunks;
      next_.store(0, std::memory_order_relaxed);
      done_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      wake = sleeping_ > 0;  // a spinning thread sees generation_ by itself
    }
    if (wake) work_.notify_all();
    const auto claimed = Clock::now();
    const Taken mine = Claim();
    const auto own = Clock::now() - claimed;
    done_.fetch_add(mine.chunks, std::memory_order_acq_rel);
    SpinUntil([&] { return Finished(); }, kCallerSpin, BackoffOn());
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return Finished(); });
    const auto end = Clock::now();
    body_ = Body{};
    chunks_ = 0;
    Thrown thrown;
    std::string message;
    {
      std::lock_guard<std::mutex> hold(error_mutex_);
      thrown = std::exchange(thrown_, Thrown::kNone);
      message.swap(message_);
    }
    lock.unlock();
    if (thrown == Thrown::kNone && !body.heavy) Judge(n, mine.elements, own, end - start, end);
    if (thrown == Thrown::kBadAlloc) throw std::bad_alloc();
    if (thrown == Thrown::kOther) throw std::runtime_error(message);
  }

  std::mutex& busy() { return busy_; }

  // The back-off (parallel.h): whether it is on, and whether split loops run
  // on their callers now because of it. Any thread.
  bool BackoffOn() const { return backoff_on_.load(std::memory_order_relaxed); }
  void SetBackoff(bool on) {
    backoff_on_.store(on, std::memory_order_relaxed);
    losses_.store(0, std::memory_order_relaxed);
    if (!on) backoff_until_.store(0, std::memory_order_relaxed);  // ends one under way
  }
  bool BackingOff() const {
    const Clock::rep until = backoff_until_.load(std::memory_order_relaxed);
    return until != 0 && BackoffOn() && Clock::now().time_since_epoch().count() < until;
  }

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
  // Whether a split loop ended later than its caller would have ended it
  // alone, by more than kBackoffMargin: the caller ran `elements` of the n
  // in `own`, so alone it would have taken own * n / elements; the loop took
  // `total`, from its start to the last pool thread's end. A caller that ran
  // none, or all, of the loop lost nothing to a pool thread's core.
  static bool LaterThanAlone(int64_t n, int64_t elements, Clock::duration own,
                             Clock::duration total) {
    if (elements <= 0 || elements >= n) return false;
    const double alone =
        static_cast<double>(own.count()) * static_cast<double>(n) / static_cast<double>(elements);
    const auto margin = std::chrono::duration_cast<Clock::duration>(kBackoffMargin);
    return static_cast<double>(total.count()) > alone + static_cast<double>(margin.count());
  }

  // After a split loop that ended at `end`: a loss (LaterThanAlone) adds to
  // the losses in a row, and the kBackoffLosses-th starts a back-off until
  // kBackoff after `end`; a loop its caller shared and did not lose ends the
  // run. A loop whose caller ran none or all of it tells nothing and leaves
  // the count. Under busy_ (one split loop at a time).
  void Judge(int64_t n, int64_t elements, Clock::duration own, Clock::duration total,
             Clock::time_point end) {
    if (elements <= 0 || elements >= n) return;
    if (!LaterThanAlone(n, elements, own, total)) {
      losses_.store(0, std::memory_order_relaxed);
      return;
    }
    if (losses_.fetch_add(1, std::memory_order_relaxed) + 1 < kBackoffLosses) return;
    losses_.store(0, std::memory_order_relaxed);
    if (BackoffOn())
      backoff_until_.store((end + kBackoff).time_since_epoch().count(), std::memory_order_relaxed);
  }

  // Every chunk ran and no pool thread is still inside the loop.
  bool Finished() const {
    return done_.load(std::memory_order_acquire) == chunks_ &&
           active_.load(std::memory_order_acquire) == 0;
  }

  // Runs chunks until none is left; returns what it took. No exception
  // leaves it: a pool thread that let one escape would end the process
  // (std::terminate), and the caller's would unwind past Run while pool
  // threads still call the body.
  Taken Claim() {
    Taken taken;
    for (;;) {
      const int i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= chunks_) return taken;
      ++taken.chunks;
      if (failed_.load(std::memory_order_acquire)) continue;
      const int64_t begin = i * len_;
      const int64_t end = std::min(n_, begin + len_);
      taken.elements += end - begin;
      try {
        body_(i, begin, end);
      } catch (const std::bad_alloc&) {
        Fail(Thrown::kBadAlloc, "");
      } catch (const std::exception& e) {
        Fail(Thrown::kOther, e.what());
      } catch (...) {
        Fail(Thrown::kOther, "an exception of no standard type in a parallel task");
      }
    }
  }

  // Keeps the first exception a chunk threw, and stops the chunks not started.
  void Fail(Thrown thrown, const char* what) noexcept {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (thrown_ == Thrown::kNone) {
      thrown_ = thrown;
      try {
        message_ = what;
      } catch (...) {
        thrown_ = Thrown::kBadAlloc;  // no memory left for the message
      }
    }
    failed_.store(true, std::memory_order_release);
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
                seen == 0 ? std::chrono::microseconds(0) : kWorkerSpin, BackoffOn());
      spinning_.fetch_sub(1, std::memory_order_acq_rel);
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleeping_;
      work_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      --sleeping_;
      seen = generation_.load(std::memory_order_relaxed);
      if (chunks_ == 0) continue;  // woke after that loop ended
      active_.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      const Taken ran = Claim();
      done_.fetch_add(ran.chunks, std::memory_order_acq_rel);
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
  Body body_;
  int64_t n_ = 0;
  int64_t len_ = 0;
  int chunks_ = 0;
  std::atomic<int> done_{0};
  std::atomic<int> active_{0};
  std::atomic<int> next_{0};
  std::atomic<Clock::rep> last_end_{0};
  std::atomic<bool> backoff_on_{BackoffAtStart()};
  std::atomic<Clock::rep> backoff_until_{0};  // 0: no back-off under way
  std::atomic<int> losses_{0};                // split loops lost in a row (Judge)
  std::atomic<bool> failed_{false};           // a chunk of this loop threw
  std::mutex error_mutex_;
  Thrown thrown_ = Thrown::kNone;  // the first exception a chunk threw (error_mutex_)
  std::string message_;            // its message, for Thrown::kOther
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

bool BackoffSetting(const char* value) {
  if (value != nullptr && std::strcmp(value, "0") == 0) return false;
  if (value != nullptr && std::strcmp(value, "1") == 0) return true;
  return kBackoffByDefault;
}

void SetThreadBackoff(bool on) { ThePool().SetBackoff(on); }

bool ThreadBackoff() { return ThePool().BackoffOn(); }

bool BackingOff() { return ThePool().BackingOff(); }

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

namespace {

// The chunks a loop of n elements in grains of `grain` is split into on this
// thread now, before the pool is asked (1: run inline).
int ChunksFor(int64_t n, int64_t grain, int max_chunks) {
  grain = std::max<int64_t>(grain, 1);
  const int64_t most = (n + grain - 1) / grain;
  const int threads = LoopThreads(GetNumThreads(), OnlineCores(), t_off_event_loop);
  return static_cast<int>(std::min<int64_t>({threads, most, max_chunks}));
}

// Marks the end of a loop given to the pool (split or run inline as a task),
// however the loop ends.
struct EndsLoop {
  Pool& pool;
  ~EndsLoop() { pool.Ended(); }
};

void Split(int64_t n, int64_t grain, int max_chunks, const Body& body) {
  if (n <= 0) return;
  const int chunks = ChunksFor(n, grain, max_chunks);
  if (chunks <= 1 || t_in_task) {
    body(0, 0, n);
    return;
  }
  Pool& pool = ThePool();
  if (!body.heavy && pool.BackingOff()) {
    // A recent split loop ended later than its caller alone would have: the
    // cores are taken elsewhere (parallel.h "back-off"). This thread runs it.
    const EndsLoop ends{pool};
    const InTask in_task;  // as in a split loop: a loop nested in it runs inline
    body(0, 0, n);
    return;
  }
  std::unique_lock<std::mutex> busy(pool.busy(), std::try_to_lock);
  if (!busy.owns_lock()) {  // another thread's loop has the pool: no oversubscription
    body(0, 0, n);
    return;
  }
  const int64_t most = (n + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1);
  if (most < kWakeGrains && !body.heavy && !pool.Awake()) {
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
    const EndsLoop ends{pool};
    const InTask in_task;  // as in a split loop: a loop nested in it runs inline
    body(0, 0, n);
    return;
  }
  const int64_t len = (n + chunks - 1) / chunks;
  const EndsLoop ends{pool};
  const InTask in_task;  // the caller runs chunks too: a nested loop there runs inline
  pool.Run(n, len, static_cast<int>((n + len - 1) / len), body);
}

}  // namespace

void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  Body body;
  body.plain = &fn;
  Split(n, grain, kMaxThreads, body);
}

int MaxChunks(int64_t n, int64_t grain) {
  return n <= 0 ? 1 : std::max(1, ChunksFor(n, grain, kMaxThreads));
}

void ParallelForChunks(int64_t n, int64_t grain, int max_chunks,
                       const std::function<void(int, int64_t, int64_t)>& fn) {
  Body body;
  body.chunked = &fn;
  Split(n, grain, std::max(1, max_chunks), body);
}

void ParallelChunks(int64_t n, int max_chunks,
                    const std::function<void(int64_t, int64_t, int)>& fn) {
  // ParallelForChunks at grain 1, the range first as the compute cores take
  // it, without the small-loop rule (parallel.h).
  const std::function<void(int, int64_t, int64_t)> chunked =
      [&](int chunk, int64_t begin, int64_t end) { fn(begin, end, chunk); };
  Body body;
  body.chunked = &chunked;
  body.heavy = true;
  Split(n, 1, std::max(1, max_chunks), body);
}

}  // namespace dlnode
