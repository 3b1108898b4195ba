// Bindings for dl.cuda (docs/API.md "CUDA"): availability, synchronisation, streams
// and the stream ordering of DLPack exports.
#include "cuda.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "../core/compute/elementwise.h"
#include "../core/cuda_kernels.h"
#include "../core/cuda_memory.h"
#include "../core/cuda_runtime.h"
#include "../core/device_copy.h"
#include "../core/dtype.h"
#include "../core/layout.h"
#include "bytes.h"
#include "convention.h"
#include "env_state.h"
#include "host_storage.h"

namespace dlnode {
namespace {

// Throws the failure of the CUDA call `what` (cuda_runtime.h ResultOf).
void Throw(const cuda::Status& s, const std::string& what) {
  ThrowIfFailed(cuda::ResultOf(s, what));
}

// Memory a copy reads or writes: a storage handle (native memory, CUDA
// included) or a typed array over JS memory.
Bytes SpanOf(napi_env env, const Napi::Value& value, bool is_handle) {
  if (!is_handle) return BytesOf(env, value);
  NativeMemory* memory = StorageOf(env, value);
  return {static_cast<char*>(memory->base()), memory->length()};
}

// A byte offset or count a binding is given (convention.h ByteOffsetOf).
uint64_t OffsetArg(const Napi::Value& v) {
  return ByteOffsetOf(v.As<Napi::Number>().DoubleValue(), "a byte offset");
}

uintptr_t StreamArg(const Napi::Value& v) {
  bool lossless = false;
  return static_cast<uintptr_t>(v.As<Napi::BigInt>().Uint64Value(&lossless));
}

// The memory of a storage handle at `offset`, after checking that it holds
// the view whose shape is in the scratch block with `strides` (elements).
char* ViewIn(napi_env env, const Napi::Value& handle, uint64_t offset, int ndim,
             const int64_t* shape, const int64_t* strides, uint64_t item, const char* which) {
  NativeMemory* memory = StorageOf(env, handle);
  uint64_t low = 0;
  uint64_t high = 0;
  if (!ComputeExtent(ndim, shape, strides, item, &low, &high)) {
    throw Error{code::kOutOfRange, std::string("Expected a ") + which + " extent below 2^53 bytes"};
  }
  if ((low != 0 || high != 0) && !Holds(memory->length(), offset, low, high)) {
    throw Error{code::kDetached, std::string("Expected the ") + which +
                                     " memory to hold its view, but it is " +
                                     std::to_string(memory->length()) + " bytes"};
  }
  return static_cast<char*>(memory->base()) + offset;
}

// The views in the scratch block (shape, destination strides, source
// strides, as the host copy reads them) and their copy plan.
struct ScratchViews {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
  CopyPlan plan;
};

void ReadScratchViews(napi_env env, ScratchViews* v) {
  const double* scratch = EnvState::Of(env).scratch();
  v->ndim = ScratchNdim(scratch);
  ScratchShape(scratch, v->ndim, v->shape);
  ScratchInts(scratch, slot::kStrides, v->ndim, false, v->dst_strides);
  ScratchInts(scratch, slot::kSourceStrides, v->ndim, false, v->src_strides);
  v->plan = MakeCopyPlan(v->ndim, v->shape, v->dst_strides, v->src_strides);
}

}  // namespace

Napi::Value CudaStridedCopy(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  ScratchViews v;
  ReadScratchViews(env, &v);
  const int device = info[0].As<Napi::Number>().Int32Value();
  const auto item = OffsetArg(info[5]);
  char* dst =
      ViewIn(env, info[1], OffsetArg(info[2]), v.ndim, v.shape, v.dst_strides, item, "destination");
  const char* src =
      ViewIn(env, info[3], OffsetArg(info[4]), v.ndim, v.shape, v.src_strides, item, "source");
  Throw(cuda::DeviceStridedCopy(device, v.plan, item, dst, src, StreamArg(info[6])),
        "the strided copy kernel on device " + std::to_string(device));
  return info.Env().Undefined();
}

Napi::Value CudaConvert(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  ScratchViews v;
  ReadScratchViews(env, &v);
  const int device = info[0].As<Napi::Number>().Int32Value();
  const ElementType dst_type{static_cast<uint8_t>(info[3].As<Napi::Number>().Int32Value()),
                             static_cast<uint8_t>(info[4].As<Napi::Number>().Int32Value())};
  const ElementType src_type{static_cast<uint8_t>(info[7].As<Napi::Number>().Int32Value()),
                             static_cast<uint8_t>(info[8].As<Napi::Number>().Int32Value())};
  if (!IsConvertible(dst_type) || !IsConvertible(src_type)) {
    throw Error{code::kUnsupported, "Expected dtypes the conversion kernel handles"};
  }
  char* dst = ViewIn(env, info[1], OffsetArg(info[2]), v.ndim, v.shape, v.dst_strides,
                     dst_type.bits / 8, "destination");
  const char* src = ViewIn(env, info[5], OffsetArg(info[6]), v.ndim, v.shape, v.src_strides,
                           src_type.bits / 8, "source");
  Throw(cuda::DeviceConvert(device, v.plan, dst_type, dst, src_type, src, StreamArg(info[9])),
        "the dtype conversion kernel on device " + std::to_string(device));
  return info.Env().Undefined();
}

Napi::Value CudaInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int count = 0;
  const cuda::Status s = cuda::DeviceCount(&count);
  Napi::Object result = Napi::Object::New(env);
  result.Set("compiled", cuda::Compiled());
  result.Set("deviceCount", count);
  uint64_t total = 0;
  if (count > 0 && cuda::TotalMemory(0, &total).ok)
    result.Set("totalMemory0", static_cast<double>(total));
  if (!s.ok) {
    result.Set("errorName", s.name);
    result.Set("reason", s.message);
  }
  return result;
}

Napi::Value CudaSynchronize(const Napi::CallbackInfo& info) {
  const int device = info[0].As<Napi::Number>().Int32Value();
  Throw(cuda::Synchronize(device), "cudaDeviceSynchronize on device " + std::to_string(device));
  return info.Env().Undefined();
}

Napi::Value CudaStreamCreate(const Napi::CallbackInfo& info) {
  const int device = info[0].As<Napi::Number>().Int32Value();
  uintptr_t stream = 0;
  Throw(cuda::StreamCreate(device, &stream),
        "cudaStreamCreate on device " + std::to_string(device));
  EnvState::Of(info.Env()).AddStream(device, stream);
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(stream));
}

Napi::Value CudaStreamDestroy(const Napi::CallbackInfo& info) {
  EnvState::Of(info.Env()).RemoveStream(StreamArg(info[1]));
  Throw(cuda::StreamDestroy(info[0].As<Napi::Number>().Int32Value(), StreamArg(info[1])),
        "cudaStreamDestroy");
  return info.Env().Undefined();
}

Napi::Value CudaStreamSynchronize(const Napi::CallbackInfo& info) {
  Throw(cuda::StreamSynchronize(info[0].As<Napi::Number>().Int32Value(), StreamArg(info[1])),
        "cudaStreamSynchronize");
  return info.Env().Undefined();
}

Napi::Value CudaStreamWait(const Napi::CallbackInfo& info) {
  Throw(cuda::MakeStreamWait(info[0].As<Napi::Number>().Int32Value(), StreamArg(info[1])),
        "ordering the consumer's stream after the producer's");
  return info.Env().Undefined();
}

Napi::Value CudaAlloc(const Napi::CallbackInfo& info) {
  const auto kind = static_cast<cuda::MemoryKind>(info[0].As<Napi::Number>().Int32Value());
  const int device = info[1].As<Napi::Number>().Int32Value();
  const auto bytes = OffsetArg(info[2]);
  const bool zeroed = info[3].As<Napi::Boolean>().Value();
  cuda::Status status;
  Ref<cuda::CudaMemory> memory = cuda::CudaMemory::Allocate(kind, device, bytes, zeroed, &status);
  if (!memory) {
    Throw(status, "allocating " + std::to_string(bytes) + " bytes of CUDA memory on device " +
                      std::to_string(device));
  }
  return Napi::Value(info.Env(),
                     NewStorageHandle(info.Env(), std::move(memory), Accounting::kReport));
}

Napi::Value CudaCopy(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const Bytes dst = SpanOf(env, info[0], info[1].As<Napi::Boolean>().Value());
  const auto dst_offset = OffsetArg(info[2]);
  const Bytes src = SpanOf(env, info[3], info[4].As<Napi::Boolean>().Value());
  const auto src_offset = OffsetArg(info[5]);
  const auto bytes = OffsetArg(info[6]);
  if (!Holds(dst.length, dst_offset, 0, bytes) || !Holds(src.length, src_offset, 0, bytes)) {
    throw Error{code::kDetached,
                "Expected both buffers of a CUDA copy to hold its bytes, but one was "
                "detached or shrunk"};
  }
  const int device = info[7].As<Napi::Number>().Int32Value();
  const int other = info[8].As<Napi::Number>().Int32Value();
  if (info.Length() > 9 && info[9].IsBigInt()) {
    // Enqueued on a stream: both sides are CUDA memory this library allocated
    // (lib/cuda.js copyBytes decides), whose frees are stream-ordered.
    const uintptr_t stream = StreamArg(info[9]);
    Throw(
        cuda::CopyAsync(device, other, dst.data + dst_offset, src.data + src_offset, bytes, stream),
        "cudaMemcpyAsync");
    if (stream != cuda::kLegacyStream) {
      // Pinned or managed memory on either side: the host waits before touching it.
      Throw(cuda::FenceHostAccess(device, StorageOf(env, info[0])), "cudaEventRecord");
      Throw(cuda::FenceHostAccess(device, StorageOf(env, info[3])), "cudaEventRecord");
    }
    return info.Env().Undefined();
  }
  Throw(cuda::Copy(device, other, dst.data + dst_offset, src.data + src_offset, bytes),
        "cudaMemcpy");
  return info.Env().Undefined();
}

Napi::Value CudaHostWait(const Napi::CallbackInfo& info) {
  Throw(cuda::WaitHostAccess(StorageOf(info.Env(), info[0])),
        "waiting for copies on a stream (cudaEventSynchronize)");
  return info.Env().Undefined();
}

namespace {

// Stream.done(): a promise resolved on the JS thread, through a thread-safe
// function, by a host callback the stream runs after its earlier work. The
// callback may run after the environment has ended (worker.terminate(),
// process.exit() in a worker): Node then closes the function and frees it
// once its finalizer has run. The callback and the finalizer share this
// state, each holding one reference; the function is called and released
// under the lock only while it is not closing, so no call reaches a freed
// function. The module is linked with -z nodelete (binding.gyp,
// CMakeLists.txt), so this code stays mapped after the last environment
// that loaded it has ended.
struct PendingDone {
  std::mutex mutex;
  napi_threadsafe_function tsfn = nullptr;
  bool closing = false;  // guarded by mutex: the finalizer ran
};

void ResolveDone(napi_env env, napi_value, void* context, void*) {
  if (env == nullptr) return;  // the environment is being torn down
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  napi_resolve_deferred(env, static_cast<napi_deferred>(context), undefined);
}

// JS thread: after the last release, or when the environment closes the
// function. No JS here either: it may run at teardown.
void FinalizeDone(napi_env, void* data, void*) {
  auto* held = static_cast<std::shared_ptr<PendingDone>*>(data);
  {
    std::lock_guard<std::mutex> lock((*held)->mutex);
    (*held)->closing = true;
  }
  delete held;
}

void StreamReached(void* data) {  // on a CUDA thread: no CUDA and no JS here
  std::unique_ptr<std::shared_ptr<PendingDone>> held(
      static_cast<std::shared_ptr<PendingDone>*>(data));
  PendingDone& done = **held;
  std::lock_guard<std::mutex> lock(done.mutex);
  if (done.closing) return;
  // Non-blocking: the queue is unbounded, and a blocking call would wait
  // under the lock that the closing environment's finalizer takes.
  // napi_closing: the function is going away and must not be released.
  if (napi_call_threadsafe_function(done.tsfn, nullptr, napi_tsfn_nonblocking) == napi_closing)
    return;
  napi_release_threadsafe_function(done.tsfn, napi_tsfn_release);
}

// A promise that the callback `launch` schedules resolves; `launch` returns
// false (with `*failure` set) when the callback will never run.
template <typename Launch>
napi_value DonePromise(napi_env env, Launch&& launch) {
  napi_deferred deferred;
  napi_value promise;
  Check(env, napi_create_promise(env, &deferred, &promise), "napi_create_promise");
  napi_value name;
  Check(env, napi_create_string_utf8(env, "dlpack.cuda.Stream.done", NAPI_AUTO_LENGTH, &name),
        "napi_create_string_utf8");
  auto done = std::make_shared<PendingDone>();
  auto finalizer_ref = std::make_unique<std::shared_ptr<PendingDone>>(done);
  auto callback_ref = std::make_unique<std::shared_ptr<PendingDone>>(done);
  // Referenced until the callback has run, so a pending done() keeps the
  // process alive as a pending timer does. The finalizer owns its reference
  // from here on, whether or not the callback is ever launched.
  Check(env,
        napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, finalizer_ref.get(),
                                        FinalizeDone, deferred, ResolveDone, &done->tsfn),
        "napi_create_threadsafe_function");
  static_cast<void>(finalizer_ref.release());  // FinalizeDone deletes it
  napi_value failure = nullptr;
  if (launch(StreamReached, callback_ref.get(), &failure)) {
    static_cast<void>(callback_ref.release());  // StreamReached deletes it
  } else {
    // The callback will never run: settle the promise here (rejected with the
    // coded error, as every other failure of an awaited call is), or the
    // deferred and the promise would live forever.
    napi_release_threadsafe_function(done->tsfn, napi_tsfn_abort);
    Check(env, napi_reject_deferred(env, deferred, failure), "napi_reject_deferred");
  }
  return promise;
}

}  // namespace

Napi::Value CudaStreamDone(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const int device = info[0].As<Napi::Number>().Int32Value();
  const uintptr_t stream = StreamArg(info[1]);
  return Napi::Value(env, DonePromise(env, [&](void (*fn)(void*), void* data, napi_value* failure) {
                       const cuda::Status s = cuda::LaunchHostCallback(device, stream, fn, data);
                       if (!s.ok)
                         *failure = EnvState::Of(env).MakeError(
                             env, ErrorOf(cuda::ResultOf(s, "cudaLaunchHostFunc")));
                       return s.ok;
                     }));
}

Napi::Value StreamDoneAfter(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  const auto delay = std::chrono::milliseconds(info[0].As<Napi::Number>().Int64Value());
  return Napi::Value(env, DonePromise(env, [&](void (*fn)(void*), void* data, napi_value*) {
                       std::thread([fn, data, delay] {
                         std::this_thread::sleep_for(delay);
                         fn(data);
                       }).detach();
                       return true;
                     }));
}

Napi::Value CudaStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const cuda::MemoryStats s = cuda::Stats(info[0].As<Napi::Number>().Int32Value());
  Napi::Object result = Napi::Object::New(env);
  result.Set("allocatedBytes", static_cast<double>(s.allocated_bytes));
  result.Set("allocations", static_cast<double>(s.allocations));
  result.Set("peakAllocatedBytes", static_cast<double>(s.peak_allocated_bytes));
  result.Set("cachedBytes", static_cast<double>(s.cached_bytes));
  result.Set("cachedBlocks", static_cast<double>(s.cached_blocks));
  return result;
}

Napi::Value CudaEmptyCache(const Napi::CallbackInfo& info) {
  const int64_t freed = cuda::EmptyCache(info[0].As<Napi::Number>().Int32Value());
  return Napi::Number::New(info.Env(), static_cast<double>(freed));
}

}  // namespace dlnode
