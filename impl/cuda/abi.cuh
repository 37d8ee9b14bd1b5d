// What every .cu file of libtl_cuda starts with: the CUDA runtime and its
// buffers, or their CPU stand-ins when tests/cuda_emulation compiles the same
// file for the host; the host ABI's staging over the device-pointer one; and
// the mark that exports a C function (exports.map then keeps exactly the
// ABI's names).
#pragma once

#ifdef KONFORM_CUDA_EMULATION  // tests/cuda_emulation: this code on the CPU, without a GPU
#include "tests/cuda_emulation/runtime.hpp"
#else
#include "impl/cuda/device_buffer.cuh"
#endif
#include "impl/cuda/host_call.cuh"
#include "tinyllm/cuda/stream.h"

#define TL_CUDA_EXPORT extern "C" __attribute__((visibility("default")))
