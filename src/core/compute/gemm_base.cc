// The GEMM for the baseline instruction set of the build (SSE2 on x86-64,
// NEON on arm64): Eigen compiled with the unit's own flags, in a namespace of
// its own (gemm_driver.h says why).
#include "gemm_isa_prelude.h"

#define Eigen dlnode_eigen_base
#include <Eigen/Core>

namespace dlnode {
namespace compute {
namespace gemm {
namespace base {
#define DLNODE_GEMM_NS base
#include "gemm_driver.h"
#undef DLNODE_GEMM_NS

ComputeResult F32(const Operands<float>& op) { return driver::Run(op); }
ComputeResult F64(const Operands<double>& op) { return driver::Run(op); }

}  // namespace base

#if defined(__x86_64__)
extern const Isa kBaseIsa = {"sse2", base::F32, base::F64};
#elif defined(__aarch64__)
extern const Isa kBaseIsa = {"neon", base::F32, base::F64};
#else
extern const Isa kBaseIsa = {"generic", base::F32, base::F64};
#endif

}  // namespace gemm
}  // namespace compute
}  // namespace dlnode
