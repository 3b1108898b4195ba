// What gemm_avx2.cc and gemm_base.cc include before Eigen: every standard
// header <Eigen/Core> includes, so that the standard library's inline
// functions and templates are defined (and compiled) for the baseline
// instruction set even in the unit whose Eigen code is compiled for AVX2,
// and Eigen's settings for the engine: no OpenMP (the driver splits work over
// the host pool), no asserts in the kernels.
#ifndef DLPACK_NODE_CORE_COMPUTE_GEMM_ISA_PRELUDE_H_
#define DLPACK_NODE_CORE_COMPUTE_GEMM_ISA_PRELUDE_H_

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "../parallel.h"
#include "gemm.h"
#include "scratch.h"

#define EIGEN_DONT_PARALLELIZE
#define EIGEN_NO_DEBUG
#define EIGEN_MPL2_ONLY

#endif  // DLPACK_NODE_CORE_COMPUTE_GEMM_ISA_PRELUDE_H_
