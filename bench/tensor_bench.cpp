// konform_tensor_bench: the ops of tinyllm/tensor.h in libtl_kernels (simd),
// and the arithmetic in the scalar backend too, each beside a bandwidth
// reference over the same bytes measured in the same run (measure.hpp). No
// assertions on time.
//
//   konform_tensor_bench [--konform_target=AVX2] [Google Benchmark flags]
//
// Shapes: Add and Mul at rows 1, 32 and 512 of 4096 and 11008 (a 7B Llama's
// hidden and FFN widths), same shape, a bias row [C] and a scalar; Div, Clamp
// and NanToNum at 32 x 4096; Argmax along the last axis of 32 x 32000 (a batch
// of logits) and along the first of 4096 x 32 and of 64 x 4096 (slices a
// row apart, read in memory order); Transpose of 1024 x 1024 and
// 4096 x 4096; Permute [512, 32, 128] -> [32, 512, 128] (heads split) and
// [32, 512, 128] -> [32, 128, 512] (K^T); Concat and Split of 2 x [32, 4096]
// along the last axis. The half twins: Add as the f32 one, Transpose of
// 1024 x 1024 and 1056 x 1056.

#include <benchmark/benchmark.h>

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
#include "tinyllm/tensor.h"

namespace {

using konform::bench::BestStream;
using konform::bench::RunWithReference;
using Shape = std::vector<int64_t>;

// A 64-byte aligned float array starting `seed` * 576 bytes past a 4 KiB
// boundary, so that arrays never share their address bits below 4 KiB (4K
// aliasing would slow kernel and reference alike). N(0, 1) contents.
class Buffer {
 public:
  Buffer(size_t n, unsigned seed)
      : base_(static_cast<float*>(std::aligned_alloc(4096, (n * sizeof(float) + 8192) / 4096 * 4096))),
        data_(base_.get() + (seed % 7) * 576 / sizeof(float)) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
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
    std::fprintf(stderr, "konform_tensor_bench: a kernel refused its arguments (status %d): %s\n", static_cast<int>(s),
                 tl_last_error());
    std::abort();
  }
}

size_t Count(const Shape& s) {
  size_t n = 1;
  for (int64_t d : s) n *= static_cast<size_t>(d);
  return n;
}

using BroadcastFn = decltype(&tl_add_broadcast_f32);

enum class Pattern { same, row, scalar };

// y[R, C] = a[R, C] OP b, b of shape [R, C], [C] or [].
void Broadcast(benchmark::State& state, BroadcastFn fn, Pattern pattern, int64_t rows, int64_t cols) {
  const Shape ys = {rows, cols};
  const Shape bs = pattern == Pattern::same ? ys : pattern == Pattern::row ? Shape{cols} : Shape{};
  const size_t n = Count(ys), nb = Count(bs);
  Buffer a(n, 1), b(nb, 2), y(n, 3);
  for (size_t i = 0; i < nb; ++i) b.get()[i] = 1.0f + 0.25f * b.get()[i];  // no zero divisors
  const auto stream = BestStream();
  const double bytes = 4.0 * double(2 * n + nb);
  Check(fn(a.get(), ys.data(), 2, b.get(), bs.data(), int64_t(bs.size()), y.get(), ys.data(), 2));
  RunWithReference(
      state, bytes, [&] { fn(a.get(), ys.data(), 2, b.get(), bs.data(), int64_t(bs.size()), y.get(), ys.data(), 2); },
      [&] {
        if (pattern == Pattern::same) stream(a.get(), b.get(), y.get(), n);
        else if (pattern == Pattern::scalar) stream(a.get(), nullptr, y.get(), n);
        else
          for (int64_t r = 0; r < rows; ++r) stream(a.get() + r * cols, b.get(), y.get() + r * cols, size_t(cols));
      });
}

// Add's half twins (issue 29): y[R, C] = a + b, b of shape [R, C] (same) or
// [C] (row), 2 bytes a value read or written: against the OR stream y = a |
// b over as many bytes (the pattern's one candidate, half_limit.hpp).
void HalfAdd(benchmark::State& state, konform::bench::Half h, Pattern pattern, int64_t rows, int64_t cols) {
  using namespace konform::bench;
  const Shape ys = {rows, cols};
  const Shape bs = pattern == Pattern::same ? ys : Shape{cols};
  const size_t n = Count(ys), nb = Count(bs);
  HalfBuffer a(n, 1, h), b(nb, 2, h), y(n, 3, h);
  const auto fn = h == Half::f16 ? tl_add_broadcast_f16 : tl_add_broadcast_bf16;
  RunAgainstLimit(
      state, std::string("Add") + SuffixOf(h),
      std::string(pattern == Pattern::same ? "same " : "row ") + std::to_string(rows) + "x" + std::to_string(cols),
      2.0 * double(2 * n + nb),
      [&] { Check(fn(a.get(), ys.data(), 2, b.get(), bs.data(), int64_t(bs.size()), y.get(), ys.data(), 2)); },
      TwoInOneOut(a.as_floats(), b.as_floats(), y.as_floats(), n / 2, pattern == Pattern::same ? 1 : size_t(rows)));
}

// Transpose's half twins: every value moved once, 4 n bytes, against the
// copy limit over as many bytes.
void HalfTranspose(benchmark::State& state, konform::bench::Half h, Shape shape) {
  using namespace konform::bench;
  const size_t n = Count(shape);
  HalfBuffer x(n, 1, h), y(n, 2, h);
  const auto fn = h == Half::f16 ? tl_transpose_f16 : tl_transpose_bf16;
  RunAgainstLimit(
      state, std::string("Transpose") + SuffixOf(h), std::to_string(shape[0]) + "x" + std::to_string(shape[1]),
      4.0 * double(n), [&] { Check(fn(x.get(), shape.data(), int64_t(shape.size()), y.get())); },
      copy_candidates(x.as_floats(), y.as_floats(), n / 2, 1));
}

void Clamp(benchmark::State& state, int64_t n) {
  Buffer x(size_t(n), 1), y(size_t(n), 2);
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n), [&] { Check(tl_clamp_f32(x.get(), y.get(), n, -1.0f, 1.0f)); },
      [&] { stream(x.get(), nullptr, y.get(), size_t(n)); });
}

void NanToNum(benchmark::State& state, int64_t n) {
  Buffer x(size_t(n), 1), y(size_t(n), 2);
  for (int64_t i = 0; i < n; i += 97) x.get()[i] = i % 3 ? INFINITY : NAN;  // a few to replace
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n),
      [&] {
        Check(tl_nan_to_num_f32(x.get(), y.get(), n, TL_NAN_TO_NUM_DEFAULT_NAN, TL_NAN_TO_NUM_DEFAULT_POSINF,
                                TL_NAN_TO_NUM_DEFAULT_NEGINF));
      },
      [&] { stream(x.get(), nullptr, y.get(), size_t(n)); });
}

void ArgmaxAxis(benchmark::State& state, Shape shape, int64_t axis) {
  const size_t n = Count(shape);
  Buffer x(n, 1);
  std::vector<int32_t> index(n / static_cast<size_t>(shape[static_cast<size_t>(axis)]));
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n) + 4.0 * double(index.size()),
      [&] { Check(tl_argmax_axis_f32(x.get(), shape.data(), int64_t(shape.size()), axis, index.data())); },
      [&] { benchmark::DoNotOptimize(stream(x.get(), nullptr, nullptr, n)); });
}

// Transpose and Permute move every element once: the reference is a copy.
void Permute(benchmark::State& state, Shape shape, Shape perm) {
  const size_t n = Count(shape);
  Buffer x(n, 1), y(n, 2);
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n),
      [&] { Check(tl_permute_f32(x.get(), shape.data(), int64_t(shape.size()), perm.data(), y.get())); },
      [&] { stream(x.get(), nullptr, y.get(), n); });
}

void Transpose(benchmark::State& state, Shape shape) {
  const size_t n = Count(shape);
  Buffer x(n, 1), y(n, 2);
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n), [&] { Check(tl_transpose_f32(x.get(), shape.data(), int64_t(shape.size()), y.get())); },
      [&] { stream(x.get(), nullptr, y.get(), n); });
}

// Two [rows, cols] halves glued along the last axis, and cut apart again.
void ConcatSplit(benchmark::State& state, bool concat, int64_t rows, int64_t cols) {
  const size_t half = size_t(rows * cols);
  Buffer x0(half, 1), x1(half, 2), y(2 * half, 3);
  const int64_t shapes[] = {rows, cols, rows, cols}, whole[] = {rows, 2 * cols}, sizes[] = {cols, cols};
  const float* xs[] = {x0.get(), x1.get()};
  float* ys[] = {x0.get(), x1.get()};
  const auto stream = BestStream();
  RunWithReference(
      state, 16.0 * double(half),
      [&] {
        if (concat) Check(tl_concat_f32(xs, shapes, 2, 2, -1, y.get()));
        else Check(tl_split_f32(y.get(), whole, 2, -1, sizes, 2, ys));
      },
      [&] { stream(y.get(), nullptr, x0.get(), half), stream(y.get() + half, nullptr, x1.get(), half); });
}

void RegisterAll() {
  struct Named {
    const char* name;
    BroadcastFn simd, scalar;
  };
  const Named arith[] = {{"Add", tl_add_broadcast_f32, konform::scalar::add_broadcast_f32},
                         {"Mul", tl_mul_broadcast_f32, konform::scalar::mul_broadcast_f32}};
  for (const Named& op : arith)
    for (int64_t cols : {4096, 11008})
      for (int64_t rows : {1, 32, 512}) {
        const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
        for (auto [pattern, tag] :
             {std::pair{Pattern::same, "same"}, {Pattern::row, "row"}, {Pattern::scalar, "scalar"}})
          benchmark::RegisterBenchmark((std::string(op.name) + "/simd/" + tag + "/" + shape).c_str(), Broadcast,
                                       op.simd, pattern, rows, cols);
        if (rows == 32)
          benchmark::RegisterBenchmark((std::string(op.name) + "/scalar/same/" + shape).c_str(), Broadcast, op.scalar,
                                       Pattern::same, rows, cols);
      }
  benchmark::RegisterBenchmark("Div/simd/same/32x4096", Broadcast, tl_div_broadcast_f32, Pattern::same, 32, 4096);
  benchmark::RegisterBenchmark("Sub/simd/row/32x4096", Broadcast, tl_sub_broadcast_f32, Pattern::row, 32, 4096);
  benchmark::RegisterBenchmark("Clamp/simd/32x4096", Clamp, int64_t{32 * 4096});
  benchmark::RegisterBenchmark("NanToNum/simd/32x4096", NanToNum, int64_t{32 * 4096});
  benchmark::RegisterBenchmark("Argmax/simd/32x32000/axis1", ArgmaxAxis, Shape{32, 32000}, int64_t{1});
  benchmark::RegisterBenchmark("Argmax/simd/4096x32/axis0", ArgmaxAxis, Shape{4096, 32}, int64_t{0});
  benchmark::RegisterBenchmark("Argmax/simd/64x4096/axis0", ArgmaxAxis, Shape{64, 4096}, int64_t{0});
  benchmark::RegisterBenchmark("Argmax/simd/16384x8/axis0", ArgmaxAxis, Shape{16384, 8}, int64_t{0});
  benchmark::RegisterBenchmark("Transpose/simd/1024x1024", Transpose, Shape{1024, 1024});
  for (auto [h, tag] : {std::pair{konform::bench::Half::f16, "f16"}, {konform::bench::Half::bf16, "bf16"}}) {
    for (int64_t rows : {1, 32, 512})
      for (auto [pattern, pt] : {std::pair{Pattern::same, "same"}, {Pattern::row, "row"}})
        konform::bench::RegisterHalf(("Add_" + std::string(tag) + "/simd/" + pt + "/" + std::to_string(rows) + "x4096"),
                                     HalfAdd, h, pattern, rows, int64_t{4096});
    // 1056: rows of x and y 2112 bytes apart, not a power of two (docs/benchmarks.md, "Transpose").
    for (int64_t side : {1024, 1056})
      konform::bench::RegisterHalf(
          ("Transpose_" + std::string(tag) + "/simd/" + std::to_string(side) + "x" + std::to_string(side)),
          HalfTranspose, h, Shape{side, side});
  }
  benchmark::RegisterBenchmark("Transpose/simd/4096x4096", Transpose, Shape{4096, 4096});
  benchmark::RegisterBenchmark("Permute/simd/512x32x128_102", Permute, Shape{512, 32, 128}, Shape{1, 0, 2});
  benchmark::RegisterBenchmark("Permute/simd/32x512x128_021", Permute, Shape{32, 512, 128}, Shape{0, 2, 1});
  benchmark::RegisterBenchmark("Concat/simd/2x32x4096", ConcatSplit, true, int64_t{32}, int64_t{4096});
  benchmark::RegisterBenchmark("Split/simd/32x8192", ConcatSplit, false, int64_t{32}, int64_t{4096});
}

}  // namespace

int main(int argc, char** argv) { return konform::bench::BenchMain(argc, argv, RegisterAll); }
