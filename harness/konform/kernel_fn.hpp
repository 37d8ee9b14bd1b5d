// The kernel an op's invoke calls: a function of the host-pointer ABI, or
// its device-pointer twin (tinyllm/cuda/*.h: the same parameters and one
// trailing stream), which takes the device copies of the call's tensors.
// An invoke passes every tensor through arg() and calls through call<F>(),
// so that one invoke serves both.
#pragma once

#include <cstddef>
#include <type_traits>

namespace konform {

class DeviceCall;  // konform/device.hpp: the device copies and the stream of one call

class KernelFn {
 public:
  explicit KernelFn(void* fn, DeviceCall* device = nullptr);

  // Calls the kernel as C function type F: F itself, or on a device F with
  // the stream appended.
  template <class F, class... A>
  auto call(A... args) const {
    return Call<F>::run(*this, args...);
  }

  // What the kernel is handed for a tensor of the call: the pointer itself,
  // or its device copy. NULL stays NULL.
  template <class T>
  T* arg(T* tensor) const {
    return static_cast<T*>(on_device(const_cast<std::remove_const_t<T>*>(tensor)));
  }

  // Copies bytes the kernel returned a pointer to (a KV cache's view) into
  // host memory: memcpy, or from the device once the stream is done.
  void read(void* host, const void* from, size_t bytes) const;

  bool on_a_device() const { return device_ != nullptr; }
  // The function itself, for a call that takes no stream (a table's getter).
  void* address() const { return fn_; }
  // The stream a device call is enqueued on; NULL on the host.
  void* stream() const;

 private:
  template <class F>
  struct Call;
  template <class R, class... P>
  struct Call<R(P...)> {
    static R run(const KernelFn& k, P... args) {
      if (k.device_ == nullptr) return reinterpret_cast<R (*)(P...)>(k.fn_)(args...);
      return reinterpret_cast<R (*)(P..., void*)>(k.fn_)(args..., k.stream());  // stream: a CUstream
    }
  };

  void* on_device(void* tensor) const;

  void* fn_;
  DeviceCall* device_;
};

}  // namespace konform
