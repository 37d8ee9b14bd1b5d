// KONFORM_HD marks a function of impl/common that both the host libraries
// (scalar, simd) and libtl_cuda's device code call: __host__ __device__ under
// nvcc, nothing for a host compiler (tests/cuda_emulation included).
#pragma once

#ifdef __CUDACC__
#define KONFORM_HD __host__ __device__
#else
#define KONFORM_HD
#endif
