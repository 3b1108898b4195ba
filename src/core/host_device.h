// The two macros of code that nvcc compiles for the host and the device alike
// (the copy kernels' walks, device_copy.h; the elementwise ops' element
// functions, compute/elementwise_math.h), in a header of their own so that
// host code that shares those functions includes no CUDA copy code for them.
#ifndef DLPACK_NODE_CORE_HOST_DEVICE_H_
#define DLPACK_NODE_CORE_HOST_DEVICE_H_

// A function for both sides: __host__ __device__ under nvcc, inline otherwise.
#if defined(__CUDACC__)
#define DLNODE_HD __host__ __device__ __forceinline__
#else
#define DLNODE_HD inline
#endif

// A loop nvcc keeps rolled (the kernels' grid-stride loops: unrolled copies
// of a loop with a runtime switch inside cost binary size, not speed, in a
// memory-bound kernel); nothing on the host.
#if defined(__CUDA_ARCH__)
#define DLNODE_NO_UNROLL _Pragma("unroll 1")
#else
#define DLNODE_NO_UNROLL
#endif

#endif  // DLPACK_NODE_CORE_HOST_DEVICE_H_
