// konform_spatial_bench: the spatial ops of tinyllm/spatial.h in
// libtl_kernels (simd) and in the scalar backend, each beside a bandwidth
// reference over the same bytes measured in the same run (measure.hpp). No
// assertions on time.
//
//   konform_spatial_bench [--konform_target=AVX2] [Google Benchmark flags]
//
// Shapes: an ESPCN-style PixelShuffle (256 -> 64 channels, 64^2 -> 128^2)
// and its inverse, the same at r = 3 and 4, DiT-XL/2's Unpatchify (256
// tokens of 2 x 2 x 8, and of 2 x 2 x 4) and an SD3-style one (1024 tokens
// of 2 x 2 x 16),
// the r = 2 pair again at 64 MiB and Unpatchify at 32 MiB, ViT-B/16's
// PatchEmbed (3 x 224^2 -> 196 tokens of 768), and Interpolate 2x up
// (nearest, bilinear) and 2x down (area) of 64 channels of 128^2.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bandwidth_ref.h"
#include "bench_main.hpp"
#include "measure.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/spatial.h"

namespace {

using konform::bench::BestStream;
using konform::bench::RunWithReference;

// One backend's entry points (the C ABI's signatures).
struct Backend {
  const char* name;
  decltype(&tl_pixel_shuffle_f32) shuffle;
  decltype(&tl_pixel_unshuffle_f32) unshuffle;
  decltype(&tl_unpatchify_f32) unpatchify;
  decltype(&tl_patch_embed_f32) patch_embed;
  decltype(&tl_interpolate_f32) interpolate;
};

namespace scalar = konform::scalar;
const Backend kSimd = {
    "simd", tl_pixel_shuffle_f32, tl_pixel_unshuffle_f32, tl_unpatchify_f32, tl_patch_embed_f32, tl_interpolate_f32};
const Backend kScalar = {"scalar",
                         scalar::pixel_shuffle_f32,
                         scalar::pixel_unshuffle_f32,
                         scalar::unpatchify_f32,
                         scalar::patch_embed_f32,
                         scalar::interpolate_f32};

std::vector<float> Normal(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

void Check(tl_status s) {
  if (s != TL_OK) {
    std::fprintf(stderr, "konform_spatial_bench: a kernel refused its arguments: %s\n", tl_last_error());
    std::exit(1);
  }
}

// The layout ops: n floats read and written once; the reference copies n.
// B, C, H, W, f as the ABI takes them (Unpatchify's describe y).
struct LayoutShape {
  int op;  // 0 PixelShuffle, 1 PixelUnshuffle, 2 Unpatchify
  int64_t B, C, H, W, f;
};

void Layout(benchmark::State& state, const Backend* k, LayoutShape s) {
  const size_t n = static_cast<size_t>(s.B * s.C * s.H * s.W);
  const auto fn = s.op == 0 ? k->shuffle : s.op == 1 ? k->unshuffle : k->unpatchify;
  const auto x = Normal(n, 1);
  std::vector<float> y(n);
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n), [&] { Check(fn(x.data(), y.data(), s.B, s.C, s.H, s.W, s.f)); },
      [&] { stream(x.data(), nullptr, y.data(), n); });
}

// ViT-B/16: x [1, 3, 224, 224], w [768, 3, 16, 16], 196 tokens of 768. A
// matmul of 196 x 768 x 768; the bytes are x, w and y once.
void PatchEmbed(benchmark::State& state, const Backend* k) {
  const auto x = Normal(3 * 224 * 224, 1), w = Normal(768 * 768, 2), bias = Normal(768, 3);
  std::vector<float> y(196 * 768);
  const size_t n = x.size() + w.size() + y.size();
  std::vector<float> src(n), dst(n);
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n),
      [&] { Check(k->patch_embed(x.data(), w.data(), bias.data(), y.data(), 1, 3, 224, 224, 768, 16)); },
      [&] { stream(src.data(), nullptr, dst.data(), n / 2); });
}

// 64 channels of 128^2: 2x up for nearest and bilinear, 2x down for area.
// The bytes are x read once and y written once.
void Interpolate(benchmark::State& state, const Backend* k, int32_t mode) {
  const int64_t in = 128, out = mode == TL_INTERP_AREA ? 64 : 256;
  const auto x = Normal(64 * in * in, 1);
  std::vector<float> y(static_cast<size_t>(64 * out * out));
  const size_t n = x.size() + y.size();
  std::vector<float> src(n), dst(n);
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n), [&] { Check(k->interpolate(x.data(), y.data(), 1, 64, in, in, out, out, mode, 0)); },
      [&] { stream(src.data(), nullptr, dst.data(), n / 2); });
}

template <class Fn, class... Args>
void Register(const std::string& name, Fn fn, Args... args) {
  for (const Backend* k : {&kSimd, &kScalar})
    benchmark::RegisterBenchmark((name + "/" + k->name).c_str(), fn, k, args...);
}

void RegisterAll() {
  Register("PixelShuffle/256x64x64_r2", Layout, LayoutShape{0, 1, 256, 64, 64, 2});
  Register("PixelUnshuffle/64x128x128_r2", Layout, LayoutShape{1, 1, 64, 128, 128, 2});
  // DiT-XL/2's 16 x 16 tokens of p 2, C 8 (learned sigma), batch 8
  Register("Unpatchify/B8_C8_32x32_p2", Layout, LayoutShape{2, 8, 8, 32, 32, 2});
  Register("PixelShuffle/576x42x42_r3", Layout, LayoutShape{0, 1, 576, 42, 42, 3});
  Register("PixelShuffle/1024x32x32_r4", Layout, LayoutShape{0, 1, 1024, 32, 32, 4});
  Register("PixelUnshuffle/64x128x128_r4", Layout, LayoutShape{1, 1, 64, 128, 128, 4});
  Register("Unpatchify/B8_C4_32x32_p2", Layout, LayoutShape{2, 8, 4, 32, 32, 2});  // DiT without learned sigma
  Register("Unpatchify/B4_C16_64x64_p2", Layout, LayoutShape{2, 4, 16, 64, 64, 2});
  // 32 MiB each way
  Register("Unpatchify/B32_C16_128x128_p2", Layout, LayoutShape{2, 32, 16, 128, 128, 2});
  // 64 MiB each way: past L3's share, where Move streams its output
  Register("PixelShuffle/256x256x256_r2", Layout, LayoutShape{0, 1, 256, 256, 256, 2});
  Register("PixelUnshuffle/64x512x512_r2", Layout, LayoutShape{1, 1, 64, 512, 512, 2});
  Register("PatchEmbed/ViT-B16_224", PatchEmbed);
  Register("InterpolateNearest/64x128x128_to_256", Interpolate, int32_t{TL_INTERP_NEAREST});
  Register("InterpolateBilinear/64x128x128_to_256", Interpolate, int32_t{TL_INTERP_BILINEAR});
  Register("InterpolateArea/64x128x128_to_64", Interpolate, int32_t{TL_INTERP_AREA});
}

}  // namespace

int main(int argc, char** argv) { return konform::bench::BenchMain(argc, argv, RegisterAll); }
