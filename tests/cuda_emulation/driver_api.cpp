// The CUDA driver API functions konform calls for a device backend
// (harness/konform/device.hpp), on the CPU: "device" memory is host memory
// (256-byte aligned, as cuMemAlloc's), a stream a record of what its work
// did. Linked into the emulated libtl_cuda and the hostile device plugins,
// which then export these names, so that `konform check --backend LIB:device`
// runs where there is no GPU. The emulated kernels run while they are
// enqueued, so a stream is done when the call returns, unless a test hook
// (driver_api.h) says otherwise.
#include "tests/cuda_emulation/driver_api.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace {

constexpr int kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2;

struct Stream {
  int error = kSuccess;  // what cuStreamQuery answers
};

std::vector<std::pair<void (*)(void*), void*>> g_later;

}  // namespace

#define KONFORM_DRIVER_EXPORT extern "C" __attribute__((visibility("default")))

KONFORM_DRIVER_EXPORT int cuInit(unsigned) { return kSuccess; }

KONFORM_DRIVER_EXPORT int cuDeviceGet(int* device, int ordinal) {
  if (device == nullptr || ordinal != 0) return kInvalidValue;
  *device = 0;
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuDevicePrimaryCtxRetain(void** context, int) {
  static int the_context;
  *context = &the_context;
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuCtxSetCurrent(void*) { return kSuccess; }

KONFORM_DRIVER_EXPORT int cuMemAlloc_v2(uint64_t* address, size_t bytes) {
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (p == nullptr) return kOutOfMemory;
  *address = reinterpret_cast<uint64_t>(p);
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuMemFree_v2(uint64_t address) {
  std::free(reinterpret_cast<void*>(address));
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuMemcpyHtoD_v2(uint64_t to, const void* from, size_t bytes) {
  if (bytes > 0) std::memcpy(reinterpret_cast<void*>(to), from, bytes);
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuMemcpyDtoH_v2(void* to, uint64_t from, size_t bytes) {
  if (bytes > 0) std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuStreamCreate(void** stream, unsigned) {
  for (const auto& [work, arg] : std::exchange(g_later, {})) work(arg);
  *stream = new Stream;
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuStreamQuery(void* stream) { return static_cast<Stream*>(stream)->error; }

KONFORM_DRIVER_EXPORT int cuStreamDestroy_v2(void* stream) {
  delete static_cast<Stream*>(stream);
  return kSuccess;
}

KONFORM_DRIVER_EXPORT int cuGetErrorName(int error, const char** name) {
  switch (error) {
    case kSuccess: *name = "CUDA_SUCCESS"; return kSuccess;
    case kInvalidValue: *name = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
    case kOutOfMemory: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return kSuccess;
    case 600: *name = "CUDA_ERROR_NOT_READY"; return kSuccess;
    case 700: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return kSuccess;
    default: *name = nullptr; return kInvalidValue;
  }
}

KONFORM_DRIVER_EXPORT void konform_emulated_stream_fail(void* stream, int error) {
  static_cast<Stream*>(stream)->error = error;
}

KONFORM_DRIVER_EXPORT void konform_emulated_run_later(void (*work)(void*), void* arg) {
  g_later.emplace_back(work, arg);
}
