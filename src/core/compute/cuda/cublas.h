// matmul on a CUDA device through cuBLAS, which is not linked: the shared
// library is opened at the first CUDA matmul (dlopen), so that the addon
// loads, and does all else, on machines without it. A missing library or
// entry point is ComputeFailure::kCudaUnavailable with a message naming every
// file tried and what was missing; a failing call is kCuda with the cuBLAS
// status name in `detail`.
//
// The product is cublasGemmStridedBatchedEx calls (cuBLAS is column-major:
// a row-major C is computed as C^T = B^T A^T): float32 and float64 in their
// type, float16 and bfloat16 with float32 compute (rounded once into C, as
// the host does). One call per index of the batch dims that do not merge into
// one stride. The bias is written into C first (the device copy kernel,
// broadcast) and the product added (beta = 1).
//
// The loader and the planner are plain C++ (tested on the host with a fake
// library, test/cpp/cublas_test.cc); only CublasMatmul's device work needs
// a CUDA build and a GPU.
#ifndef DLPACK_NODE_CORE_COMPUTE_CUDA_CUBLAS_H_
#define DLPACK_NODE_CORE_COMPUTE_CUDA_CUBLAS_H_

#include <cstdint>
#include <functional>

#include "../compute_result.h"
#include "../matmul.h"

namespace dlnode {
namespace compute {
namespace cuda {

// cuBLAS's ABI as used here (cublas_api.h and library_types.h of CUDA 11 to
// 13; NVIDIA's cuBLAS documentation gives the values).
namespace cublas {
constexpr int kOpN = 0;
constexpr int kOpT = 1;
constexpr int kR32F = 0;          // cudaDataType CUDA_R_32F
constexpr int kR64F = 1;          // CUDA_R_64F
constexpr int kR16F = 2;          // CUDA_R_16F
constexpr int kR16BF = 14;        // CUDA_R_16BF
constexpr int kCompute32F = 68;   // cublasComputeType_t CUBLAS_COMPUTE_32F
constexpr int kCompute64F = 70;   // CUBLAS_COMPUTE_64F
constexpr int kGemmDefault = -1;  // CUBLAS_GEMM_DEFAULT
constexpr int kSuccess = 0;       // CUBLAS_STATUS_SUCCESS
}  // namespace cublas

using CublasGemmEx = int (*)(void* handle, int transa, int transb, int m, int n, int k,
                             const void* alpha, const void* a, int a_type, int lda,
                             long long stride_a, const void* b, int b_type, int ldb,     // NOLINT
                             long long stride_b, const void* beta, void* c, int c_type,  // NOLINT
                             int ldc, long long stride_c, int batch, int compute,        // NOLINT
                             int algo);

// The entry points this file calls.
struct CublasApi {
  int (*create)(void** handle) = nullptr;                   // cublasCreate_v2
  int (*destroy)(void* handle) = nullptr;                   // cublasDestroy_v2
  int (*set_stream)(void* handle, void* stream) = nullptr;  // cublasSetStream_v2
  CublasGemmEx gemm = nullptr;                              // cublasGemmStridedBatchedEx
  const char* (*status_name)(int status) = nullptr;         // cublasGetStatusName (optional)
};

// How a shared library is opened: dlopen/dlsym, or a test's fake.
struct Loader {
  void* (*open)(const char* file);
  void* (*symbol)(void* library, const char* name);
};
Loader SystemLoader();

// The files tried, in order (the first that opens is used).
constexpr const char* kCublasFiles[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                                        "libcublas.so"};

// Opens cuBLAS with `loader` and fills `api`.
ComputeResult LoadCublas(const Loader& loader, CublasApi* api);

// One cublasGemmStridedBatchedEx call: C = op(A) op(B) (+ C when
// accumulate), column-major, `batch` matrices `stride_*` elements apart.
struct GemmCall {
  int transa = cublas::kOpN;
  int transb = cublas::kOpN;
  int64_t m = 0, n = 0, k = 0;
  const char* a = nullptr;
  int64_t lda = 0, stride_a = 0;
  const char* b = nullptr;
  int64_t ldb = 0, stride_b = 0;
  char* c = nullptr;
  int64_t ldc = 0, stride_c = 0;
  int64_t batch = 1;
  int type = cublas::kR32F;  // A, B and C
  int compute = cublas::kCompute32F;
  bool accumulate = false;
};

// The calls computing args (device operands the BLAS can take as they are:
// see matmul.cc's rules), passed to emit in order. False, emitting nothing,
// when an operand needs a copy first or a size passes cuBLAS's int.
bool PlanGemmCalls(const MatmulArgs& args, bool accumulate,
                   const std::function<void(const GemmCall&)>& emit);

// Runs one call on handle (whose stream is set).
ComputeResult RunGemmCall(const CublasApi& api, void* handle, const GemmCall& call);

// matmul.h's Matmul on args.place (a CUDA device).
ComputeResult CublasMatmul(const MatmulArgs& args);

}  // namespace cuda
}  // namespace compute
}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_COMPUTE_CUDA_CUBLAS_H_
