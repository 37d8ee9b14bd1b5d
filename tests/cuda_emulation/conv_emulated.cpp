// impl/cuda/conv.cu built for the CPU (runtime.hpp), into the same emulated
// plugin as elementwise_emulated.cpp.
#define KONFORM_CUDA_EMULATION 1
#include "impl/cuda/conv.cu"  // NOLINT(bugprone-suspicious-include)
