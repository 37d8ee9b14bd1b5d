// Calls of device-pointer kernels (tinyllm/cuda/*.h): konform copies each
// tensor of a call into device memory between canary zones, hands the
// kernel the device copies and a stream of its own, waits for the stream,
// and copies everything back, canaries included, so that the checks of a
// host call (poisoned outputs, unchanged inputs, determinism) read the
// device's results. Memory and streams come from the CUDA driver API: the
// plugin's own (the CPU emulation exports one) or libcuda.so.1. Device work
// happens only in the children that run kernels (docs/isolation.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace konform {

// The driver API functions konform calls, as libcuda.so.1 exports them.
struct DeviceRuntime {
  using Result = int;  // CUresult
  Result (*init)(unsigned flags) = nullptr;
  Result (*device_get)(int* device, int ordinal) = nullptr;
  Result (*primary_ctx_retain)(void** context, int device) = nullptr;
  Result (*ctx_set_current)(void* context) = nullptr;
  Result (*mem_alloc)(uint64_t* address, size_t bytes) = nullptr;
  Result (*mem_free)(uint64_t address) = nullptr;
  Result (*copy_to_device)(uint64_t to, const void* from, size_t bytes) = nullptr;
  Result (*copy_to_host)(void* to, uint64_t from, size_t bytes) = nullptr;
  Result (*stream_create)(void** stream, unsigned flags) = nullptr;
  Result (*stream_query)(void* stream) = nullptr;
  Result (*stream_destroy)(void* stream) = nullptr;
  Result (*error_name)(Result error, const char** name) = nullptr;
  std::string source;  // "libcuda.so.1", or the plugin's path where it exports them
};

// The driver API for a plugin opened as `handle`: its own (or a library it
// links) when it exports cuMemAlloc_v2, else libcuda.so.1. nullptr when
// there is none, with the reason in *why (the backend is then unavailable).
std::shared_ptr<const DeviceRuntime> load_device_runtime(void* handle, const std::string& path, std::string* why);

// Bytes of canaries on each side of a tensor's device copy.
inline constexpr size_t kDeviceCanaryBytes = 4096;

// The device side of one call: a stream, and a device copy of each tensor.
class DeviceCall {
 public:
  explicit DeviceCall(const DeviceRuntime& runtime);
  ~DeviceCall();
  DeviceCall(const DeviceCall&) = delete;
  DeviceCall& operator=(const DeviceCall&) = delete;

  // Copies `bytes` at host address `data` (an input, or a poisoned output)
  // to the device, starting `misalign` bytes past a 256-byte boundary.
  void mirror(const std::string& arg, uint8_t* data, size_t bytes, size_t misalign);
  // The device address for the host address of a mirrored tensor, or of a
  // point inside one; marks that tensor as handed to the kernel.
  void* device_address(void* host);
  void* stream() const { return stream_; }
  // Waits until the stream is done (the case's deadline, which the parent
  // enforces, bounds the wait); a device error ends the child as a finding.
  void wait();
  // Copies every tensor handed to the kernel back over its host buffer;
  // returns the arguments whose canaries on the device were written.
  std::vector<std::string> copy_back();
  // Copies `bytes` from device address `from` to host memory.
  void read(void* host, const void* from, size_t bytes);

 private:
  struct Mirror {
    std::string arg;
    uint8_t* host = nullptr;
    size_t bytes = 0;
    uint64_t base = 0;  // the allocation: canaries, data at base + front
    size_t front = 0;
    bool handed = false;
  };
  void check(DeviceRuntime::Result r, const char* what) const;

  const DeviceRuntime& rt_;
  void* stream_ = nullptr;
  std::vector<Mirror> mirrors_;
};

}  // namespace konform
