// konform_cuda_bench: libtl_cuda's device-pointer kernels (tinyllm/cuda/*.h)
// timed on a GPU with CUDA events, each beside a reference measured in the
// same run (docs/cuda.md, "Speed on a GPU"):
//
//   copy           cudaMemcpyAsync device to device of 1 GiB: the bandwidth
//                  reference, bytes read + written
//   memory-bound   RmsNorm, LayerNorm, Softmax (last axis), Silu, SwiGlu, Add,
//                  Rope at 65536 x 4096 f32: GB/s of the bytes each must read
//                  and write once, against a D2D copy moving as many bytes,
//                  the two alternating call by call
//   Matmul         8192^3 f32 against cuBLAS sgemm with CUBLAS_DEFAULT_MATH and
//                  CUBLAS_PEDANTIC_MATH (neither uses TF32): TFLOP/s, 2 M N K
//   decode         Sdpa, Sq = 1 over 4096 keys, 32 heads over 8 KV heads,
//                  head_dim 128, batch 1 and 32: GB/s of K and V against a copy
//                  moving as many bytes
//   prefill        FlashAttention, causal, 32 heads (32 KV heads), T = 4096,
//                  head_dim 128: TFLOP/s counted as 4 B H T^2 d / 2 (the causal
//                  half of q k^T and p v, a multiply and an add each)
//
// libtl_cuda is dlopen'ed, not linked: a function the library does not export
// is that benchmark's "not run" (the others still run), the same binary times
// any build of the library (--konform_library, as konform's --backend PATH),
// and the library keeps its own CUDA runtime inside (static, hidden) in any
// case. cuBLAS is dlopen'ed too (libcublas.so.<the major built against>, from
// the CUDA toolkit on LD_LIBRARY_PATH): without it the Matmul benchmark is not
// run, the rest are. Device pointers and streams pass between the two CUDA
// runtimes of the process: both use the device's primary context.
//
//   konform_cuda_bench [--konform_library=PATH] [--konform_seconds=S]
//                      [--konform_deadline_s=S] [Google Benchmark flags]
//
// --konform_seconds: timed calls per benchmark fill about S seconds (default
// 1; at least one after an untimed warm-up call). --konform_deadline_s: a
// benchmark that would start S seconds or more after the program did is not
// run, and one that started makes no more timed calls than fit before it. --benchmark_list_tests lists them without a
// GPU. Exit: 0 every benchmark ran, 3 something was not run (each named with its reason on stderr; every benchmark when
// there is no usable GPU), 2 bad usage.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fill.hpp"
#include "tinyllm/backend.h"
#include "tinyllm/cuda/activations.h"
#include "tinyllm/cuda/attention.h"
#include "tinyllm/cuda/linalg.h"
#include "tinyllm/cuda/norm.h"
#include "tinyllm/cuda/pos.h"
#include "tinyllm/cuda/tensor.h"

#ifndef KONFORM_CUDA_LIBRARY
#define KONFORM_CUDA_LIBRARY "libtl_cuda.so"
#endif

namespace {

using benchmark::State;
using konform::cuda_bench::fill_iota;
using konform::cuda_bench::fill_uniform;
using Clock = std::chrono::steady_clock;

std::string g_library = KONFORM_CUDA_LIBRARY;
double g_seconds = 1.0;
double g_deadline_s = 0;  // 0: none
const Clock::time_point g_start = Clock::now();
void* g_tl = nullptr;
cudaStream_t g_stream = nullptr;
std::vector<std::string> g_not_run;

// Marks benchmark `name` not run, with why; false for `return not_run(...)`.
bool not_run(State& state, const std::string& name, const std::string& why) {
  g_not_run.push_back(name + ": " + why);
  state.SkipWithError(("not run: " + why).c_str());
  return false;
}

// A libtl_cuda function by name, typed by its declaration in the headers.
template <class F>
F* tl(const char* name) {
  return reinterpret_cast<F*>(dlsym(g_tl, name));
}
#define TL_FN(fn) tl<decltype(fn)>(#fn)

std::string tl_error() {
  auto* last = tl<const char*()>("tl_last_error");
  const char* s = last ? last() : nullptr;
  return s && *s ? s : "(no message)";
}

std::string cuda_error(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

// One device allocation, freed with the benchmark.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { status_ = cudaMalloc(&p_, bytes); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  float* f() const { return static_cast<float*>(p_); }
  int32_t* i() const { return static_cast<int32_t*>(p_); }
  size_t bytes() const { return bytes_; }
  cudaError_t status() const { return status_; }

 private:
  void* p_ = nullptr;
  size_t bytes_;
  cudaError_t status_;
};

// Buffers of the given sizes, or why not (out of memory, ...).
struct Buffers {
  std::vector<std::unique_ptr<DeviceBuffer>> b;
  std::string error;
  Buffers(std::initializer_list<size_t> sizes) {
    for (size_t s : sizes) {
      b.push_back(std::make_unique<DeviceBuffer>(s));
      if (b.back()->status() != cudaSuccess && error.empty())
        error = "cudaMalloc of " + std::to_string(s) + " bytes: " + cuda_error(b.back()->status());
    }
  }
  DeviceBuffer& operator[](size_t i) { return *b[i]; }
};

// The time of fn() on g_stream between two events: the GPU's time, including
// any wait on the host inside fn (an allocation, a synchronisation).
class EventTimer {
 public:
  EventTimer() {
    cudaEventCreate(&a_);
    cudaEventCreate(&b_);
  }
  ~EventTimer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  // Seconds, or < 0 when a CUDA call failed (error() says which).
  double time(const std::function<void()>& fn) {
    cudaError_t e = cudaEventRecord(a_, g_stream);
    if (e == cudaSuccess) {
      fn();
      e = cudaEventRecord(b_, g_stream);
    }
    if (e == cudaSuccess) e = cudaEventSynchronize(b_);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, a_, b_);
    if (e != cudaSuccess) {
      error_ = cuda_error(e);
      return -1;
    }
    return ms / 1e3;
  }
  const std::string& error() const { return error_; }

 private:
  cudaEvent_t a_{}, b_{};
  std::string error_;
};

// What a timed benchmark measured: mean seconds per call of the op and of
// its reference (0 without one), and the number of timed calls.
struct Timing {
  double op_s = 0, ref_s = 0;
  int calls = 0;
};

// The common part of every benchmark: the deadline, one untimed warm-up call
// (the library's lazy module loading, first-touch costs) whose tl_status must
// be TL_OK, then timed calls alternating with the reference (when given) to
// fill --konform_seconds. op returns a tl_status (TL_OK for void functions),
// or, when `of` names another library's function, its status (0: success).
bool measure(State& state, const std::string& name, const std::function<int()>& op, const std::function<void()>& ref,
             Timing& t, const char* of = nullptr) {
  const double started = std::chrono::duration<double>(Clock::now() - g_start).count();
  if (g_deadline_s > 0 && started >= g_deadline_s)
    return not_run(state, name, "the run's " + std::to_string(int(g_deadline_s)) + " s were spent before it started");
  EventTimer timer;
  int status = 0;
  const double warm = timer.time([&] { status = op(); });
  if (warm < 0) return not_run(state, name, "CUDA error around the call: " + timer.error());
  if (status != 0)
    return not_run(state, name,
                   of ? std::string(of) + " returned status " + std::to_string(status)
                      : "refused, status " + std::to_string(status) + ": " + tl_error());
  // A call as long as the time asked for is timed once; none past the deadline.
  double fit = std::clamp(std::ceil(g_seconds / std::max(warm, 1e-6)), 1.0, 1000.0);
  if (g_deadline_s > 0) {
    const double now = std::chrono::duration<double>(Clock::now() - g_start).count();
    fit = std::clamp(std::floor((g_deadline_s - now) / (2 * std::max(warm, 1e-6))), 1.0, fit);
  }
  const int calls = static_cast<int>(fit);
  for (int c = 0; c < calls; ++c) {
    const double s = timer.time([&] { op(); });
    const double r = ref ? timer.time(ref) : 0;
    if (s < 0 || r < 0) return not_run(state, name, "CUDA error: " + timer.error());
    t.op_s += s / calls;
    t.ref_s += r / calls;
  }
  t.calls = calls;
  return true;
}

// Runs the single iteration of a benchmark registered with Iterations(1):
// its time is the mean time per call.
void report_time(State& state, const Timing& t) {
  for (auto _ : state) state.SetIterationTime(t.op_s);
  state.counters["calls"] = t.calls;
}

constexpr int64_t kRows = 65536, kCols = 4096;
constexpr size_t kN = size_t(kRows) * kCols;

// Bandwidth counters: bytes moved by the op, and by a copy of the same bytes
// timed beside it.
void bandwidth_counters(State& state, const Timing& t, double bytes, const char* what = "GBps") {
  state.counters["bytes"] = bytes;
  state.counters[what] = bytes / t.op_s / 1e9;
  state.counters["copy_GBps"] = bytes / t.ref_s / 1e9;
  state.counters["pct_of_copy"] = 100 * t.ref_s / t.op_s;
}

// The reference copy moving `bytes` (read + written): half of them copied.
struct CopyRef {
  Buffers buf;
  explicit CopyRef(double bytes) : buf{Half(bytes), Half(bytes)} {}
  static size_t Half(double bytes) { return (static_cast<size_t>(bytes / 2) + 255) / 256 * 256; }
  std::function<void()> fn() {
    return [this] { cudaMemcpyAsync(buf[1].f(), buf[0].f(), buf[0].bytes(), cudaMemcpyDeviceToDevice, g_stream); };
  }
};

// Fills the float buffers of `inputs` (index, scale) uniform in
// [-scale, scale); false (and why) on error.
bool fill(State& state, const std::string& name, Buffers& b, std::initializer_list<std::pair<int, float>> inputs) {
  uint32_t seed = 1;
  for (auto [i, scale] : inputs) {
    const cudaError_t e = fill_uniform(b[i].f(), b[i].bytes() / sizeof(float), seed++, -scale, scale, g_stream);
    if (e != cudaSuccess) return not_run(state, name, "filling the inputs: " + cuda_error(e));
  }
  const cudaError_t e = cudaStreamSynchronize(g_stream);
  if (e != cudaSuccess) return not_run(state, name, "filling the inputs: " + cuda_error(e));
  return true;
}

std::string missing(const char* fn) { return "the library (" + g_library + ") does not export " + fn; }

void BM_Copy(State& state, const std::string& name, int64_t arg) {
  const size_t bytes = kN * sizeof(float);
  Buffers b{bytes, bytes};
  if (!b.error.empty()) return (void)not_run(state, name, b.error);
  Timing t;
  auto copy = [&] {
    return static_cast<int>(cudaMemcpyAsync(b[1].f(), b[0].f(), bytes, cudaMemcpyDeviceToDevice, g_stream));
  };
  if (!measure(state, name, copy, nullptr, t, "cudaMemcpyAsync")) return;
  report_time(state, t);
  state.counters["bytes"] = 2.0 * bytes;
  state.counters["GBps"] = 2.0 * bytes / t.op_s / 1e9;
}

// A bandwidth benchmark: device buffers of `sizes` bytes, those of `inputs`
// (index, scale) filled uniform in [-scale, scale), `prepare` for anything
// more (an error's words, or empty), then `op` on them timed against a copy
// moving `bytes`, the op's bytes counted as `what`.
void bandwidth_bench(State& state, const std::string& name, double bytes, std::initializer_list<size_t> sizes,
                     std::initializer_list<std::pair<int, float>> inputs, const std::function<int(Buffers&)>& op,
                     const std::function<std::string(Buffers&)>& prepare = nullptr, const char* what = "GBps") {
  Buffers b(sizes);
  CopyRef ref(bytes);
  if (!b.error.empty() || !ref.buf.error.empty()) return (void)not_run(state, name, b.error + ref.buf.error);
  if (!fill(state, name, b, inputs)) return;
  if (const std::string why = prepare ? prepare(b) : ""; !why.empty()) return (void)not_run(state, name, why);
  Timing t;
  if (!measure(
          state, name, [&] { return op(b); }, ref.fn(), t))
    return;
  report_time(state, t);
  bandwidth_counters(state, t, bytes, what);
}

const int64_t kShape[2] = {kRows, kCols};

void BM_RmsNorm(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_rms_norm_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_rms_norm_f32_dev"));
  bandwidth_bench(state, name, 8.0 * kN + 4.0 * kCols, {kN * 4, kCols * 4, kN * 4}, {{0, 4.0f}, {1, 2.0f}},
                  [&](Buffers& b) { return int(f(b[0].f(), b[1].f(), b[2].f(), kShape, 2, 1e-6f, g_stream)); });
}

void BM_LayerNorm(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_layer_norm_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_layer_norm_f32_dev"));
  bandwidth_bench(
      state, name, 8.0 * kN + 8.0 * kCols, {kN * 4, kCols * 4, kCols * 4, kN * 4}, {{0, 4.0f}, {1, 2.0f}, {2, 1.0f}},
      [&](Buffers& b) { return int(f(b[0].f(), b[1].f(), b[2].f(), b[3].f(), kShape, 2, 1e-5f, g_stream)); });
}

// Along the last axis of [65536, 4096].
void BM_Softmax(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_softmax_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_softmax_f32_dev"));
  bandwidth_bench(state, name, 8.0 * kN, {kN * 4, kN * 4}, {{0, 8.0f}},
                  [&](Buffers& b) { return int(f(b[0].f(), b[1].f(), kShape, 2, 1, g_stream)); });
}

void BM_Silu(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_silu_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_silu_f32_dev"));
  bandwidth_bench(state, name, 8.0 * kN, {kN * 4, kN * 4}, {{0, 8.0f}}, [&](Buffers& b) {
    f(b[0].f(), b[1].f(), int64_t(kN), g_stream);
    return int(TL_OK);
  });
}

void BM_SwiGlu(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_swiglu_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_swiglu_f32_dev"));
  bandwidth_bench(state, name, 12.0 * kN, {kN * 4, kN * 4, kN * 4}, {{0, 8.0f}, {1, 2.0f}}, [&](Buffers& b) {
    f(b[0].f(), b[1].f(), b[2].f(), int64_t(kN), g_stream);
    return int(TL_OK);
  });
}

// tensor.h's Add (the catalog's op), both operands of y's shape: no broadcast.
void BM_Add(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_add_broadcast_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_add_broadcast_f32_dev"));
  bandwidth_bench(state, name, 12.0 * kN, {kN * 4, kN * 4, kN * 4}, {{0, 4.0f}, {1, 4.0f}}, [&](Buffers& b) {
    return int(f(b[0].f(), kShape, 2, b[1].f(), kShape, 2, b[2].f(), kShape, 2, g_stream));
  });
}

// pos.h's Rope in place (y == x) on [T = 65536, H = 32, D = 128], positions
// 0..T-1, the cache of as many rows (base 500000): x read and written, the
// cache and the positions read once.
void BM_Rope(State& state, const std::string& name, int64_t) {
  auto* f = TL_FN(tl_rope_apply_f32_dev);
  auto* cache_fn = TL_FN(tl_rope_cache_f32_dev);
  if (!f || !cache_fn)
    return (void)not_run(state, name, missing(f ? "tl_rope_cache_f32_dev" : "tl_rope_apply_f32_dev"));
  const int64_t T = kRows, H = 32, D = 128;
  auto prepare = [&](Buffers& b) -> std::string {
    cudaError_t e = fill_iota(b[2].i(), size_t(T), g_stream);
    if (e != cudaSuccess) return "filling the positions: " + cuda_error(e);
    if (cache_fn(b[1].f(), T, D, 500000.0f, g_stream) != TL_OK) return "tl_rope_cache_f32_dev refused: " + tl_error();
    if ((e = cudaStreamSynchronize(g_stream)) != cudaSuccess) return "making the cache: " + cuda_error(e);
    return "";
  };
  bandwidth_bench(
      state, name, 8.0 * kN + 4.0 * T * D + 4.0 * T, {kN * 4, size_t(T) * D * 4, size_t(T) * 4}, {{0, 2.0f}},
      [&](Buffers& b) { return int(f(b[0].f(), b[0].f(), b[2].i(), T, H, D, D, b[1].f(), T, 0, g_stream)); }, prepare);
}
// cuBLAS, dlopen'ed: the functions the Matmul benchmark calls.
struct Cublas {
  void* h = nullptr;
  std::string error;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasGetVersion_v2) version = nullptr;
  Cublas() {
    const std::string lib = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      error = "cuBLAS not found (" + std::string(dlerror()) + "): put the CUDA toolkit's lib64 on LD_LIBRARY_PATH";
      return;
    }
    create = reinterpret_cast<decltype(create)>(dlsym(h, "cublasCreate_v2"));
    destroy = reinterpret_cast<decltype(destroy)>(dlsym(h, "cublasDestroy_v2"));
    set_stream = reinterpret_cast<decltype(set_stream)>(dlsym(h, "cublasSetStream_v2"));
    set_math = reinterpret_cast<decltype(set_math)>(dlsym(h, "cublasSetMathMode"));
    sgemm = reinterpret_cast<decltype(sgemm)>(dlsym(h, "cublasSgemm_v2"));
    version = reinterpret_cast<decltype(version)>(dlsym(h, "cublasGetVersion_v2"));
    if (!create || !destroy || !set_stream || !set_math || !sgemm || !version)
      error = lib + " lacks a function it needs";
  }
};

// Matmul y[M, N] = x[M, K] w[N, K]^T against cuBLAS's sgemm of the same
// product (column-major: y^T = w x^T, w transposed), each math mode timed
// over as many calls; the largest difference between the two results is
// reported so that a figure of a wrong product shows as such.
void BM_Matmul(State& state, const std::string& name, int64_t arg) {
  auto* f = TL_FN(tl_matmul_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_matmul_f32_dev"));
  static Cublas cublas;
  if (!cublas.error.empty()) return (void)not_run(state, name, cublas.error);
  const int64_t M = arg, N = M, K = M;
  Buffers b{size_t(M * K) * 4, size_t(N * K) * 4, size_t(M * N) * 4, size_t(M * N) * 4};
  if (!b.error.empty()) return (void)not_run(state, name, b.error);
  if (!fill(state, name, b, {{0, 1.0f}, {1, 1.0f}})) return;
  cublasHandle_t handle = nullptr;
  if (cublas.create(&handle) != CUBLAS_STATUS_SUCCESS) return (void)not_run(state, name, "cublasCreate failed");
  struct Destroy {
    Cublas& c;
    cublasHandle_t h;
    ~Destroy() { c.destroy(h); }
  } destroy{cublas, handle};
  cublas.set_stream(handle, g_stream);
  int version = 0;
  cublas.version(handle, &version);
  const float one = 1, zero = 0;
  auto sgemm = [&] {
    return cublas.sgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(N), int(M), int(K), &one, b[1].f(), int(K), b[0].f(),
                        int(K), &zero, b[3].f(), int(N));
  };
  double cublas_s[2] = {0, 0};
  const cublasMath_t modes[2] = {CUBLAS_DEFAULT_MATH, CUBLAS_PEDANTIC_MATH};
  for (int m = 0; m < 2; ++m) {
    if (cublas.set_math(handle, modes[m]) != CUBLAS_STATUS_SUCCESS)
      return (void)not_run(state, name, "cublasSetMathMode failed");
    Timing ct;
    auto theirs = [&] { return int(sgemm()); };
    if (!measure(state, name, theirs, nullptr, ct, "cublasSgemm")) return;
    cublas_s[m] = ct.op_s;
  }
  Timing t;
  auto op = [&] { return int(f(b[0].f(), b[1].f(), b[2].f(), M, N, K, g_stream)); };
  if (!measure(state, name, op, nullptr, t)) return;
  std::vector<float> ours(size_t(M * N)), theirs(size_t(M * N));
  cudaError_t e = cudaMemcpy(ours.data(), b[2].f(), ours.size() * 4, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(theirs.data(), b[3].f(), theirs.size() * 4, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return (void)not_run(state, name, "copying the products back: " + cuda_error(e));
  double diff = 0, mag = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    diff = std::max(diff, double(std::fabs(ours[i] - theirs[i])));
    mag = std::max(mag, double(std::fabs(theirs[i])));
  }
  report_time(state, t);
  const double flop = 2.0 * double(M) * double(N) * double(K);
  const double best = std::min(cublas_s[0], cublas_s[1]);
  state.counters["TFLOPs"] = flop / t.op_s / 1e12;
  state.counters["cublas_default_TFLOPs"] = flop / cublas_s[0] / 1e12;
  state.counters["cublas_pedantic_TFLOPs"] = flop / cublas_s[1] / 1e12;
  state.counters["pct_of_cublas"] = 100 * best / t.op_s;
  state.counters["max_abs_diff_vs_cublas"] = diff;
  state.counters["max_abs_cublas"] = mag;
  state.counters["cublas_version"] = version;
}

// Decode: Sdpa with one query per head over Sk cached keys (no mask, causal
// 0: a decode query sees every key), GQA 32 over 8 KV heads. The bytes are K
// and V, read once: what a decode step cannot avoid.
void BM_Decode(State& state, const std::string& name, int64_t B) {
  auto* f = TL_FN(tl_sdpa_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_sdpa_f32_dev"));
  const int64_t H = 32, KV = 8, Sk = 4096, D = 128;
  const size_t q = size_t(B * H * D), kv = size_t(B * KV * Sk * D);
  bandwidth_bench(
      state, name, 2.0 * 4.0 * double(kv), {q * 4, kv * 4, kv * 4, q * 4}, {{0, 1.0f}, {1, 1.0f}, {2, 1.0f}},
      [&](Buffers& b) {
        return int(
            f(b[0].f(), b[1].f(), b[2].f(), nullptr, b[3].f(), B, H, KV, 1, Sk, D, 0, TL_ATTN_MASK_NONE, g_stream));
      },
      nullptr, "kv_GBps");
}

// Prefill: FlashAttention, causal, Sq = Sk = T, 32 query and 32 KV heads.
void BM_FlashPrefill(State& state, const std::string& name, int64_t arg) {
  auto* f = TL_FN(tl_flash_attention_f32_dev);
  if (!f) return (void)not_run(state, name, missing("tl_flash_attention_f32_dev"));
  const int64_t B = 1, H = 32, T = arg, D = 128;
  const size_t n = size_t(B * H * T * D);
  Buffers b{n * 4, n * 4, n * 4, n * 4};
  if (!b.error.empty()) return (void)not_run(state, name, b.error);
  if (!fill(state, name, b, {{0, 1.0f}, {1, 1.0f}, {2, 1.0f}})) return;
  Timing t;
  auto op = [&] {
    return int(f(b[0].f(), b[1].f(), b[2].f(), nullptr, b[3].f(), B, H, H, T, T, D, 1, TL_ATTN_MASK_NONE, g_stream));
  };
  if (!measure(state, name, op, nullptr, t)) return;
  report_time(state, t);
  state.counters["TFLOPs"] = 4.0 * B * H * double(T) * double(T) * D / 2 / t.op_s / 1e12;
}

void Register(const std::string& name, void (*fn)(State&, const std::string&, int64_t), int64_t arg = 0) {
  benchmark::RegisterBenchmark(name.c_str(), [fn, name, arg](State& s) { fn(s, name, arg); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

void RegisterAll() {
  const std::string shape = "/65536x4096";
  Register("copy_d2d" + shape, BM_Copy);
  Register("RmsNorm" + shape, BM_RmsNorm);
  Register("LayerNorm" + shape, BM_LayerNorm);
  Register("Softmax" + shape, BM_Softmax);
  Register("Silu" + shape, BM_Silu);
  Register("SwiGlu" + shape, BM_SwiGlu);
  Register("Add" + shape, BM_Add);
  Register("Rope/T65536_H32_D128", BM_Rope);
  Register("Sdpa_decode/B1_H32_KV8_Sk4096_D128", BM_Decode, 1);
  Register("Sdpa_decode/B32_H32_KV8_Sk4096_D128", BM_Decode, 32);
  Register("FlashAttention_prefill_causal/H32_T4096_D128", BM_FlashPrefill, 4096);
  Register("Matmul/8192x8192x8192", BM_Matmul, 8192);
}

// Takes --konform_NAME=VALUE out of argv; false if absent.
bool take_flag(int& argc, char** argv, const char* flag, std::string& value) {
  const size_t len = std::strlen(flag);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, len) == 0 && argv[i][len] == '=') {
      value = argv[i] + len + 1;
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      return true;
    }
  }
  return false;
}

bool positive(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && out > 0 && std::isfinite(out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string v;
  if (const char* env = std::getenv("KONFORM_CUDA_LIBRARY"); env && *env) g_library = env;
  if (take_flag(argc, argv, "--konform_library", v)) g_library = v;
  if (take_flag(argc, argv, "--konform_seconds", v) && !positive(v, g_seconds)) {
    std::fprintf(stderr, "konform_cuda_bench: --konform_seconds=%s: expected seconds > 0\n", v.c_str());
    return 2;
  }
  if (take_flag(argc, argv, "--konform_deadline_s", v) && !positive(v, g_deadline_s)) {
    std::fprintf(stderr, "konform_cuda_bench: --konform_deadline_s=%s: expected seconds > 0\n", v.c_str());
    return 2;
  }
  // Listing the benchmarks needs no GPU.
  bool listing = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    listing |= a == "--benchmark_list_tests" ||
               (a.rfind("--benchmark_list_tests=", 0) == 0 && a != "--benchmark_list_tests=false");
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  if (listing) {
    RegisterAll();
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  g_tl = dlopen(g_library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!g_tl) {
    std::fprintf(stderr, "konform_cuda_bench: NOT RUN: cannot load %s: %s\n", g_library.c_str(), dlerror());
    return 3;
  }
  // The library's own probe: a kernel of this build ran on the device.
  auto* probe = tl<const char*()>("tl_backend_unavailable");
  if (const char* why = probe ? probe() : "the library exports no tl_backend_unavailable") {
    std::fprintf(stderr, "konform_cuda_bench: NOT RUN (every benchmark): %s\n", why);
    return 3;
  }
  cudaError_t e = cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking);
  cudaDeviceProp prop{};
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, 0);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "konform_cuda_bench: NOT RUN (every benchmark): %s\n", cuda_error(e).c_str());
    return 3;
  }
  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(prop.totalGlobalMem));
  benchmark::AddCustomContext("libtl_cuda", g_library);
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& s : g_not_run) std::fprintf(stderr, "konform_cuda_bench: NOT RUN %s\n", s.c_str());
  cudaStreamDestroy(g_stream);
  return g_not_run.empty() ? 0 : 3;
}
