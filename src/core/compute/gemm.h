// The host GEMM under matmul (matmul.h): C = A B (+ bias) for float and
// double, on Eigen 3.4's packing routines and register-blocked kernel (the
// choice and its measurements: docs/development.md "The BLAS"), driven here
// over the host pool. Compiled once per instruction set (gemm_avx2.cc: AVX2
// with FMA; gemm_base.cc: the baseline, SSE2 on x86-64 and NEON on arm64)
// and picked once a process (Kernels()).
//
// Results are the same at any thread count: how the work is cut into tiles
// depends on the shape alone, each tile's arithmetic on its rows and columns
// alone, and a thread count only changes which thread runs a tile. They do
// depend on the instruction set (an FMA rounds once where SSE2 rounds twice)
// and on the CPU's cache sizes (Eigen's depth blocking), as every BLAS's do.
#ifndef DLPACK_NODE_CORE_COMPUTE_GEMM_H_
#define DLPACK_NODE_CORE_COMPUTE_GEMM_H_

#include <cstdint>

#include "../layout.h"
#include "compute_result.h"

namespace dlnode {
namespace compute {
namespace gemm {

// A batch of C[b] = A[b] B[b] (+ bias): m x k times k x n. Strides in
// elements. A and B each have a unit stride in one of their two matrix dims
// (row-major or column-major, any leading stride, 0 included), as BLAS's
// transposes and leading dimensions allow; matmul.cc copies an operand that
// has neither. C has a unit stride in one dim, and no two of its elements
// share memory, nor any with A, B or bias. The batch dims' strides may be 0
// (a broadcast operand).
template <class T>
struct Operands {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  const T* a = nullptr;
  int64_t a_rs = 0;  // row stride
  int64_t a_cs = 0;  // column stride
  const T* b = nullptr;
  int64_t b_rs = 0;
  int64_t b_cs = 0;
  T* c = nullptr;
  int64_t c_rs = 0;
  int64_t c_cs = 0;
  const T* bias = nullptr;  // n elements added to every row of C, or null
  int64_t bias_stride = 0;
  int batch_ndim = 0;
  const int64_t* batch = nullptr;  // batch_ndim sizes
  const int64_t* a_bs = nullptr;   // batch strides of A, B and C
  const int64_t* b_bs = nullptr;
  const int64_t* c_bs = nullptr;
};

// One instruction set's GEMM (gemm_driver.h, compiled per set).
struct Isa {
  const char* name;  // "avx2+fma", "sse2", "neon", "generic"
  ComputeResult (*f32)(const Operands<float>& op);
  ComputeResult (*f64)(const Operands<double>& op);
};

// The set this CPU runs, decided at the first call.
const Isa& Kernels();
// Every set compiled into this build that this CPU can run (tests compare
// them); Kernels() is one of them.
int AvailableIsas(const Isa** out, int most);

}  // namespace gemm
}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_GEMM_H_
