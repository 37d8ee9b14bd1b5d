// tl_backend_unavailable (tinyllm/backend.h) for libtl_cuda: NULL only when a
// device is there and a kernel of this build has run on it and written its
// answer back. Any CUDA error means "cannot run here", with the error's name.
#include <cuda_runtime.h>

#include <cstdio>

#include "tinyllm/backend.h"

namespace {

char reason[320];

__global__ void probe_kernel(int* flag) { *flag = 42; }

// Fills `reason` with "WHAT: cudaErrorX (its text)" and clears the error
// state (a sticky error stays; nothing runs after it anyway).
const char* failed(const char* what, cudaError_t e) {
  cudaGetLastError();
  std::snprintf(reason, sizeof reason, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return reason;
}

// The compute capability of the current device, as "sm_XY", or "".
void device_arch(char* out, size_t size) {
  int device = 0, major = 0, minor = 0;
  out[0] = '\0';
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  std::snprintf(out, size, "sm_%d%d", major, minor);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* tl_backend_unavailable(void) {
  int count = 0;
  // No driver: cudaErrorInsufficientDriver; a driver and no GPU: cudaErrorNoDevice.
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return failed("no CUDA device", e);
  if (count <= 0) return "no CUDA device: cudaGetDeviceCount found none";
  int* flag = nullptr;
  int host = 0;
  if ((e = cudaMalloc(reinterpret_cast<void**>(&flag), sizeof(int))) != cudaSuccess)
    return failed("the CUDA device cannot be used", e);
  probe_kernel<<<1, 1>>>(flag);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(flag);
  if (e != cudaSuccess) {
    char arch[32], what[128];
    device_arch(arch, sizeof arch);
    std::snprintf(what, sizeof what, "the CUDA device%s%s cannot run this build's kernels (built for %s)",
                  arch[0] ? " " : "", arch, KONFORM_CUDA_ARCHITECTURES);
    return failed(what, e);
  }
  if (host != 42) return "the CUDA device ran the probe kernel but did not write its answer";
  return nullptr;
}
