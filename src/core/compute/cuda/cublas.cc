#include "cublas.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#ifdef DLPACK_WITH_CUDA
#include "../../cuda_kernels.h"
#include "../../cuda_runtime.h"
#include "../../device_copy.h"
#endif

namespace dlnode {
namespace compute {
namespace cuda {
namespace {

void* SystemOpen(const char* file) { return dlopen(file, RTLD_NOW | RTLD_LOCAL); }
void* SystemSymbol(void* library, const char* name) { return dlsym(library, name); }

// A matrix as cuBLAS takes it: column-major or row-major, with a leading
// dimension of at least its rows (columns); false when it has neither.
struct Matrix {
  bool row_major = false;
  int64_t ld = 0;
};

bool MatrixOf(int64_t rows, int64_t cols, int64_t rs, int64_t cs, Matrix* out) {
  // A size-1 dim's stride is free: one column or one row is either order.
  const bool row_major = (cs == 1 || cols == 1) && rs >= std::max<int64_t>(cols, 1);
  const bool col_major = (rs == 1 || rows == 1) && cs >= std::max<int64_t>(rows, 1);
  if (cols == 1 && rs == 1) {
    *out = {false, std::max<int64_t>(rows, 1)};
  } else if (rows == 1 && cs == 1) {
    *out = {true, std::max<int64_t>(cols, 1)};
  } else if (row_major || col_major) {
    *out = {row_major, row_major ? rs : cs};
  } else {
    return false;
  }
  return true;
}

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

Loader SystemLoader() { return Loader{SystemOpen, SystemSymbol}; }

ComputeResult LoadCublas(const Loader& loader, CublasApi* api) {
  void* library = nullptr;
  const char* opened = nullptr;
  std::string tried;
  for (const char* file : kCublasFiles) {
    library = loader.open(file);
    if (library != nullptr) {
      opened = file;
      break;
    }
    tried += tried.empty() ? file : std::string(", ") + file;
  }
  if (library == nullptr) {
    return Failed(ComputeFailure::kCudaUnavailable,
                  "Expected cuBLAS for matmul on a CUDA device, received none: no " + tried +
                      " could be opened (install the CUDA toolkit's cuBLAS, or put its directory "
                      "on LD_LIBRARY_PATH)");
  }
  struct Entry {
    const char* name;
    void** slot;
    bool required;
  };
  CublasApi found;
  const Entry entries[] = {
      {"cublasCreate_v2", reinterpret_cast<void**>(&found.create), true},
      {"cublasDestroy_v2", reinterpret_cast<void**>(&found.destroy), true},
      {"cublasSetStream_v2", reinterpret_cast<void**>(&found.set_stream), true},
      {"cublasGemmStridedBatchedEx", reinterpret_cast<void**>(&found.gemm), true},
      {"cublasGetStatusName", reinterpret_cast<void**>(&found.status_name), false},
  };
  for (const Entry& e : entries) {
    *e.slot = loader.symbol(library, e.name);
    if (*e.slot == nullptr && e.required) {
      return Failed(ComputeFailure::kCudaUnavailable,
                    std::string("Expected ") + opened + " to export " + e.name +
                        ", received a library without it (cuBLAS 11 or newer is needed)");
    }
  }
  *api = found;
  return {};
}

bool PlanGemmCalls(const MatmulArgs& args, bool accumulate,
                   const std::function<void(const GemmCall&)>& emit) {
  const View& a = args.a;
  const View& b = args.b;
  const View& c = args.out;
  const int r = c.ndim - 2;
  const int64_t m = c.shape[r];
  const int64_t n = c.shape[r + 1];
  const int64_t k = a.shape[r + 1];
  Matrix ma, mb, mc;
  if (!MatrixOf(m, k, a.strides[r], a.strides[r + 1], &ma) ||
      !MatrixOf(k, n, b.strides[r], b.strides[r + 1], &mb) ||
      !MatrixOf(m, n, c.strides[r], c.strides[r + 1], &mc)) {
    return false;
  }
  // Batch dims merged where every operand steps over two as one; the last
  // merged dim is cuBLAS's batch, the others a loop of calls.
  int64_t shape[kMaxDims];
  int64_t sa[kMaxDims], sb[kMaxDims], sc[kMaxDims];
  int dims = 0;
  for (int d = 0; d < r; ++d) {
    if (c.shape[d] == 1) continue;
    if (dims > 0 && sa[dims - 1] == a.strides[d] * c.shape[d] &&
        sb[dims - 1] == b.strides[d] * c.shape[d] && sc[dims - 1] == c.strides[d] * c.shape[d]) {
      shape[dims - 1] *= c.shape[d];
      sa[dims - 1] = a.strides[d];
      sb[dims - 1] = b.strides[d];
      sc[dims - 1] = c.strides[d];
      continue;
    }
    shape[dims] = c.shape[d];
    sa[dims] = a.strides[d];
    sb[dims] = b.strides[d];
    sc[dims] = c.strides[d];
    ++dims;
  }
  const int64_t batch = dims == 0 ? 1 : shape[dims - 1];
  if (dims > 0 && (sc[dims - 1] == 0 || sa[dims - 1] < 0 || sb[dims - 1] < 0 || sc[dims - 1] < 0)) {
    return false;
  }
  if (!FitsInt(m) || !FitsInt(n) || !FitsInt(k) || !FitsInt(batch) || !FitsInt(ma.ld) ||
      !FitsInt(mb.ld) || !FitsInt(mc.ld)) {
    return false;
  }
  GemmCall call;
  switch (c.type) {
    case Scalar::kFloat64:
      call.type = cublas::kR64F;
      call.compute = cublas::kCompute64F;
      break;
    case Scalar::kFloat16:
      call.type = cublas::kR16F;
      break;
    case Scalar::kBfloat16:
      call.type = cublas::kR16BF;
      break;
    default:
      break;
  }
  call.k = k;
  call.batch = batch;
  call.accumulate = accumulate;
  const int64_t item = c.item();
  // cuBLAS computes column-major C = op(X) op(Y): for a column-major C, X = A
  // and Y = B; for a row-major C, C^T = B^T A^T. A row-major operand seen
  // column-major is its transpose.
  const bool c_row = mc.row_major;
  const Matrix& x = c_row ? mb : ma;
  const Matrix& y = c_row ? ma : mb;
  call.m = c_row ? n : m;
  call.n = c_row ? m : n;
  call.transa = x.row_major != c_row ? cublas::kOpT : cublas::kOpN;
  call.transb = y.row_major != c_row ? cublas::kOpT : cublas::kOpN;
  call.lda = x.ld;
  call.ldb = y.ld;
  call.ldc = mc.ld;
  call.stride_a = dims == 0 ? 0 : (c_row ? sb : sa)[dims - 1];
  call.stride_b = dims == 0 ? 0 : (c_row ? sa : sb)[dims - 1];
  call.stride_c = dims == 0 ? 0 : sc[dims - 1];
  int64_t outer = 1;
  for (int d = 0; d + 1 < dims; ++d) outer *= shape[d];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rest = o;
    int64_t oa = 0, ob = 0, oc = 0;
    for (int d = dims - 2; d >= 0; --d) {
      const int64_t at = rest % shape[d];
      rest /= shape[d];
      oa += at * sa[d];
      ob += at * sb[d];
      oc += at * sc[d];
    }
    const char* pa = a.first + oa * item;
    const char* pb = b.first + ob * item;
    call.a = c_row ? pb : pa;
    call.b = c_row ? pa : pb;
    call.c = c.first + oc * item;
    emit(call);
  }
  return true;
}

ComputeResult RunGemmCall(const CublasApi& api, void* handle, const GemmCall& call) {
  const float one_f = 1.0F;
  const float beta_f = call.accumulate ? 1.0F : 0.0F;
  const double one_d = 1.0;
  const double beta_d = call.accumulate ? 1.0 : 0.0;
  const bool f64 = call.compute == cublas::kCompute64F;
  const int status = api.gemm(
      handle, call.transa, call.transb, static_cast<int>(call.m), static_cast<int>(call.n),
      static_cast<int>(call.k), f64 ? static_cast<const void*>(&one_d) : &one_f, call.a, call.type,
      static_cast<int>(call.lda), call.stride_a, call.b, call.type, static_cast<int>(call.ldb),
      call.stride_b, f64 ? static_cast<const void*>(&beta_d) : &beta_f, call.c, call.type,
      static_cast<int>(call.ldc), call.stride_c, static_cast<int>(call.batch), call.compute,
      cublas::kGemmDefault);
  if (status == cublas::kSuccess) return {};
  const char* name = api.status_name != nullptr ? api.status_name(status) : nullptr;
  const std::string detail =
      name != nullptr ? std::string(name) : "CUBLAS_STATUS_" + std::to_string(status);
  return Failed(ComputeFailure::kCuda, "cublasGemmStridedBatchedEx failed: " + detail, detail);
}

ComputeResult CublasMatmul(const MatmulArgs& args) {
#ifdef DLPACK_WITH_CUDA
  // Loaded once a process; a failed load is kept and reported every time.
  static std::once_flag once;
  static CublasApi api;
  static ComputeResult loaded;
  std::call_once(once, [] { loaded = LoadCublas(SystemLoader(), &api); });
  if (!loaded.ok()) return loaded;
  // One handle per device, made on first use and kept for the process (its
  // release at exit could run after the driver has gone). The mutex also
  // keeps a handle's stream from changing between setting it and the calls.
  static std::mutex mutex;
  static std::vector<void*> handles;
  const int device = args.place.device;
  const dlnode::cuda::DeviceGuard guard(device);
  if (!guard.status().ok) {
    const dlnode::cuda::CudaResult r =
        dlnode::cuda::ResultOf(guard.status(), "cudaSetDevice for matmul");
    return Failed(r.failure == dlnode::cuda::CudaFailure::kUnavailable
                      ? ComputeFailure::kCudaUnavailable
                      : ComputeFailure::kCuda,
                  r.message, r.detail);
  }
  const View& c = args.out;
  const ByteRange out_bytes = c.bytes();
  if (Overlap(out_bytes, args.a.bytes()) || Overlap(out_bytes, args.b.bytes())) {
    return Failed(ComputeFailure::kUnsupported,
                  "Expected a CUDA matmul's out apart from its inputs, received an overlap");
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
  if (handles[device] == nullptr) {
    void* handle = nullptr;
    const int status = api.create(&handle);
    if (status != cublas::kSuccess) {
      return Failed(ComputeFailure::kCuda,
                    "cublasCreate failed: CUBLAS_STATUS_" + std::to_string(status));
    }
    handles[device] = handle;
  }
  void* handle = handles[device];
  // The stream convention's 1 and 2 are cudaStreamLegacy and
  // cudaStreamPerThread themselves, so the value is the cudaStream_t.
  if (api.set_stream(handle, reinterpret_cast<void*>(args.place.stream)) != cublas::kSuccess) {
    return Failed(ComputeFailure::kCuda, "cublasSetStream failed");
  }
  bool bias = false;
  if (args.bias != nullptr) {
    int64_t bias_strides[kMaxDims] = {};
    bias_strides[c.ndim - 1] = args.bias->strides[0];
    const CopyPlan plan = MakeCopyPlan(c.ndim, c.shape, c.strides, bias_strides);
    const dlnode::cuda::Status s = dlnode::cuda::DeviceStridedCopy(
        device, plan, ScalarSize(c.type), c.first, args.bias->first, args.place.stream);
    if (!s.ok) {
      const dlnode::cuda::CudaResult r = dlnode::cuda::ResultOf(s, "the bias of matmul");
      return Failed(ComputeFailure::kCuda, r.message, r.detail);
    }
    bias = true;
  }
  ComputeResult result;
  const bool planned = PlanGemmCalls(args, bias, [&](const GemmCall& call) {
    if (result.ok()) result = RunGemmCall(api, handle, call);
  });
  if (!planned) {
    return Failed(ComputeFailure::kUnsupported,
                  "Expected CUDA matmul operands with a unit stride in one matrix dim and sizes "
                  "below 2^31, received others (their device copy comes with the op's wiring)");
  }
  return result;
#else
  (void)args;
  return Failed(ComputeFailure::kCudaUnavailable,
                "Expected a build with CUDA for matmul on a CUDA device, received one without");
#endif
}

}  // namespace cuda
}  // namespace compute
}  // namespace dlnode
