// impl/cuda/attention.cu built for the CPU (runtime.hpp), into the same
// emulated plugin as elementwise_emulated.cpp.
#define KONFORM_CUDA_EMULATION 1
#include "impl/cuda/attention.cu"  // NOLINT(bugprone-suspicious-include)
