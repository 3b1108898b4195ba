#include "gemm.h"

namespace dlnode {
namespace compute {
namespace gemm {

extern const Isa kBaseIsa;  // gemm_base.cc
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
extern const Isa kAvx2Isa;  // gemm_avx2.cc
#define DLNODE_HAS_AVX2_GEMM 1
#endif

#if defined(DLNODE_HAS_AVX2_GEMM)
namespace {

bool CpuHasAvx2Fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

}  // namespace
#endif

const Isa& Kernels() {
  static const Isa* const chosen = [] {
#if defined(DLNODE_HAS_AVX2_GEMM)
    if (CpuHasAvx2Fma()) return &kAvx2Isa;
#endif
    return &kBaseIsa;
  }();
  return *chosen;
}

int AvailableIsas(const Isa** out, int most) {
  int n = 0;
  if (n < most) out[n++] = &kBaseIsa;
#if defined(DLNODE_HAS_AVX2_GEMM)
  if (n < most && CpuHasAvx2Fma()) out[n++] = &kAvx2Isa;
#endif
  return n;
}

}  // namespace gemm
}  // namespace compute
}  // namespace dlnode
