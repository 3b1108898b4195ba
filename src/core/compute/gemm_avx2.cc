// The GEMM for x86-64 CPUs with AVX2 and FMA (gemm.h Kernels() picks it at
// load): Eigen's AVX2 packets and FMA kernel, in a namespace of its own.
//
// Only Eigen's code is compiled for AVX2: the standard headers come first
// (gemm_isa_prelude.h), under the baseline, and `#pragma GCC target` switches
// the instruction set for what follows. GCC defines no __AVX2__ for a pragma,
// so the macros Eigen reads to pick its packets are set by hand here.
#include "gemm_isa_prelude.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DLNODE_GEMM_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#ifndef __AVX2__
// NOLINTBEGIN(bugprone-reserved-identifier): the macros GCC defines for -mavx2 -mfma
#define __SSE3__ 1
#define __SSSE3__ 1
#define __SSE4_1__ 1
#define __SSE4_2__ 1
#define __AVX__ 1
#define __AVX2__ 1
#define __FMA__ 1
// NOLINTEND(bugprone-reserved-identifier)
#endif

#define Eigen dlnode_eigen_avx2
#include <Eigen/Core>

#if !defined(EIGEN_VECTORIZE_AVX2) || !defined(EIGEN_VECTORIZE_FMA)
#error "Eigen did not take the AVX2 and FMA packets"
#endif

namespace dlnode {
namespace compute {
namespace gemm {
namespace avx2 {
#define DLNODE_GEMM_NS avx2
#include "gemm_driver.h"
#undef DLNODE_GEMM_NS

ComputeResult F32(const Operands<float>& op) { return driver::Run(op); }
ComputeResult F64(const Operands<double>& op) { return driver::Run(op); }

}  // namespace avx2
}  // namespace gemm
}  // namespace compute
}  // namespace dlnode

#pragma GCC pop_options

namespace dlnode {
namespace compute {
namespace gemm {
extern const Isa kAvx2Isa = {"avx2+fma", avx2::F32, avx2::F64};
}  // namespace gemm
}  // namespace compute
}  // namespace dlnode
#endif
