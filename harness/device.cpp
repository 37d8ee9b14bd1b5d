#include "konform/device.hpp"
#include "konform/kernel_fn.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "konform/isolate.hpp"

namespace konform {

namespace {

constexpr int kNotReady = 600;  // CUDA_ERROR_NOT_READY: the stream is still working
constexpr uint8_t kDeviceCanary = 0xC5;

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

// Binds every function from `lib`; the first missing one's name, or "".
std::string bind_all(void* lib, DeviceRuntime& rt) {
  const std::pair<const char*, bool> bound[] = {
      {"cuInit", bind(lib, "cuInit", rt.init)},
      {"cuDeviceGet", bind(lib, "cuDeviceGet", rt.device_get)},
      {"cuDevicePrimaryCtxRetain", bind(lib, "cuDevicePrimaryCtxRetain", rt.primary_ctx_retain)},
      {"cuCtxSetCurrent", bind(lib, "cuCtxSetCurrent", rt.ctx_set_current)},
      {"cuMemAlloc_v2", bind(lib, "cuMemAlloc_v2", rt.mem_alloc)},
      {"cuMemFree_v2", bind(lib, "cuMemFree_v2", rt.mem_free)},
      {"cuMemcpyHtoD_v2", bind(lib, "cuMemcpyHtoD_v2", rt.copy_to_device)},
      {"cuMemcpyDtoH_v2", bind(lib, "cuMemcpyDtoH_v2", rt.copy_to_host)},
      {"cuStreamCreate", bind(lib, "cuStreamCreate", rt.stream_create)},
      {"cuStreamQuery", bind(lib, "cuStreamQuery", rt.stream_query)},
      {"cuStreamDestroy_v2", bind(lib, "cuStreamDestroy_v2", rt.stream_destroy)},
      {"cuGetErrorName", bind(lib, "cuGetErrorName", rt.error_name)}};
  for (const auto& [name, ok] : bound)
    if (!ok) return name;
  return "";
}

// The context every call of this process runs in: the device's primary
// context, the one the CUDA runtime inside a plugin uses, so that memory and
// streams pass between them. Made in each child on its first call (a
// context does not survive fork).
void* g_context = nullptr;
pid_t g_context_pid = 0;

}  // namespace

std::shared_ptr<const DeviceRuntime> load_device_runtime(void* handle, const std::string& path, std::string* why) {
  auto rt = std::make_shared<DeviceRuntime>();
  if (dlsym(handle, "cuMemAlloc_v2") != nullptr) {
    rt->source = path;
    if (const std::string missing = bind_all(handle, *rt); !missing.empty()) {
      *why = path + " exports cuMemAlloc_v2 but not " + missing + " of the CUDA driver API";
      return nullptr;
    }
    return rt;
  }
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    const char* e = dlerror();
    *why = "no CUDA driver to allocate device memory with: libcuda.so.1 did not load (" +
           std::string(e == nullptr ? "unknown reason" : e) + ")";
    return nullptr;
  }
  rt->source = "libcuda.so.1";
  if (const std::string missing = bind_all(driver, *rt); !missing.empty()) {
    *why = "libcuda.so.1 lacks " + missing;
    return nullptr;
  }
  return rt;  // the driver stays loaded for the process's life
}

void DeviceCall::check(DeviceRuntime::Result r, const char* what) const {
  if (r == 0) return;
  const char* name = nullptr;
  if (rt_.error_name == nullptr || rt_.error_name(r, &name) != 0 || name == nullptr) name = "an unknown CUDA error";
  GuardHit hit{};
  std::snprintf(hit.check, sizeof hit.check, "no_crash");
  hit.case_index = -1;
  std::snprintf(hit.message, sizeof hit.message, "the device reported %s (%d) at %s", name, r, what);
  end_child_with(hit);
}

DeviceCall::DeviceCall(const DeviceRuntime& runtime) : rt_(runtime) {
  if (g_context_pid != getpid()) {
    int device = 0;
    check(rt_.init(0), "cuInit");
    check(rt_.device_get(&device, 0), "cuDeviceGet");
    check(rt_.primary_ctx_retain(&g_context, device), "cuDevicePrimaryCtxRetain");
    g_context_pid = getpid();
  }
  check(rt_.ctx_set_current(g_context), "cuCtxSetCurrent");
  check(rt_.stream_create(&stream_, 0), "cuStreamCreate");
}

DeviceCall::~DeviceCall() {
  for (const Mirror& m : mirrors_) rt_.mem_free(m.base);
  if (stream_ != nullptr) rt_.stream_destroy(stream_);
}

void DeviceCall::mirror(const std::string& arg, uint8_t* data, size_t bytes, size_t misalign) {
  Mirror m{arg, data, bytes, 0, kDeviceCanaryBytes + misalign, false};
  const size_t total = m.front + bytes + kDeviceCanaryBytes;
  check(rt_.mem_alloc(&m.base, total), "cuMemAlloc_v2");
  std::vector<uint8_t> image(total, kDeviceCanary);
  if (bytes > 0) std::memcpy(image.data() + m.front, data, bytes);
  mirrors_.push_back(m);  // freed with the call, even if the copy fails
  check(rt_.copy_to_device(m.base, image.data(), total), "cuMemcpyHtoD_v2 (a tensor to the device)");
}

void* DeviceCall::device_address(void* host) {
  auto* p = static_cast<uint8_t*>(host);
  for (Mirror& m : mirrors_)
    if (p >= m.host && p <= m.host + m.bytes) {
      m.handed = true;
      return reinterpret_cast<void*>(m.base + m.front + static_cast<size_t>(p - m.host));
    }
  throw std::logic_error("an invoke passed a pointer that is not one of the call's tensors to a device kernel");
}

void DeviceCall::wait() {
  for (;;) {
    const DeviceRuntime::Result r = rt_.stream_query(stream_);
    if (r == 0) return;
    if (r != kNotReady) check(r, "cuStreamQuery, waiting for the call's stream");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

std::vector<std::string> DeviceCall::copy_back() {
  std::vector<std::string> written;
  std::vector<uint8_t> image;
  for (const Mirror& m : mirrors_) {
    if (!m.handed) continue;
    image.resize(m.front + m.bytes + kDeviceCanaryBytes);
    check(rt_.copy_to_host(image.data(), m.base, image.size()), "cuMemcpyDtoH_v2 (a tensor back from the device)");
    if (m.bytes > 0) std::memcpy(m.host, image.data() + m.front, m.bytes);
    const auto intact = [](const uint8_t* b, const uint8_t* e) {
      return std::all_of(b, e, [](uint8_t v) { return v == kDeviceCanary; });
    };
    if (!intact(image.data(), image.data() + m.front) ||
        !intact(image.data() + m.front + m.bytes, image.data() + image.size()))
      written.push_back(m.arg);
  }
  return written;
}

void DeviceCall::read(void* host, const void* from, size_t bytes) {
  if (bytes == 0) return;
  wait();
  check(rt_.copy_to_host(host, reinterpret_cast<uint64_t>(from), bytes),
        "cuMemcpyDtoH_v2 (a view the kernel returned)");
}

KernelFn::KernelFn(void* fn, DeviceCall* device) : fn_(fn), device_(device) {}

void* KernelFn::on_device(void* tensor) const {
  return device_ == nullptr || tensor == nullptr ? tensor : device_->device_address(tensor);
}

void* KernelFn::stream() const { return device_ == nullptr ? nullptr : device_->stream(); }

void KernelFn::read(void* host, const void* from, size_t bytes) const {
  if (device_ == nullptr) std::memcpy(host, from, bytes);
  else device_->read(host, from, bytes);
}

}  // namespace konform
