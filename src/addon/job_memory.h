// The memory a host op's call reads and writes, one tensor operand at a time
// (lib/route.js hostArg): a Uint8Array over JavaScript memory, or a storage
// handle over native memory, whose base and length come from the handle and
// never from a JS view. Each operand's view is checked to lie inside the
// memory now (ERR_DLPACK_DETACHED otherwise: a buffer detached or shrunk).
//
// The asynchronous form (async_op.h) also keeps what it uses until it has
// run, as lib/storage.js Storage#jobUse decided per operand (docs/API.md "Off
// the event loop"; issue 37, finding 1):
//  - native memory: the job holds a reference (Ref<NativeMemory>), dropped
//    once it has run. JavaScript can transfer or detach an ArrayBuffer made
//    over the memory, never free it;
//  - staged: the library's own ArrayBuffer, which the caller could detach
//    (t.buffer transferred, a BYOB read) and V8 then free while the job
//    runs. Its bytes are copied into native scratch here, on the JS thread;
//    an output's elements are copied back on the JS thread when the job has
//    run (Settle), after checking the buffer still holds them
//    (ERR_DLPACK_DETACHED when it was detached or shrunk meanwhile);
//  - in place: a SharedArrayBuffer (never detached, and a growable one only
//    grows) or WebAssembly memory (grown in place, never moved, on 64-bit
//    targets), used at its address. The worker's reference to the argument,
//    and lib/'s hold on the Storage, keep it alive.
#ifndef DLPACK_NODE_ADDON_JOB_MEMORY_H_
#define DLPACK_NODE_ADDON_JOB_MEMORY_H_

#include <napi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../core/convert.h"
#include "../core/managed.h"
#include "../core/scratch.h"

namespace dlnode {

class JobMemory {
 public:
  // The synchronous form until Async(): every operand used in place,
  // nothing held.
  JobMemory() = default;
  JobMemory(const JobMemory&) = delete;
  JobMemory& operator=(const JobMemory&) = delete;

  enum class Role { kInput, kOutput };

  // The asynchronous form, before the first Operand(): native memory held,
  // and bit i of `staged` stages the i-th tensor operand (in the order
  // Operand() is called, which is argument order).
  void Async(uint32_t staged);

  // The bytes a view reaches around its element 0: [first - low, first + high).
  struct Extent {
    uint64_t low;
    uint64_t high;
  };

  // Element 0 of the view (ndim, shape and strides in elements of
  // `item_size` bytes, starting `offset` bytes into `value`, argument `arg`
  // of the call) of a tensor operand, and its extent into `extent` when
  // given. `which` names it in the ERR_DLPACK_DETACHED message. For an
  // output of `type`, a staged copy is written back at Settle(); shape and
  // strides must outlive this object (the job owns them).
  char* Operand(napi_env env, int arg, napi_value value, uint64_t offset, int ndim,
                const int64_t* shape, const int64_t* strides, uint64_t item_size, Role role,
                Scalar type, const char* which, Extent* extent = nullptr);

  // Drops the references held on native memory (once the job has run; any
  // thread). Staged bytes stay until Settle() or destruction.
  void Release() noexcept;

  // On the JS thread once the job has run: each staged output's elements
  // into its buffer, read afresh from `args` (the call's arguments, kept by
  // the worker); throws ERR_DLPACK_DETACHED when a buffer no longer holds
  // its view.
  void Settle(napi_env env, const std::vector<napi_value>& args);

  // The most tensor operands a call has (an elementwise op's out and three
  // inputs).
  static constexpr int kMaxOperands = 4;

 private:
  struct Staged {
    int arg = 0;
    Scratch<char> bytes;  // [first - low, first + high) of the view, copied in
    uint64_t offset = 0;  // of element 0 in the argument's bytes
    uint64_t low = 0;
    uint64_t high = 0;
    int ndim = 0;
    const int64_t* shape = nullptr;
    const int64_t* strides = nullptr;
    Scalar type = Scalar::kBool;
    bool output = false;  // written back at Settle()
  };

  // What the asynchronous form keeps, by operand (none for the synchronous
  // form, which pays nothing for it).
  struct Kept {
    uint32_t staged_mask = 0;
    Ref<NativeMemory> held[kMaxOperands];
    Staged staged[kMaxOperands];
  };

  int count_ = 0;  // operands read so far
  std::unique_ptr<Kept> kept_;
};

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_JOB_MEMORY_H_
