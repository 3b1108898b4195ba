// The ordering of copies enqueued on a caller's stream (stream_order.h),
// against fake streams that record what runs after what: a happens-before
// graph in which each stream runs its work in order and a wait makes later
// work on a stream depend on an event's point. No device is needed.
#include "stream_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using dlnode::cuda::EnqueueOrdered;
using dlnode::cuda::EnqueueOrderedAcross;
using dlnode::cuda::HostFence;
using dlnode::cuda::kLegacyStream;
using dlnode::cuda::Status;
using dlnode::cuda::StreamOps;

constexpr uintptr_t kStreamA = 0x1000;
constexpr uintptr_t kStreamB = 0x2000;

Status Failed() {
  Status s;
  s.ok = false;
  s.name = "cudaErrorInjected";
  return s;
}

class FakeStreams final : public StreamOps {
 public:
  // Work on `stream` (kLegacyStream: the current device's); returns its node.
  int Run(uintptr_t stream, const std::string& name) { return Add(Key(stream), name, {}); }
  // The same on `device`'s legacy stream, whatever is current.
  int RunOnLegacy(int device, const std::string& name) {
    return Add(kLegacyKeys + static_cast<uintptr_t>(device), name, {});
  }

  Status Record(uintptr_t stream, uintptr_t* event) override {
    CheckStreamDevice(stream);
    if (records_ == fail_record_at) {
      ++records_;
      return Failed();
    }
    ++records_;
    *event = next_event_++;
    const uintptr_t key = Key(stream);
    event_point_[*event] = last_.count(key) ? last_[key] : -1;
    live_.insert(*event);
    return {};
  }
  Status Wait(uintptr_t stream, uintptr_t event) override {
    CheckStreamDevice(stream);
    EXPECT_TRUE(live_.count(event)) << "waiting on a destroyed or unknown event";
    const int point = event_point_[event];
    Add(Key(stream), "wait", point >= 0 ? std::vector<int>{point} : std::vector<int>{});
    return {};
  }
  Status UseDevice(int device) override {
    current = device;
    return {};
  }
  void Destroy(uintptr_t event) override {
    EXPECT_EQ(live_.erase(event), 1u) << "event destroyed twice or never made";
  }
  Status Synchronize(uintptr_t stream) override {
    synchronized.push_back(stream);
    return {};
  }
  Status WaitOnHost(uintptr_t event) override {
    EXPECT_TRUE(live_.count(event)) << "waiting on a destroyed or unknown event";
    host_waits.push_back(event_point_[event]);
    return {};
  }

  // Whether node `a` must have run before node `b` starts.
  bool Before(int a, int b) const {
    std::vector<int> todo = nodes_[static_cast<size_t>(b)].deps;
    std::set<int> seen;
    while (!todo.empty()) {
      const int n = todo.back();
      todo.pop_back();
      if (n == a) return true;
      if (!seen.insert(n).second) continue;
      for (int d : nodes_[static_cast<size_t>(n)].deps) todo.push_back(d);
    }
    return false;
  }

  size_t live_events() const { return live_.size(); }
  int records() const { return records_; }

  int fail_record_at = -1;                 // the index of a Record call that fails
  int current = 0;                         // the current device
  std::map<uintptr_t, int> stream_device;  // a caller's stream -> its device
  std::vector<uintptr_t> synchronized;
  std::vector<int> host_waits;  // the point of each event the host waited for

 private:
  struct Node {
    std::string name;
    std::vector<int> deps;
  };
  // Each device has its own legacy stream.
  static constexpr uintptr_t kLegacyKeys = 0x100000;
  uintptr_t Key(uintptr_t stream) const {
    return stream == kLegacyStream ? kLegacyKeys + static_cast<uintptr_t>(current) : stream;
  }
  // CUDA records and launches on a stream only with its device current.
  void CheckStreamDevice(uintptr_t stream) const {
    auto it = stream_device.find(stream);
    if (it != stream_device.end()) {
      EXPECT_EQ(it->second, current) << "a stream of another device";
    }
  }
  int Add(uintptr_t stream, const std::string& name, std::vector<int> deps) {
    if (last_.count(stream)) deps.push_back(last_[stream]);
    nodes_.push_back({name, deps});
    const int id = static_cast<int>(nodes_.size()) - 1;
    last_[stream] = id;
    return id;
  }
  std::vector<Node> nodes_;
  std::map<uintptr_t, int> last_;
  std::map<uintptr_t, int> event_point_;
  std::set<uintptr_t> live_;
  uintptr_t next_event_ = 1;
  int records_ = 0;
};

TEST(StreamOrder, ACopyOnAStreamRunsAfterTheAllocationAndBeforeTheFree) {
  FakeStreams fake;
  const int zeroed = fake.Run(kLegacyStream, "cudaMallocAsync + cudaMemsetAsync");
  int copy = -1;
  const Status s = EnqueueOrdered(fake, kStreamA, [&](uintptr_t on) {
    EXPECT_EQ(on, kStreamA);
    copy = fake.Run(on, "cudaMemcpyAsync");
    return Status{};
  });
  ASSERT_TRUE(s.ok);
  const int other_work = fake.Run(kStreamA, "the caller's next kernel");
  const int freed = fake.Run(kLegacyStream, "cudaFreeAsync");  // dispose() right away
  EXPECT_TRUE(fake.Before(zeroed, copy));
  EXPECT_TRUE(fake.Before(copy, freed));
  EXPECT_FALSE(fake.Before(other_work, freed));  // the free waits for the copy only
  EXPECT_FALSE(fake.Before(freed, other_work));
  EXPECT_EQ(fake.live_events(), 0u);
  EXPECT_TRUE(fake.synchronized.empty());  // the host never waited
}

TEST(StreamOrder, CopiesOnTwoStreamsIntoOneTensorRunInCallOrder) {
  FakeStreams fake;
  int first = -1;
  int second = -1;
  ASSERT_TRUE(EnqueueOrdered(fake, kStreamA, [&](uintptr_t on) {
                first = fake.Run(on, "copy 1");
                return Status{};
              }).ok);
  ASSERT_TRUE(EnqueueOrdered(fake, kStreamB, [&](uintptr_t on) {
                second = fake.Run(on, "copy 2");
                return Status{};
              }).ok);
  EXPECT_TRUE(fake.Before(first, second));
  const int read = fake.Run(kLegacyStream, "cudaMemcpy to the host (cpu())");
  EXPECT_TRUE(fake.Before(second, read));
}

TEST(StreamOrder, OnTheLegacyStreamTheWorkIsJustEnqueued) {
  FakeStreams fake;
  int runs = 0;
  ASSERT_TRUE(EnqueueOrdered(fake, kLegacyStream, [&](uintptr_t on) {
                EXPECT_EQ(on, kLegacyStream);
                ++runs;
                return Status{};
              }).ok);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(fake.records(), 0);
}

TEST(StreamOrder, AFailedEnqueueIsReportedAndLeavesNoEvent) {
  FakeStreams fake;
  const Status s = EnqueueOrdered(fake, kStreamA, [&](uintptr_t) { return Failed(); });
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.name, "cudaErrorInjected");
  EXPECT_EQ(fake.live_events(), 0u);
  EXPECT_EQ(fake.records(), 1);  // only the event before
}

TEST(StreamOrder, WithoutTheEventBeforeNothingIsEnqueued) {
  FakeStreams fake;
  fake.fail_record_at = 0;
  bool ran = false;
  EXPECT_FALSE(EnqueueOrdered(fake, kStreamA, [&](uintptr_t) {
                 ran = true;
                 return Status{};
               }).ok);
  EXPECT_FALSE(ran);
  EXPECT_EQ(fake.live_events(), 0u);
}

// If the legacy stream cannot be ordered after the copy, a free could run
// under it: the host waits for the stream instead.
TEST(StreamOrder, WithoutTheEventAfterTheHostWaitsForTheStream) {
  FakeStreams fake;
  fake.fail_record_at = 1;
  const Status s = EnqueueOrdered(fake, kStreamA, [&](uintptr_t on) {
    fake.Run(on, "copy");
    return Status{};
  });
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(fake.synchronized, std::vector<uintptr_t>{kStreamA});
  EXPECT_EQ(fake.live_events(), 0u);
}

// dst (cuda:0).copyFrom(src (cuda:1), { stream }) with a stream of cuda:0:
// the copy must start after the kernel that wrote src on cuda:1 and the
// allocation of dst on cuda:0, and both devices' later work (src's free on
// cuda:1 above all) must run after it. Ordered with one device only, the
// copy could read src before it was written and cuda:1 could reuse it under
// the copy.
TEST(StreamOrder, ACopyBetweenTwoDevicesIsOrderedWithBoth) {
  FakeStreams fake;
  fake.stream_device[kStreamA] = 0;
  const int written = fake.RunOnLegacy(1, "the kernel that writes src on cuda:1");
  const int allocated = fake.RunOnLegacy(0, "dst allocated on cuda:0");
  int copy = -1;
  ASSERT_TRUE(EnqueueOrderedAcross(fake, 0, 1, kStreamA, [&](uintptr_t on) {
                copy = fake.Run(on, "cudaMemcpyAsync cuda:1 -> cuda:0");
                return Status{};
              }).ok);
  EXPECT_EQ(fake.current, 0);
  const int src_freed = fake.RunOnLegacy(1, "src disposed: cudaFreeAsync on cuda:1");
  const int dst_read = fake.RunOnLegacy(0, "dst.cpu() on cuda:0");
  const int unrelated = fake.Run(kStreamA, "the caller's next kernel");
  EXPECT_TRUE(fake.Before(written, copy));
  EXPECT_TRUE(fake.Before(allocated, copy));
  EXPECT_TRUE(fake.Before(copy, src_freed));
  EXPECT_TRUE(fake.Before(copy, dst_read));
  EXPECT_FALSE(fake.Before(unrelated, src_freed));
  EXPECT_EQ(fake.live_events(), 0u);
  EXPECT_TRUE(fake.synchronized.empty());
}

// The synchronous copy between two devices runs on the legacy stream of one;
// the other's legacy stream is bridged both ways.
TEST(StreamOrder, OnTheLegacyStreamTwoDevicesAreBridged) {
  FakeStreams fake;
  const int written = fake.RunOnLegacy(1, "kernel on cuda:1");
  int copy = -1;
  ASSERT_TRUE(EnqueueOrderedAcross(fake, 0, 1, kLegacyStream, [&](uintptr_t on) {
                copy = fake.Run(on, "cudaMemcpyAsync on cuda:0's legacy stream");
                return Status{};
              }).ok);
  const int freed = fake.RunOnLegacy(1, "free on cuda:1");
  EXPECT_TRUE(fake.Before(written, copy));
  EXPECT_TRUE(fake.Before(copy, freed));
  EXPECT_EQ(fake.live_events(), 0u);
}

TEST(StreamOrder, ACopyOnOneDeviceIsEnqueueOrdered) {
  FakeStreams fake;
  fake.stream_device[kStreamA] = 0;
  int copy = -1;
  ASSERT_TRUE(EnqueueOrderedAcross(fake, 0, 0, kStreamA, [&](uintptr_t on) {
                copy = fake.Run(on, "copy");
                return Status{};
              }).ok);
  EXPECT_EQ(fake.records(), 2);  // EnqueueOrdered's two events, no more
  ASSERT_TRUE(EnqueueOrderedAcross(fake, 0, -1, kStreamA, [&](uintptr_t) { return Status{}; }).ok);
  EXPECT_EQ(fake.records(), 4);
}

// Unordered with the other device after the copy, the host waits for it.
TEST(StreamOrder, WithoutTheOtherDevicesEventAfterTheHostWaits) {
  FakeStreams fake;
  fake.stream_device[kStreamA] = 0;
  fake.fail_record_at = 3;  // before (cuda:1), before and after (cuda:0), then this one
  const Status s = EnqueueOrderedAcross(fake, 0, 1, kStreamA, [&](uintptr_t on) {
    fake.Run(on, "copy");
    return Status{};
  });
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(fake.synchronized, std::vector<uintptr_t>{kStreamA});
  EXPECT_EQ(fake.live_events(), 0u);
  EXPECT_EQ(fake.current, 0);
}

// pin.copyFrom(dev, { stream }); pin.cpu(): the host read of the pinned
// tensor must wait for the copy, and for nothing enqueued after it.
TEST(HostFence, HostAccessWaitsForTheCopyThatTouchedTheMemory) {
  FakeStreams fake;
  HostFence fence;
  int copy = -1;
  ASSERT_TRUE(EnqueueOrdered(fake, kStreamA, [&](uintptr_t on) {
                copy = fake.Run(on, "cudaMemcpyAsync into pinned memory");
                return Status{};
              }).ok);
  ASSERT_TRUE(fence.Mark(fake).ok);
  EXPECT_TRUE(fence.pending());
  const int later = fake.Run(kStreamA, "the caller's next kernel");
  ASSERT_TRUE(fence.Wait(fake).ok);
  ASSERT_EQ(fake.host_waits.size(), 1u);
  EXPECT_TRUE(fake.Before(copy, fake.host_waits[0]));
  EXPECT_FALSE(fake.Before(later, fake.host_waits[0]));
  EXPECT_TRUE(fake.synchronized.empty()) << "an event, not a whole-stream wait";
  EXPECT_FALSE(fence.pending());
  EXPECT_EQ(fake.live_events(), 0u);
  ASSERT_TRUE(fence.Wait(fake).ok);  // nothing pending: no wait
  EXPECT_EQ(fake.host_waits.size(), 1u);
}

// Copies on two streams (a host write while either is in flight would land
// under its DMA): the latest mark covers both, and the older event is freed.
TEST(HostFence, TheLatestMarkCoversEveryEarlierCopy) {
  FakeStreams fake;
  HostFence fence;
  int first = -1;
  int second = -1;
  ASSERT_TRUE(EnqueueOrdered(fake, kStreamA, [&](uintptr_t on) {
                first = fake.Run(on, "copy out of pinned memory");
                return Status{};
              }).ok);
  ASSERT_TRUE(fence.Mark(fake).ok);
  ASSERT_TRUE(EnqueueOrdered(fake, kStreamB, [&](uintptr_t on) {
                second = fake.Run(on, "copy into pinned memory");
                return Status{};
              }).ok);
  ASSERT_TRUE(fence.Mark(fake).ok);
  EXPECT_EQ(fake.live_events(), 1u);
  ASSERT_TRUE(fence.Wait(fake).ok);
  ASSERT_EQ(fake.host_waits.size(), 1u);
  EXPECT_TRUE(fake.Before(first, fake.host_waits[0]));
  EXPECT_TRUE(fake.Before(second, fake.host_waits[0]));
  EXPECT_EQ(fake.live_events(), 0u);
}

TEST(HostFence, WithoutAnEventTheHostWaitsAtOnceAndForgetFreesTheEvent) {
  FakeStreams fake;
  HostFence fence;
  fake.fail_record_at = 0;
  EXPECT_FALSE(fence.Mark(fake).ok);
  EXPECT_EQ(fake.synchronized, std::vector<uintptr_t>{kLegacyStream});
  EXPECT_FALSE(fence.pending());
  ASSERT_TRUE(fence.Mark(fake).ok);
  fence.Forget(fake);
  EXPECT_FALSE(fence.pending());
  EXPECT_EQ(fake.live_events(), 0u);
  EXPECT_TRUE(fake.host_waits.empty());
}

}  // namespace
