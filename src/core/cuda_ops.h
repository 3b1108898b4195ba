// The elementwise ops (elementwise.h) on CUDA device memory:
// one kernel per compute dtype with the op as a runtime switch (cuda_ops.cu),
// and two for float32 plans under 2^31 elements (four elements a thread: a
// dense one through float4 loads, a tiled one for at most three dims),
// whose element functions are elementwise_math.h's, the host engine's. Every
// tensor operand must be on `device`; a JS-number operand travels by value in
// the launch's arguments. The work is enqueued on `stream` (1 the legacy
// default stream, 2 per-thread default, larger a handle) and ordered with
// later work on it, not with the host. Without CUDA compiled in, each
// answers "not compiled".
#ifndef DLPACK_NODE_CORE_CUDA_OPS_H_
#define DLPACK_NODE_CORE_CUDA_OPS_H_

#include <cstdint>

#include "convert.h"
#include "cuda_runtime.h"
#include "device_normalize.h"
#include "elementwise.h"
#include "elementwise_math.h"

namespace dlnode {
namespace cuda {

// An op's operands on the device: the output first, then the inputs. An input
// whose pointer is null is the scalar in `scalar` (ScalarBits).
struct OpArgs {
  char* ptr[kMaxOperands] = {};
  uint64_t scalar[kMaxOperands] = {};
};

// An element of `type` (as StoreScalar writes it) as the kernel reads a
// scalar: an integer extended to 64 bits (math::Widened), a float or a bool
// in the low bytes.
uint64_t ScalarBits(Scalar type, const void* element);

// Whether the kernel computes `op` in `type` (the host engine's refusals).
bool DeviceComputes(ElementwiseOp op, Scalar type);

// out = op(inputs) over `plan` (MakeOpPlan over the output and the inputs),
// `type` as for Elementwise(). The caller checks DeviceComputes first.
Status DeviceElementwise(int device, ElementwiseOp op, Scalar type, const OpPlan& plan,
                         const OpArgs& args, uintptr_t stream);

// Reductions of dense rows (lib/reduce.js permutes and converts first):
// out[r] = op(in[r * n], ..., in[r * n + n - 1]) for r < rows, in `type`
// (int64, uint64, float32 or float64; int64 sums wrap). One block per row,
// or for float32 rows of at most 1,024 elements one warp per row, in the
// order of elementwise_math.h's row reductions either way (math::ReduceRow
// and math::ReduceRowByWarp on the host give the same bits), so every run
// gives the same bits. NaN propagates through max/min.
using math::PickOrder;
using math::RowOp;

bool RowReducible(Scalar type);

Status DeviceReduceRows(int device, RowOp op, Scalar type, const char* in, char* out, int64_t rows,
                        int64_t n, uintptr_t stream);

// Picks from dense rows of `type` (as for DeviceReduceRows): for r < rows,
// the first k elements of row r (`n` elements) in math::RowBefore's `order`
// (largest or smallest first, NaN first or last, ties to the lower index), their
// values to values[r * k + j] and their indices to indices[r * k + j]
// (either may be null). k = 1 is argmax/argmin/max(dim)/min(dim), larger k
// topk; 1 <= k <= n. O(k n) per row: each pick rereads the row.
Status DeviceRowPicks(int device, Scalar type, PickOrder order, const char* in, char* values,
                      int64_t* indices, int64_t rows, int64_t n, int64_t k, uintptr_t stream);

// softmax (or logSoftmax: `log`) of dense rows of float32 or float64 in one
// launch, one block per row, or one warp per row for rows of at most 4 KB
// (1,024 float32, 512 float64), in math::SoftmaxRow's order either way; out
// does not overlap in.
Status DeviceSoftmaxRows(int device, Scalar type, bool log, const char* in, char* out, int64_t rows,
                         int64_t n, uintptr_t stream);

// dl.normalize's one pass (device_normalize.h) from `in` (uint8 or
// float32) into float32 `out` over `plan`; out may be in itself (the same
// elements) but not overlap it otherwise. The caller checks DeviceNormalizes.
Status DeviceNormalize(int device, Scalar in_type, const NormalizePlan32& plan,
                       const NormalizeValues& values, const char* in, char* out, uintptr_t stream);

// The kernel launchers (cuda_ops.cu): a cudaError_t as int.
int LaunchElementwise(ElementwiseOp op, Scalar type, const OpPlan& plan, const OpArgs& args,
                      uintptr_t stream);

int LaunchReduceRows(RowOp op, Scalar type, const char* in, char* out, int64_t rows, int64_t n,
                     uintptr_t stream);

int LaunchRowPicks(Scalar type, PickOrder order, const char* in, char* values, int64_t* indices,
                   int64_t rows, int64_t n, int64_t k, uintptr_t stream);

int LaunchSoftmaxRows(Scalar type, bool log, const char* in, char* out, int64_t rows, int64_t n,
                      uintptr_t stream);

int LaunchNormalize(Scalar in_type, const NormalizePlan32& plan, const NormalizeValues& values,
                    const char* in, char* out, uintptr_t stream);

}  // namespace cuda
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_CUDA_OPS_H_
