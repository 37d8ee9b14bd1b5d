// The host ABI over the device-pointer one: tl_X copies its inputs to the
// device, calls tl_X_dev (or the body it shares) on the legacy default
// stream, and copies its outputs back, each buffer freed on return. Included
// by abi.cuh after the runtime (device_buffer.cuh, or the emulation's).
//
//   return on_device(fn, tl_X_dev, in(x, n), out(y, n), n);
//
// in(): a device copy of a host input; out(): a device buffer copied back to
// the host output when the call returns TL_OK (or returns nothing);
// in_out(): both; any other argument is passed as it is, and the stream
// (NULL) is appended. Callers check the arguments first and return before
// this when there is nothing to compute, so that a refused or empty call
// makes no CUDA call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "tinyllm/status.h"

namespace konform::cuda {

template <typename T>
struct In {
  const T* host;
  size_t count;
};
template <typename T>
struct Out {
  T* host;
  size_t count;
};
template <typename T>
struct InOut {
  T* host;
  size_t count;
};

template <typename T>
In<T> in(const T* host, int64_t count) {
  return {host, static_cast<size_t>(count)};
}
template <typename T>
Out<T> out(T* host, int64_t count) {
  return {host, static_cast<size_t>(count)};
}
template <typename T>
InOut<T> in_out(T* host, int64_t count) {
  return {host, static_cast<size_t>(count)};
}

namespace staging {

// Each argument in turn (declared first: each overload calls the others).
template <class Dev, class Ready>
auto stage(const char*, Dev& dev, Ready ready);
template <class Dev, class Ready, class A, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, A a, Rest... rest);
template <class Dev, class Ready, class T, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, In<T> a, Rest... rest);
template <class Dev, class Ready, class T, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, Out<T> a, Rest... rest);
template <class Dev, class Ready, class T, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, InOut<T> a, Rest... rest);

template <class Dev, class Ready>
auto stage(const char*, Dev& dev, Ready ready) {
  return std::apply([&](auto... a) { return dev(a..., static_cast<cudaStream_t>(nullptr)); }, ready);
}

template <class Dev, class Ready, class A, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, A a, Rest... rest) {
  return stage(where, dev, std::tuple_cat(ready, std::make_tuple(a)), rest...);
}

template <class Dev, class Ready, class T, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, In<T> a, Rest... rest) {
  const DeviceBuffer<T> d(a.host, a.count, where);
  return stage(where, dev, std::tuple_cat(ready, std::make_tuple(static_cast<const T*>(d.get()))), rest...);
}

// Runs the rest with `d` in place of the output, then copies d back unless refused.
template <class Dev, class Ready, class T, class... Rest>
auto stage_then_copy(const DeviceBuffer<T>& d, T* host, const char* where, Dev& dev, Ready ready, Rest... rest) {
  auto run = [&] { return stage(where, dev, std::tuple_cat(ready, std::make_tuple(d.get())), rest...); };
  if constexpr (std::is_void_v<decltype(run())>) {
    run();
    d.copy_to(host);
  } else {
    const auto r = run();
    if (r == TL_OK) d.copy_to(host);
    return r;
  }
}

template <class Dev, class Ready, class T, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, Out<T> a, Rest... rest) {
  const DeviceBuffer<T> d(a.count, where);
  return stage_then_copy(d, a.host, where, dev, ready, rest...);
}

template <class Dev, class Ready, class T, class... Rest>
auto stage(const char* where, Dev& dev, Ready ready, InOut<T> a, Rest... rest) {
  const DeviceBuffer<T> d(a.host, a.count, where);
  return stage_then_copy(d, a.host, where, dev, ready, rest...);
}

}  // namespace staging

template <class Dev, class... Args>
auto on_device(const char* where, Dev dev, Args... args) {
  return staging::stage(where, dev, std::tuple<>{}, args...);
}

}  // namespace konform::cuda
