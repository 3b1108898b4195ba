// The CUDA runtime as this library uses it. Compiled in when DLPACK_WITH_CUDA
// is defined (binding.gyp and CMake turn it on when a toolkit is found); the
// runtime is linked statically and loads the driver on first use, so every
// function here answers "unavailable" on a machine without a driver or GPU
// instead of failing to load.
#ifndef DLPACK_NODE_CORE_CUDA_RUNTIME_H_
#define DLPACK_NODE_CORE_CUDA_RUNTIME_H_

#include <cstdint>
#include <string>

#include "result.h"

namespace dlnode {
namespace cuda {

// The runtime's answer to one call, as the cuda_*.cc units pass it among
// themselves. What a caller reports is the CudaResult of it (ResultOf).
struct Status {
  bool ok = true;
  bool unavailable = false;  // no CUDA build, no driver, or no device
  std::string name;          // e.g. "cudaErrorMemoryAllocation"
  std::string message;
};

// A failed CUDA call: X(Constant, code) (result.h).
#define DLNODE_CUDA_FAILURES(X)                                                 \
  X(kNone, nullptr)                                                             \
  X(kUnavailable, code::kCudaUnavailable) /* no CUDA build, driver or device */ \
  X(kError, code::kCuda)                  /* the call failed: `detail` is the cudaError name */

DLNODE_DEFINE_FAILURES(CudaFailure, DLNODE_CUDA_FAILURES)
using CudaResult = Result<CudaFailure>;

// `status` of the CUDA call `what` (e.g. "cudaDeviceSynchronize on device 0")
// as a result: the one wording of a failed CUDA call, "<what> failed:
// <cudaError name> (<the runtime's description>)".
CudaResult ResultOf(const Status& status, const std::string& what);

// The same as a compute family's result (a Failure table with kCudaUnavailable
// and kCuda rows): success, unavailable where CUDA is missing, else failed.
template <typename Failure>
Result<Failure> FamilyResultOf(const Status& status, const std::string& what) {
  if (status.ok) return {};
  const CudaResult failed = ResultOf(status, what);
  return Failed(
      failed.failure == CudaFailure::kUnavailable ? Failure::kCudaUnavailable : Failure::kCuda,
      failed.message, failed.detail);
}

// Whether this build has CUDA support compiled in.
bool Compiled();

// What every call answers in a build without CUDA ("not compiled"; unavailable).
Status NotCompiled();

// The Status of a cudaError_t (passed as int so that this header needs no
// CUDA header), clearing the runtime's sticky error. Only in CUDA builds.
Status StatusOf(int error);

// Devices usable now; 0 with a status saying why when there are none.
Status DeviceCount(int* count);

// Total memory of `device` in bytes.
Status TotalMemory(int device, uint64_t* bytes);

// cudaDeviceSynchronize on `device`.
Status Synchronize(int device);

// Streams are passed around as their handle value (cudaStream_t as an
// integer), as the DLPack protocol does.
Status StreamCreate(int device, uintptr_t* stream);
Status StreamDestroy(int device, uintptr_t stream);
Status StreamSynchronize(int device, uintptr_t stream);

// DLPack export ordering: record an event on the producer's stream (the
// legacy default stream of `device`) and make `consumer` wait for it.
// `consumer` follows the protocol: 1 legacy default, 2 per-thread default,
// larger values a stream handle.
Status MakeStreamWait(int device, uintptr_t consumer);

// Calls fn(data) on a CUDA runtime thread once `stream` has run all work
// enqueued on it so far (cudaLaunchHostFunc); fn must make no CUDA call.
Status LaunchHostCallback(int device, uintptr_t stream, void (*fn)(void*), void* data);

// Records a new event (no timing) on `stream` of the current device into
// `*event`; the caller destroys it. Nothing is left behind on failure.
Status RecordNewEvent(uintptr_t stream, uintptr_t* event);

// True once the process has begun to exit: no CUDA call may be made then
// (the driver may already be gone); releases leak on purpose.
bool ShuttingDown();

// Restores the current device when it goes out of scope.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  const Status& status() const { return status_; }

 private:
  int previous_ = -1;
  bool switched_ = false;  // cudaSetDevice was called (even if it failed)
  Status status_;
};

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_RUNTIME_H_
