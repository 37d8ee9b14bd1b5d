// libtl_cuda's source, host code and kernels alike, built for the CPU
// (runtime.hpp): a plugin konform checks like any other, so the library's
// logic is checked on machines without a GPU, or without nvcc.
#define KONFORM_CUDA_EMULATION 1
#include "impl/cuda/elementwise.cu"  // NOLINT(bugprone-suspicious-include)
