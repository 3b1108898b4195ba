// The one reader of a compute family's operand (docs/development.md "Compute
// families"): lib/binding.js passes each operand as four positional
// arguments, (memory, byteOffset, dtypeIndex, dims), memory a Uint8Array or a
// storage handle (null: no operand, first == nullptr) and dims the plain
// array [...shape, ...strides] (strides in elements). Every number is
// bounded here, as convention.h's readers bound the scratch block's, and the
// bytes the view reaches are checked against the memory (JobMemory::Operand).
#ifndef DLPACK_NODE_ADDON_COMPUTE_VIEW_H_
#define DLPACK_NODE_ADDON_COMPUTE_VIEW_H_

#include <napi.h>

#include <cstdint>

#include "../core/compute/view.h"
#include "../core/layout.h"
#include "job_memory.h"

namespace dlnode {

// A compute::View with the shape and strides it points at (not movable: the
// view points into it).
struct ViewArg {
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  compute::View view;

  ViewArg() = default;
  ViewArg(const ViewArg&) = delete;
  ViewArg& operator=(const ViewArg&) = delete;
};

// Arguments at..at+3 into `out`; `which` names the operand in an error.
void ReadView(const Napi::CallbackInfo& info, int at, JobMemory* memory, JobMemory::Role role,
              const char* which, ViewArg* out);

// A BigInt argument as a uint64 (seeds, counters) or an int64 (bounds),
// refused where it does not fit.
uint64_t Uint64At(const Napi::CallbackInfo& info, int at, const char* what);
int64_t Int64At(const Napi::CallbackInfo& info, int at, const char* what);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_COMPUTE_VIEW_H_
