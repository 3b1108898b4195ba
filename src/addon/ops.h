// The elementwise ops, host and CUDA (src/core/compute/elementwise_call.h),
// and the pool's thread count (src/core/parallel.h).
// lib/ops.js validates, broadcasts and promotes first.
#ifndef DLPACK_NODE_ADDON_OPS_H_
#define DLPACK_NODE_ADDON_OPS_H_

#include <napi.h>

namespace dlnode {

// (device, op, dtype, stream, out, outOffset, in0, in0Offset[, in1, in1Offset[,
// in2, in2Offset]]): device -1 (kHostDevice) or a CUDA device's index, whose
// kernel is enqueued on `stream` (a BigInt). A tensor operand is its memory (a
// Uint8Array or a storage handle) with the byte offset of its element 0; an
// input may be a number instead (a scalar of `dtype`, its offset ignored).
// ndim and the broadcast shape in the scratch block; strides in elements: the
// output's in kStrides, in0's in kSourceStrides, in1's and in2's in
// kOperandStrides (0 where broadcast).
Napi::Value ElementwiseOnce(const Napi::CallbackInfo& info);

// The dense form on the host, on this thread: (op, dtype, out, in0[, in1[,
// in2]]), every tensor operand row-major over the element count in scratch
// kShape (ndim 1, stride 1), the byte offsets of out, in0, ... in scratch
// kOffsets (an input's ignored where it is a number). The same descriptor,
// checks and engine as ElementwiseOnce, from fewer arguments.
Napi::Value ElementwiseDense(const Napi::CallbackInfo& info);

// The same arguments on the host, the `stage` mask last -> a Promise settled
// when the engine has run on a libuv thread (lib/ops.js `{ async: true }`);
// the buffers are held until then.
Napi::Value ElementwiseAsync(const Napi::CallbackInfo& info);

// () -> the pool's thread count; (n) -> whether it was taken (1..256).
Napi::Value GetNumThreadsOf(const Napi::CallbackInfo& info);
Napi::Value SetNumThreadsTo(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_OPS_H_
