// What every compute family's reader shares (docs/development.md "Compute
// families"): a dtype index read as a Scalar, the Place of the call, and an
// operand read as a compute::View's element 0 after the one extent check of
// its memory: host memory through the job's JobMemory (which stages or holds
// it for the asynchronous form), CUDA memory through its storage handle.
#ifndef DLPACK_NODE_ADDON_COMPUTE_OPERANDS_H_
#define DLPACK_NODE_ADDON_COMPUTE_OPERANDS_H_

#include <napi.h>

#include <cstdint>

#include "../core/compute/view.h"
#include "job_memory.h"

namespace dlnode {

// (deviceType, deviceId, stream) at info[at], info[at + 1], info[at + 2]:
// the stream a BigInt (the copies' convention: 1n the legacy stream).
compute::Place PlaceAt(const Napi::CallbackInfo& info, int at);

// Element 0 of operand `arg` (memory at info[arg], its byte offset at
// info[arg + 1]) viewed with `ndim`, `shape` and `strides` (elements of
// `type`), after checking that its memory holds the view; `which` names it
// in the error. Host memory goes through `memory` (in argument order, as
// lib/route.js jobMask counts them), CUDA memory is a storage handle.
char* ComputeOperand(const Napi::CallbackInfo& info, JobMemory* memory, const compute::Place& place,
                     int arg, int ndim, const int64_t* shape, const int64_t* strides, Scalar type,
                     JobMemory::Role role, const char* which);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_COMPUTE_OPERANDS_H_
