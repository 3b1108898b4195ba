#include "cuda_runtime.h"

#include <atomic>

#include <cstdlib>
#include <string>

#include "cuda_api.h"
#include "stream_order.h"

#ifdef DLPACK_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace dlnode {
namespace cuda {
namespace {

std::atomic<bool> exiting{false};

#ifdef DLPACK_WITH_CUDA
// Registered once, right after the runtime first initialised (and registered
// its own teardown): atexit handlers run in reverse order, so this one runs
// before the runtime tears down, and later frees are skipped.
struct ExitWatch {
  ExitWatch() {
    std::atexit([] { exiting.store(true); });
  }
};

void WatchExit() { static ExitWatch watch; }

#endif

}  // namespace

Status NotCompiled() {
  Status s;
  s.ok = false;
  s.unavailable = true;
  s.name = "cudaErrorNotCompiled";
  s.message = "this build of dlpack has no CUDA support (no toolkit was found when it was built)";
  return s;
}

bool ShuttingDown() { return exiting.load(); }

CudaResult ResultOf(const Status& status, const std::string& what) {
  if (status.ok) return {};
  return Failed(status.unavailable ? CudaFailure::kUnavailable : CudaFailure::kError,
                what + " failed: " + status.name + " (" + status.message + ")", status.name);
}

#ifdef DLPACK_WITH_CUDA

bool Compiled() { return true; }

Status StatusOf(int code) {
  const auto error = static_cast<cudaError_t>(code);
  if (error == cudaSuccess) return {};
  cudaGetLastError();  // clear the sticky error state for the next call
  Status s;
  s.ok = false;
  s.name = cudaGetErrorName(error);
  s.message = cudaGetErrorString(error);
  s.unavailable = error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver ||
                  error == cudaErrorInitializationError || error == cudaErrorStubLibrary ||
                  error == cudaErrorDevicesUnavailable;
  return s;
}

Status DeviceCount(int* count) {
  *count = 0;
  Status s = Check(cudaGetDeviceCount(count));
  WatchExit();
  if (!s.ok) *count = 0;
  return s;
}

DeviceGuard::DeviceGuard(int device) {
  status_ = Check(cudaGetDevice(&previous_));
  WatchExit();
  if (status_.ok && previous_ != device) {
    status_ = Check(cudaSetDevice(device));
    switched_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  // Nothing to restore when the device was already current (the common
  // case: one cudaGetDevice, no cudaSetDevice, per guarded call).
  if (switched_ && previous_ >= 0 && !exiting.load()) cudaSetDevice(previous_);
}

Status TotalMemory(int device, uint64_t* bytes) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  size_t free_bytes = 0;
  size_t total = 0;
  Status s = Check(cudaMemGetInfo(&free_bytes, &total));
  *bytes = total;
  return s;
}

Status Synchronize(int device) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return Check(cudaDeviceSynchronize());
}

Status StreamCreate(int device, uintptr_t* stream) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  cudaStream_t s = nullptr;
  Status status = Check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  *stream = reinterpret_cast<uintptr_t>(s);
  return status;
}

Status StreamDestroy(int device, uintptr_t stream) {
  if (exiting.load()) return {};
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return Check(cudaStreamDestroy(StreamOf(stream)));
}

Status StreamSynchronize(int device, uintptr_t stream) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return Check(cudaStreamSynchronize(StreamOf(stream)));
}

Status MakeStreamWait(int device, uintptr_t consumer) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  cudaEvent_t event = nullptr;
  Status s = Check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  if (!s.ok) return s;
  s = Check(cudaEventRecord(event, cudaStreamLegacy));
  if (s.ok) s = Check(cudaStreamWaitEvent(StreamOf(consumer), event, 0));
  cudaEventDestroy(event);  // safe while pending: freed once it completes
  return s;
}

Status LaunchHostCallback(int device, uintptr_t stream, void (*fn)(void*), void* data) {
  DeviceGuard guard(device);
  if (!guard.status().ok) return guard.status();
  return Check(cudaLaunchHostFunc(StreamOf(stream), fn, data));
}

Status RecordNewEvent(uintptr_t stream, uintptr_t* event) {
  cudaEvent_t e = nullptr;
  Status s = Check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  if (!s.ok) return s;
  s = Check(cudaEventRecord(e, StreamOf(stream)));
  if (!s.ok) {
    cudaEventDestroy(e);
    return s;
  }
  *event = reinterpret_cast<uintptr_t>(e);
  return s;
}

namespace {

class Runtime final : public StreamOps {
 public:
  Status Record(uintptr_t stream, uintptr_t* event) override {
    return RecordNewEvent(stream, event);
  }
  Status Wait(uintptr_t stream, uintptr_t event) override {
    return Check(cudaStreamWaitEvent(StreamOf(stream), reinterpret_cast<cudaEvent_t>(event), 0));
  }
  void Destroy(uintptr_t event) override { cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)); }
  Status Synchronize(uintptr_t stream) override {
    return Check(cudaStreamSynchronize(StreamOf(stream)));
  }
  Status WaitOnHost(uintptr_t event) override {
    return Check(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(event)));
  }
  Status UseDevice(int device) override { return Check(cudaSetDevice(device)); }
};

}  // namespace

StreamOps& RuntimeStreamOps() {
  static Runtime runtime;  // stateless
  return runtime;
}

#else  // no CUDA toolkit at build time

bool Compiled() { return false; }
Status DeviceCount(int* count) {
  *count = 0;
  return NotCompiled();
}
Status TotalMemory(int, uint64_t*) { return NotCompiled(); }
Status Synchronize(int) { return NotCompiled(); }
Status StreamCreate(int, uintptr_t*) { return NotCompiled(); }
Status StreamDestroy(int, uintptr_t) { return NotCompiled(); }
Status StreamSynchronize(int, uintptr_t) { return NotCompiled(); }
Status MakeStreamWait(int, uintptr_t) { return NotCompiled(); }
Status LaunchHostCallback(int, uintptr_t, void (*)(void*), void*) { return NotCompiled(); }
Status RecordNewEvent(uintptr_t, uintptr_t*) { return NotCompiled(); }

namespace {
class NoRuntime final : public StreamOps {
 public:
  Status Record(uintptr_t, uintptr_t*) override { return NotCompiled(); }
  Status Wait(uintptr_t, uintptr_t) override { return NotCompiled(); }
  void Destroy(uintptr_t) override {}
  Status Synchronize(uintptr_t) override { return NotCompiled(); }
  Status WaitOnHost(uintptr_t) override { return NotCompiled(); }
  Status UseDevice(int) override { return NotCompiled(); }
};
}  // namespace

StreamOps& RuntimeStreamOps() {
  static NoRuntime none;
  return none;
}

DeviceGuard::DeviceGuard(int) : status_(NotCompiled()) {}
DeviceGuard::~DeviceGuard() = default;

#endif

}  // namespace cuda
}  // namespace dlnode
