// The CUDA runtime wrapper where there is no device (CI here): every call
// answers "unavailable" with a name, and nothing crashes. On a GPU machine
// the same calls must succeed.
#include "cuda_runtime.h"

#include <gtest/gtest.h>

namespace {

namespace cuda = dlnode::cuda;

TEST(CudaRuntime, DeviceCountAnswersEitherWay) {
  int count = -1;
  const cuda::Status s = cuda::DeviceCount(&count);
  if (s.ok) {
    EXPECT_GE(count, 1) << "a driver that reports success must report a device";
  } else {
    EXPECT_EQ(count, 0);
    EXPECT_TRUE(s.unavailable) << s.name;
    EXPECT_FALSE(s.name.empty());
    EXPECT_FALSE(s.message.empty());
  }
}

TEST(CudaRuntime, CallsWithoutADeviceAreUnavailableNotFatal) {
  int count = 0;
  if (cuda::DeviceCount(&count).ok) GTEST_SKIP() << "a CUDA device is present";
  for (const cuda::Status& s : {cuda::Synchronize(0), cuda::MakeStreamWait(0, 2)}) {
    EXPECT_FALSE(s.ok);
    EXPECT_TRUE(s.unavailable) << s.name;
  }
  uintptr_t stream = 0;
  EXPECT_FALSE(cuda::StreamCreate(0, &stream).ok);
  cuda::DeviceGuard guard(0);
  EXPECT_FALSE(guard.status().ok);
  // The sticky error is cleared: the next query answers the same way.
  EXPECT_EQ(cuda::DeviceCount(&count).name, cuda::DeviceCount(&count).name);
}

// ResultOf is the one wording of a failed call, and its row picks the code.
TEST(CudaRuntime, AStatusBecomesAResultWithItsCodeAndWording) {
  EXPECT_TRUE(cuda::ResultOf(cuda::Status{}, "cudaDeviceSynchronize").ok());
  cuda::Status failed{false, false, "cudaErrorMemoryAllocation", "out of memory"};
  const cuda::CudaResult error = cuda::ResultOf(failed, "cudaMalloc of 8 bytes");
  EXPECT_EQ(error.failure, cuda::CudaFailure::kError);
  EXPECT_STREQ(error.code(), "ERR_DLPACK_CUDA");
  EXPECT_EQ(error.message,
            "cudaMalloc of 8 bytes failed: cudaErrorMemoryAllocation (out of memory)");
  EXPECT_EQ(error.detail, "cudaErrorMemoryAllocation");
  failed.unavailable = true;
  const cuda::CudaResult unavailable = cuda::ResultOf(failed, "cudaMalloc");
  EXPECT_EQ(unavailable.failure, cuda::CudaFailure::kUnavailable);
  EXPECT_STREQ(unavailable.code(), "ERR_DLPACK_CUDA_UNAVAILABLE");
}

TEST(CudaRuntime, NotShuttingDownWhileRunning) { EXPECT_FALSE(cuda::ShuttingDown()); }

TEST(CudaRuntime, CompiledMatchesTheBuild) {
#ifdef DLPACK_WITH_CUDA
  EXPECT_TRUE(cuda::Compiled());
#else
  EXPECT_FALSE(cuda::Compiled());
  int count = 1;
  EXPECT_EQ(cuda::DeviceCount(&count).name, "cudaErrorNotCompiled");
#endif
}

}  // namespace
