// How work this library enqueues on a caller's CUDA stream is ordered with
// everything else it does. The library's own work (allocation and zeroing,
// synchronous copies, kernels, frees) runs on the legacy default stream; a
// copy on another stream is enqueued between two events:
//   1. the stream waits for an event recorded on the legacy stream, so the
//      copy starts after the destination was allocated and zeroed and after
//      earlier work on both tensors;
//   2. the legacy stream waits for an event recorded on the stream after the
//      copy, so every later use of either tensor by this library, a free
//      (cudaFreeAsync on the legacy stream) included, runs after the copy.
// The host does not wait for either: the caller returns at once and awaits
// the stream (Stream.done()). The CUDA calls sit behind StreamOps, so the
// ordering is tested without a device (test/cpp/stream_order_test.cc).
#ifndef DLPACK_NODE_CORE_STREAM_ORDER_H_
#define DLPACK_NODE_CORE_STREAM_ORDER_H_

#include <cstdint>
#include <mutex>

#include "cuda_runtime.h"

namespace dlnode {
namespace cuda {

// The DLPack stream convention: 1 the legacy default stream, 2 the
// per-thread default stream, larger values a cudaStream_t.
constexpr uintptr_t kLegacyStream = 1;
// Not one stream: each host thread has its own behind this value.
constexpr uintptr_t kPerThreadStream = 2;

class StreamOps {
 public:
  virtual ~StreamOps() = default;
  // Creates an event and records it on `stream`.
  virtual Status Record(uintptr_t stream, uintptr_t* event) = 0;
  // Work enqueued on `stream` from now on waits for `event`.
  virtual Status Wait(uintptr_t stream, uintptr_t event) = 0;
  // Frees the event (CUDA releases it once it has completed).
  virtual void Destroy(uintptr_t event) = 0;
  // Blocks the host until `stream` has run all its work.
  virtual Status Synchronize(uintptr_t stream) = 0;
  // Blocks the host until the work before `event` has run.
  virtual Status WaitOnHost(uintptr_t event) = 0;
  // Makes `device` current: kLegacyStream, Record and new events are then
  // that device's (the caller's DeviceGuard restores the device after).
  virtual Status UseDevice(int device) = 0;
};

// The CUDA runtime's StreamOps (the current device must be the stream's).
StreamOps& RuntimeStreamOps();

// Runs `enqueue(stream)`, which puts work on `stream`, between the two
// events above. On the legacy stream itself it just runs it.
template <typename Enqueue>
Status EnqueueOrdered(StreamOps& ops, uintptr_t stream, Enqueue enqueue) {
  if (stream == kLegacyStream) return enqueue(stream);
  uintptr_t before = 0;
  Status s = ops.Record(kLegacyStream, &before);
  if (!s.ok) return s;
  s = ops.Wait(stream, before);
  ops.Destroy(before);
  if (!s.ok) return s;
  s = enqueue(stream);
  if (!s.ok) return s;
  uintptr_t after = 0;
  s = ops.Record(stream, &after);
  if (s.ok) {
    s = ops.Wait(kLegacyStream, after);
    ops.Destroy(after);
  }
  // Without the second event nothing orders a later free after the copy:
  // wait for it here rather than let memory be freed under it.
  if (!s.ok) ops.Synchronize(stream);
  return s;
}

// A copy between memory of two devices, enqueued on `stream` of `device`
// (current on entry): EnqueueOrdered's two events for the legacy streams of
// both. Before it, `stream` waits for `other`'s legacy stream too (the
// kernel that wrote the source there, the allocation of the destination);
// after it, `other`'s legacy stream waits for the copy too (its frees and
// every later use there). `other` < 0 or equal to `device`: EnqueueOrdered.
// On the legacy stream itself, the two devices' legacy streams are bridged
// the same way. Ends with `device` current.
template <typename Enqueue>
Status EnqueueOrderedAcross(StreamOps& ops, int device, int other, uintptr_t stream,
                            Enqueue enqueue) {
  if (other < 0 || other == device) return EnqueueOrdered(ops, stream, enqueue);
  Status s = ops.UseDevice(other);
  if (!s.ok) return s;
  uintptr_t before = 0;
  s = ops.Record(kLegacyStream, &before);
  Status back = ops.UseDevice(device);
  if (!s.ok) return s;
  if (!back.ok) {
    ops.Destroy(before);
    return back;
  }
  s = ops.Wait(stream, before);
  ops.Destroy(before);
  if (!s.ok) return s;
  s = EnqueueOrdered(ops, stream, enqueue);
  if (!s.ok) return s;  // EnqueueOrdered waited for the stream where it could not order it
  uintptr_t after = 0;
  s = ops.Record(stream, &after);
  if (s.ok) {
    s = ops.UseDevice(other);
    if (s.ok) s = ops.Wait(kLegacyStream, after);
    ops.Destroy(after);
    const Status restored = ops.UseDevice(device);
    if (s.ok) s = restored;
  }
  // As in EnqueueOrdered: unordered with `other`, the host waits instead.
  if (!s.ok) ops.Synchronize(stream);
  return s;
}

// Host-visible memory (pinned, managed) that copies on a stream read or
// write: the host must not read or write it until they have run, or cpu()
// returns stale bytes and a host write lands under a DMA (docs/API.md
// "CUDA": everything this library does later runs after a stream copy).
// After each such copy (enqueued with EnqueueOrdered, so the legacy stream
// waits for it) Mark records an event on the legacy stream; host access
// first calls Wait, which blocks until the latest event has completed. An
// event covers every earlier mark: the legacy stream runs in order.
class HostFence {
 public:
  HostFence() = default;
  HostFence(const HostFence&) = delete;
  HostFence& operator=(const HostFence&) = delete;

  // After work touching the memory was enqueued (its device current). When
  // no event can be recorded, the host waits for the legacy stream here.
  Status Mark(StreamOps& ops) {
    uintptr_t event = 0;
    Status s = ops.Record(kLegacyStream, &event);
    if (!s.ok) {
      ops.Synchronize(kLegacyStream);
      return s;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (event_ != 0) ops.Destroy(event_);
    event_ = event;
    return s;
  }

  // Before host access: blocks until the marked work has run (at once when
  // none is pending). The lock is held while waiting, so a second thread's
  // access does not pass a wait still in progress.
  Status Wait(StreamOps& ops) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (event_ == 0) return {};
    Status s = ops.WaitOnHost(event_);
    ops.Destroy(event_);
    event_ = 0;
    return s;
  }

  // Drops a pending event without waiting (the memory is being freed, its
  // free ordered after the work by other means).
  void Forget(StreamOps& ops) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (event_ != 0) ops.Destroy(event_);
    event_ = 0;
  }

  bool pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return event_ != 0;
  }

 private:
  mutable std::mutex mutex_;
  uintptr_t event_ = 0;
};

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_STREAM_ORDER_H_
