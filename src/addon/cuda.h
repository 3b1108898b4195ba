// Bindings for dl.cuda (docs/API.md "CUDA").
#ifndef DLPACK_NODE_ADDON_CUDA_H_
#define DLPACK_NODE_ADDON_CUDA_H_

#include <napi.h>

namespace dlnode {

Napi::Value CudaInfo(const Napi::CallbackInfo& info);  // () -> { compiled, deviceCount, ... }
Napi::Value CudaSynchronize(const Napi::CallbackInfo& info);        // (device)
Napi::Value CudaStreamCreate(const Napi::CallbackInfo& info);       // (device) -> bigint
Napi::Value CudaStreamDestroy(const Napi::CallbackInfo& info);      // (device, bigint)
Napi::Value CudaStreamSynchronize(const Napi::CallbackInfo& info);  // (device, bigint)
Napi::Value CudaStreamWait(const Napi::CallbackInfo& info);         // (device, consumer bigint)
Napi::Value CudaAlloc(const Napi::CallbackInfo& info);  // (kind 0 device/1 pinned/2 managed/3
                                                        // shareable, device, nbytes) -> handle
// (dst, dstIsHandle, dstOffset, src, srcIsHandle, srcOffset, nbytes, device, other[, stream
// bigint]): handles or Uint8Arrays; `device` the CUDA side's (the destination's when both
// are), `other` the other side's or -1; with a stream, enqueued on it (cuda_memory.h CopyAsync)
Napi::Value CudaCopy(const Napi::CallbackInfo& info);
// (handle): before host access to pinned/managed memory, waits for the
// stream copies that touched it (cuda_memory.h WaitHostAccess)
Napi::Value CudaHostWait(const Napi::CallbackInfo& info);
Napi::Value CudaStreamDone(
    const Napi::CallbackInfo& info);  // (device, bigint) -> Promise<undefined>
// (ms) -> Promise<undefined>: done()'s promise and thread-safe function with a
// thread that sleeps `ms` standing in for the stream's host callback, so that
// tests prove its lifetime on every machine (test/cuda-streams.test.js).
Napi::Value StreamDoneAfter(const Napi::CallbackInfo& info);
// Kernels between views of device memory on one device; shape and strides
// (destination, source) in the scratch block.
// (device, dstHandle, dstOffset, srcHandle, srcOffset, itemSize, stream bigint)
Napi::Value CudaStridedCopy(const Napi::CallbackInfo& info);
// (device, dstHandle, dstOffset, dstCode, dstBits, srcHandle, srcOffset, srcCode, srcBits, stream
// bigint)
Napi::Value CudaConvert(const Napi::CallbackInfo& info);
Napi::Value CudaStats(const Napi::CallbackInfo&
                          info);  // (device) -> { allocatedBytes, allocations, peak..., cached... }
Napi::Value CudaEmptyCache(const Napi::CallbackInfo& info);  // (device) -> bytes freed

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_CUDA_H_
