// The host thread pool that splits large loops (elementwise ops, reductions,
// copies and conversions) across cores, as ATen's at::parallel_for does.
//
// One pool per process, shared by every environment (the main thread and its
// workers): a ParallelFor that finds the pool busy with another caller's loop
// runs its own loop inline on the calling thread instead of queueing, so
// worker threads never oversubscribe the machine and never wait on each other.
// A ParallelFor called from inside a pool task also runs inline.
//
// A loop started off the event loop (an { async: true } job on a libuv
// thread, inside an OffEventLoop scope) leaves one core to the event loop: it
// uses at most max(1, cores - 1) threads, the libuv thread included
// (LoopThreads). Otherwise its threads and the main thread would ask for more
// cores than there are, and the event loop would stall for a time slice at a
// time (4.5 ms on 2 cores before this rule).
//
// Results must not depend on the thread count: callers split work so that
// each index is computed the same way whichever thread runs it (a reduction
// blocks by fixed sizes, never by the number of threads).
//
// After a split loop its pool threads watch for the next one for 200 us, and
// the caller watches for them to finish for 100 us, before either blocks:
// loops back to back (x.sub_(m).div_(s)) then start without a wake-up in the
// kernel, and a thread costs a core only in that window (as OpenMP's spin).
// A loop of fewer than 8 grains that finds no pool thread awake runs on its
// caller (waking one costs more than its half, and on a VM a descheduled
// vCPU's wake-up on top). If it follows another loop within the threads'
// 200 us watch, it also wakes them (starting them if no loop has) to watch
// for the next loop, which, if it comes as soon (frames normalised back to
// back), is split. The caller
// runs it as a task, as in a split loop: a loop nested in it runs inline.
//
// The back-off, beside other thread pools (onnxruntime's, another process):
// the pool cannot see that the cores are taken, and a split loop whose pool
// thread waits for a core (up to a scheduler tick) ends later than its caller
// would have ended it alone. When a split loop did, by more than 200 us (its
// caller ran e of its n elements in t, and the loop took longer than
// t * n / e, from its start to its last thread's end; 200 us is above a
// quiet VM's wake-up of a pool thread), and so did the split loop before it
// (two in a row: one pool thread descheduled once is not a busy pool), the
// ParallelFor and ParallelForChunks loops of the next kBackoffMilliseconds
// run on their callers, as tasks, whatever their size; then loops split
// again, and the next two that lose in a row start another back-off. A loop
// its caller shared and did not lose ends a run of losses. ParallelChunks'
// loops (heavy indices, chunks of milliseconds against a tick) neither start
// nor follow it. With it the spins above also yield the core every 64 pauses
// (a woken pool thread placed on its caller's core otherwise kept the caller
// off it for its whole watch). It changes which thread runs which range,
// never a result (see above). On by default; the environment variable
// DLPACK_THREAD_BACKOFF ("0" off, "1" on) or SetThreadBackoff() sets it; off,
// the pool splits and spins as before it. The state is the pool's, read and
// written with atomics: any thread.
//
// The pool's threads are started on first use, live until the process ends
// and are never joined (they may outlive every environment; the module is
// linked with -z nodelete so their code stays mapped).
#ifndef DLPACK_NODE_CORE_PARALLEL_H_
#define DLPACK_NODE_CORE_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace dlnode {

// Below this many elements a loop runs on one thread (torch's GRAIN_SIZE).
constexpr int64_t kDefaultGrain = 32768;
// The most threads SetNumThreads() accepts.
constexpr int kMaxThreads = 256;

// The number of threads loops may use: the first SetNumThreads(), else the
// environment variable DLPACK_NUM_THREADS (1..kMaxThreads), else the number of
// online cores. Any thread.
int GetNumThreads();
// 1..kMaxThreads; returns false (and changes nothing) outside that range.
// Takes effect for loops started afterwards. Any thread.
bool SetNumThreads(int n);

// The number of online cores (at least 1), read once. Any thread.
int OnlineCores();

// The threads a split loop may use, given `threads` (GetNumThreads()) and
// `cores` (OnlineCores()): `threads`, but off the event loop at most
// max(1, cores - 1), so that the loop and the event loop's thread together
// never ask for more than the cores there are. Pure: tested for any counts.
int LoopThreads(int threads, int cores, bool off_event_loop);

// Marks the calling thread as running a job off the event loop while it
// lives (src/addon/async_op.h OpWorker::Execute): the split loops it starts
// follow LoopThreads' rule. Scopes nest.
class OffEventLoop {
 public:
  OffEventLoop();
  ~OffEventLoop();
  OffEventLoop(const OffEventLoop&) = delete;
  OffEventLoop& operator=(const OffEventLoop&) = delete;

 private:
  bool was_;
};

// Calls fn(begin, end) over disjoint ranges covering [0, n), each at least
// `grain` long (but the last), on up to LoopThreads(GetNumThreads(),
// OnlineCores(), inside an OffEventLoop scope) threads including the caller,
// and returns when all have run. n <= grain, one thread, a busy pool, a call
// from inside a task, fewer than 8 grains while no pool thread is awake, or
// a back-off under way: one call fn(0, n) on this thread. The split depends
// on n, grain and that thread count, for a small loop on whether the pool is
// awake, and on the back-off: results never depend on it (see above).
//
// Exceptions (issue 37, finding 2): fn should not throw, and an engine
// allocates its scratch before the split (src/core/scratch.h) so that it
// does not; if fn throws anyway, no exception leaves a pool thread or
// unwinds past the pool while its threads still run the loop: the chunks not
// yet started are skipped, and once every thread is out of the loop the
// first exception is rethrown here, on the calling thread (a std::bad_alloc
// as itself, anything else as a std::runtime_error with its message).
void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// For loops whose every index is heavy work (a GEMM's tile, a matrix of a
// batch): calls fn(begin, end, chunk) over at most max_chunks disjoint ranges
// covering [0, n), chunk in [0, max_chunks) and never two ranges with the same
// chunk at once, so a caller can allocate max_chunks scratch buffers before the
// split and let each range use buffer `chunk`. Splits whenever n > 1, a pool
// thread can be had and threads allow (no small-loop rule: the caller decided
// the work is worth it); otherwise one call fn(0, n, 0). fn must not throw.
void ParallelChunks(int64_t n, int max_chunks,
                    const std::function<void(int64_t, int64_t, int)>& fn);

// The most chunks ParallelForChunks(n, grain, ...) splits [0, n) into when
// called now from this thread (at least 1 for n > 0): what a caller sizes
// per-chunk scratch by (ScratchSlots) before the loop.
int MaxChunks(int64_t n, int64_t grain);

// ParallelFor, with each range's chunk number: fn(chunk, begin, end), chunk
// in [0, max_chunks). A chunk runs on one thread, once, so chunk-indexed
// scratch (a slot of ScratchSlots(per_slot, max_chunks)) has one user at a
// time. Never splits into more than max_chunks chunks, whatever the thread
// count has become since MaxChunks() was asked.
void ParallelForChunks(int64_t n, int64_t grain, int max_chunks,
                       const std::function<void(int, int64_t, int64_t)>& fn);

// The back-off (above): how long it lasts, whether it is on before any
// SetThreadBackoff() when DLPACK_THREAD_BACKOFF is unset or neither "0" nor
// "1", and the setting a value of that variable gives (pure; nullptr: unset).
constexpr int kBackoffMilliseconds = 100;
constexpr bool kBackoffByDefault = true;
bool BackoffSetting(const char* value);
// Turns the back-off on or off for loops started afterwards (off also ends
// one under way: the split is then the size's, grain's and thread count's
// alone, as the tests that pin it need). Any thread.
void SetThreadBackoff(bool on);
bool ThreadBackoff();
// Whether split loops run on their callers now because of a back-off.
bool BackingOff();

// True while this thread runs a chunk of a split loop (a pool thread, or the
// caller taking part in its own loop).
bool InParallelRegion();

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_PARALLEL_H_
