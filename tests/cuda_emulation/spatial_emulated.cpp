// impl/cuda/spatial.cu built for the CPU (runtime.hpp), into the same
// emulated plugin as elementwise_emulated.cpp.
#define KONFORM_CUDA_EMULATION 1
#include "impl/cuda/spatial.cu"  // NOLINT(bugprone-suspicious-include)
