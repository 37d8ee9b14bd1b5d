// konform_act_bench: the activations of tinyllm/activations.h in libtl_kernels
// (simd) and in the scalar backend, each beside a bandwidth reference over
// the same bytes measured in the same run (measure.hpp). No assertions on
// time; figures and the command are in docs/ops-activations.md.
//
//   konform_act_bench [--konform_target=AVX2] [Google Benchmark flags]
//
// Shapes: the elementwise ops and the gated FFN middles at rows 1, 32 and
// 512 of 4096 and 11008 (a 7B Llama's hidden and FFN widths); Softmax over
// 32 x 512 rows (heads x queries of a 512-token prefill) of 512 and 4096
// keys, and once along axis 0 of [512, 4096] (the strided path).

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bandwidth_ref.h"
#include "bench_main.hpp"
#include "half_limit.hpp"
#include "measure.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/activations.h"

namespace {

using konform::bench::BestStream;
using konform::bench::RunWithReference;
namespace scalar = konform::scalar;

using UnaryFn = void (*)(const float*, float*, int64_t);
using GatedFn = void (*)(const float*, const float*, float*, int64_t);

// One backend's entry points (the C ABI's signatures).
struct Backend {
  const char* name;
  UnaryFn silu, gelu_erf, gelu_tanh, relu, sigmoid, tanh;
  decltype(&tl_leaky_relu_f32) leaky_relu;
  decltype(&tl_prelu_f32) prelu;
  GatedFn swiglu, glu;
  decltype(&tl_geglu_f32) geglu;
  decltype(&tl_softmax_f32) softmax;
};

const Backend kSimd = {"simd",         tl_silu_f32,  tl_gelu_erf_f32,   tl_gelu_tanh_f32, tl_relu_f32,
                       tl_sigmoid_f32, tl_tanh_f32,  tl_leaky_relu_f32, tl_prelu_f32,     tl_swiglu_f32,
                       tl_glu_f32,     tl_geglu_f32, tl_softmax_f32};
const Backend kScalar = {"scalar",           scalar::silu_f32,    scalar::gelu_erf_f32, scalar::gelu_tanh_f32,
                         scalar::relu_f32,   scalar::sigmoid_f32, scalar::tanh_f32,     scalar::leaky_relu_f32,
                         scalar::prelu_f32,  scalar::swiglu_f32,  scalar::glu_f32,      scalar::geglu_f32,
                         scalar::softmax_f32};

// A 64-byte aligned float array starting `seed` * 576 bytes past a 4 KiB
// boundary, so that arrays never share their address bits below 4 KiB (4K
// aliasing would slow kernel and reference alike). N(0, scale) contents.
class Buffer {
 public:
  Buffer(size_t n, unsigned seed, float scale = 1.0f)
      : base_(static_cast<float*>(std::aligned_alloc(4096, (n * sizeof(float) + 8192) / 4096 * 4096))),
        data_(base_.get() + (seed % 7) * 576 / sizeof(float)) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    for (size_t i = 0; i < n; ++i) data_[i] = dist(rng);
  }
  float* get() const { return data_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> base_;
  float* data_;
};

void Check(tl_status s) {
  if (s != TL_OK) {
    std::fprintf(stderr, "konform_act_bench: a kernel refused its arguments (status %d)\n", static_cast<int>(s));
    std::abort();
  }
}

enum class Unary { silu, gelu_erf, gelu_tanh, relu, leaky_relu, prelu, sigmoid, tanh };

// x read, y written: 8 n bytes; the reference copies x to y. PRelu is
// channels-last rows of d with d slopes, which it must read too: 4 (2 n + d)
// bytes, against a reference that does y = x | slope row by row (as the norm
// bench treats a gain). Until 2026-12-02 its slopes were left out of both,
// which at one row credited PRelu with two thirds of the bytes it moves.
void Elementwise(benchmark::State& state, const Backend* k, Unary op, int64_t rows, int64_t d) {
  const size_t n = static_cast<size_t>(rows * d);
  Buffer x(n, 1, 2.0f), y(n, 3), slope(static_cast<size_t>(d), 2, 0.1f);
  const auto stream = BestStream();
  const auto kernel = [&] {
    switch (op) {
      case Unary::silu: k->silu(x.get(), y.get(), int64_t(n)); break;
      case Unary::gelu_erf: k->gelu_erf(x.get(), y.get(), int64_t(n)); break;
      case Unary::gelu_tanh: k->gelu_tanh(x.get(), y.get(), int64_t(n)); break;
      case Unary::relu: k->relu(x.get(), y.get(), int64_t(n)); break;
      case Unary::leaky_relu: k->leaky_relu(x.get(), y.get(), int64_t(n), 0.01f); break;
      case Unary::prelu: k->prelu(x.get(), slope.get(), y.get(), rows, d, 1); break;
      case Unary::sigmoid: k->sigmoid(x.get(), y.get(), int64_t(n)); break;
      case Unary::tanh: k->tanh(x.get(), y.get(), int64_t(n)); break;
    }
  };
  if (op == Unary::prelu) {
    RunWithReference(state, 4.0 * double(2 * n + size_t(d)), kernel, [&] {
      for (int64_t r = 0; r < rows; ++r) stream(x.get() + r * d, slope.get(), y.get() + r * d, size_t(d));
    });
    return;
  }
  RunWithReference(state, 8.0 * double(n), kernel, [&] { stream(x.get(), nullptr, y.get(), n); });
}

enum class Gated { swiglu, geglu_erf, geglu_tanh, glu };

// gate and up read, y written: 12 n bytes; the reference y = gate | up.
void GatedMiddle(benchmark::State& state, const Backend* k, Gated op, int64_t rows, int64_t d) {
  const size_t n = static_cast<size_t>(rows * d);
  Buffer g(n, 1, 2.0f), u(n, 2), y(n, 3);
  const auto stream = BestStream();
  const auto kernel = [&] {
    switch (op) {
      case Gated::swiglu: k->swiglu(g.get(), u.get(), y.get(), int64_t(n)); break;
      case Gated::geglu_erf: Check(k->geglu(g.get(), u.get(), y.get(), int64_t(n), TL_GELU_ERF)); break;
      case Gated::geglu_tanh: Check(k->geglu(g.get(), u.get(), y.get(), int64_t(n), TL_GELU_TANH)); break;
      case Gated::glu: k->glu(g.get(), u.get(), y.get(), int64_t(n)); break;
    }
  };
  RunWithReference(state, 12.0 * double(n), kernel, [&] { stream(g.get(), u.get(), y.get(), n); });
}

// Attention-like logits (N(0, 4)) of `shape`, softmax along `axis`: x read
// and y written once, 8 n bytes (the kernel's second and third passes over a
// line hit the cache); the reference copies x to y.
void Softmax(benchmark::State& state, const Backend* k, std::vector<int64_t> shape, int axis) {
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  Buffer x(n, 1, 4.0f), y(n, 3);
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n),
      [&] { Check(k->softmax(x.get(), y.get(), shape.data(), static_cast<int>(shape.size()), axis)); },
      [&] { stream(x.get(), nullptr, y.get(), n); });
}

// The half twins (issue 29): Silu of n f16 or bf16 values and Softmax along
// the last axis, x read and y written, 2 bytes a value each (4 n), against
// the copy limit over as many bytes (half_limit.hpp).
using HalfUnaryFn = void (*)(const uint16_t*, uint16_t*, int64_t);
using HalfSoftmaxFn = decltype(&tl_softmax_f16);

void HalfCopyLike(benchmark::State& state, const std::string& op, konform::bench::Half h, const std::string& shape,
                  size_t n, float scale, const std::function<void(const uint16_t*, uint16_t*)>& fn) {
  using namespace konform::bench;
  HalfBuffer x(n, 1, h, scale), y(n, 3, h);
  RunAgainstLimit(
      state, op + SuffixOf(h), shape, 4.0 * double(n), [&] { fn(x.get(), y.get()); },
      copy_candidates(x.as_floats(), y.as_floats(), n / 2, 1));
}

// Silu (an exp a value: compute-bound in f32 from L1 and L2) and Relu (one
// max: bound by the memory level).
void HalfUnary(benchmark::State& state, const char* op, HalfUnaryFn f16, HalfUnaryFn bf16, konform::bench::Half h,
               int64_t rows, int64_t d) {
  const HalfUnaryFn fn = h == konform::bench::Half::f16 ? f16 : bf16;
  HalfCopyLike(state, op, h, std::to_string(rows) + "x" + std::to_string(d), size_t(rows * d), 2.0f,
               [&](const uint16_t* x, uint16_t* y) { fn(x, y, rows * d); });
}

void HalfSoftmax(benchmark::State& state, konform::bench::Half h, std::vector<int64_t> shape) {
  const HalfSoftmaxFn fn = h == konform::bench::Half::f16 ? tl_softmax_f16 : tl_softmax_bf16;
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  HalfCopyLike(
      state, "Softmax", h, std::to_string(n / size_t(shape.back())) + "x" + std::to_string(shape.back()), n, 4.0f,
      [&](const uint16_t* x, uint16_t* y) { Check(fn(x, y, shape.data(), static_cast<int>(shape.size()), -1)); });
}

template <class Fn, class... Args>
void Register(const std::string& op, const std::string& shape, Fn fn, Args... args) {
  for (const Backend* k : {&kSimd, &kScalar})
    benchmark::RegisterBenchmark((op + "/" + k->name + "/" + shape).c_str(), fn, k, args...);
}

// The scalar backend's softmax takes seconds per call at 16384 x 4096 (libm
// exp twice per element, pairwise sums): simd alone there.
template <class Fn, class... Args>
void RegisterSimd(const std::string& op, const std::string& shape, Fn fn, Args... args) {
  benchmark::RegisterBenchmark((op + "/" + kSimd.name + "/" + shape).c_str(), fn, &kSimd, args...);
}

void RegisterAll() {
  const std::pair<const char*, Unary> unary[] = {{"Silu", Unary::silu},
                                                 {"Gelu_erf", Unary::gelu_erf},
                                                 {"Gelu_tanh", Unary::gelu_tanh},
                                                 {"Relu", Unary::relu},
                                                 {"LeakyRelu", Unary::leaky_relu},
                                                 {"PRelu", Unary::prelu},
                                                 {"Sigmoid", Unary::sigmoid},
                                                 {"Tanh", Unary::tanh}};
  const std::pair<const char*, Gated> gated[] = {{"SwiGlu", Gated::swiglu},
                                                 {"GeGlu_erf", Gated::geglu_erf},
                                                 {"GeGlu_tanh", Gated::geglu_tanh},
                                                 {"Glu", Gated::glu}};
  for (int64_t d : {4096, 11008})
    for (int64_t rows : {1, 32, 512}) {
      const std::string shape = std::to_string(rows) + "x" + std::to_string(d);
      for (const auto& [name, op] : unary) Register(name, shape, Elementwise, op, rows, d);
      for (const auto& [name, op] : gated) Register(name, shape, GatedMiddle, op, rows, d);
    }
  Register("Softmax", "16384x512", Softmax, std::vector<int64_t>{32, 512, 512}, -1);
  for (auto [h, tag] : {std::pair{konform::bench::Half::f16, "f16"}, {konform::bench::Half::bf16, "bf16"}}) {
    for (int64_t rows : {1, 32, 512}) {
      const std::string shape = std::to_string(rows) + "x4096";
      konform::bench::RegisterHalf(("Silu_" + std::string(tag) + "/simd/" + shape), HalfUnary, "Silu", tl_silu_f16,
                                   tl_silu_bf16, h, rows, int64_t{4096});
      konform::bench::RegisterHalf(("Relu_" + std::string(tag) + "/simd/" + shape), HalfUnary, "Relu", tl_relu_f16,
                                   tl_relu_bf16, h, rows, int64_t{4096});
    }
    konform::bench::RegisterHalf(("Softmax_" + std::string(tag) + "/simd/16384x512"), HalfSoftmax, h,
                                 std::vector<int64_t>{32, 512, 512});
  }
  RegisterSimd("Softmax", "16384x4096", Softmax, std::vector<int64_t>{32, 512, 4096}, -1);
  Register("Softmax_axis0", "512x4096", Softmax, std::vector<int64_t>{512, 4096}, 0);
}

}  // namespace

int main(int argc, char** argv) { return konform::bench::BenchMain(argc, argv, RegisterAll); }
