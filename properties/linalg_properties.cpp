// Properties of Matmul, the feed-forwards and the fused ops (tinyllm/linalg.h).
// Each states a fact a correct kernel cannot break and some defect does: the
// mutant of mutants/linalg_base.c named in mutants/manifest.tsv.
#include <dlfcn.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "konform/properties.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/reference/linalg.hpp"
#include "konform/rng.hpp"
#include "konform/values.hpp"
#include "linalg_calls.hpp"
#include "ops/ffn_support.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
using calls::linalg::Floats;
using reference::ffn::Gate;

// Operands drawn from a generated seed: RapidCheck building thousands of
// elements one by one is slow (and a matrix shrinks poorly); the seed is what
// it shrinks and reports. Values ~ N(0, 1) times `scale`.
Floats seeded(int64_t n, float scale) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v = make_values(rng, ValueClass::normal, n);
  for (float& e : v) e *= scale;
  return v;
}

// Small integers in [-4, 4]: every product and partial sum of up to 300
// terms is an integer below 2^24, exact in float whatever the order.
Floats small_ints(int64_t n) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v(static_cast<size_t>(n));
  for (float& e : v) e = static_cast<float>(rng.range(-4, 4));
  return v;
}

// ---------------------------------------------------------------- Matmul

// x = [[1, 2], [3, 4]], W = [[5, 6], [7, 8], [9, 10]]: y = x W^T =
// [[17, 23, 29], [39, 53, 67]]. W is not square: y = x W (no transpose) or
// a swapped stride cannot give these.
void matmul_hand_example(const Backend& b) {
  const auto y = calls::linalg::matmul(b, {1, 2, 3, 4}, {5, 6, 7, 8, 9, 10}, 2, 3, 2);
  const float want[] = {17, 23, 29, 39, 53, 67};
  for (int i = 0; i < 6; ++i) RC_ASSERT(y[i] == want[i]);
}

// On small integers every order of summation is exact, so y must equal the
// integer product exactly: a dropped K tail, a wrong leading-dimension stride,
// W used untransposed, or y accumulated onto its old contents shows at once.
void matmul_exact_on_small_integers(const Backend& b) {
  const int64_t M = *rc::gen::inRange<int64_t>(1, 21), N = *rc::gen::inRange<int64_t>(1, 41);
  const int64_t K = *rc::gen::inRange<int64_t>(0, 301);
  const Floats x = small_ints(M * K), w = small_ints(N * K);
  const auto y = calls::linalg::matmul(b, x, w, M, N, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int64_t want = 0;
      for (int64_t k = 0; k < K; ++k) want += static_cast<int64_t>(x[m * K + k]) * static_cast<int64_t>(w[n * K + k]);
      RC_ASSERT(y[m * N + n] == static_cast<float>(want));
    }
}

// K = 0 is the empty sum: every y is +0. W = I gives x back bit for bit.
void matmul_empty_sum_and_identity(const Backend& b) {
  const int64_t M = *rc::gen::inRange<int64_t>(1, 13), N = *rc::gen::inRange<int64_t>(1, 40);
  for (float v : calls::linalg::matmul(b, {}, {}, M, N, 0)) RC_ASSERT(same_bits(v, 0.0f));
  const int64_t K = *rc::gen::inRange<int64_t>(1, 70);
  const Floats x = finite_floats(M * K);
  Floats eye(static_cast<size_t>(K * K), 0.0f);
  for (int64_t k = 0; k < K; ++k) eye[k * K + k] = 1.0f;
  const auto y = calls::linalg::matmul(b, x, eye, M, K, K);
  for (int64_t i = 0; i < M * K; ++i) RC_ASSERT(y[i] == x[i]);
}

// Batch invariance: each row computed alone (M = 1, the decode GEMV) has the
// bits it has in a batch (the header's promise): of up to 24 rows, or one in
// four times of 241 to 260, past every target's few-rows path of libtl_kernels
// (at most 240 rows) into its blocked one.
void matmul_rows_are_batch_invariant(const Backend& b) {
  const bool many = *rc::gen::inRange(0, 4) == 0;
  const int64_t M = many ? *rc::gen::inRange<int64_t>(241, 261) : *rc::gen::inRange<int64_t>(2, 25);
  const int64_t N = *rc::gen::inRange<int64_t>(1, 80);
  const int64_t K = *rc::gen::inRange<int64_t>(1, 600);
  const Floats x = seeded(M * K, 1.0f), w = seeded(N * K, 1.0f);
  const auto y = calls::linalg::matmul(b, x, w, M, N, K);
  for (int64_t m = 0; m < M; ++m) {
    const Floats row(x.begin() + m * K, x.begin() + (m + 1) * K);
    const auto alone = calls::linalg::matmul(b, row, w, 1, N, K);
    for (int64_t n = 0; n < N; ++n) RC_ASSERT(same_bits(alone[n], y[m * N + n]));
  }
}

// A backend that lets its thread count be set (tinyllm/threads.h) gives the
// same bits on 1 and 2 threads, on both the packed and the decode path.
void matmul_threads_do_not_change_bits(const Backend& b) {
  using SetThreads = int (*)(int);
  auto set = b.handle ? reinterpret_cast<SetThreads>(dlsym(b.handle.get(), "tl_set_num_threads")) : nullptr;
  if (set == nullptr) return;  // nothing to vary
  // Every shape past 2^22 multiply-adds, where the library starts threads:
  // decode, few rows, and (one in eight) the blocked path past 240 rows.
  const int path = *rc::gen::inRange(0, 8);
  const bool decode = path < 2;
  const int64_t M = decode      ? *rc::gen::inRange<int64_t>(4, 9)
                    : path == 7 ? *rc::gen::inRange<int64_t>(241, 251)
                                : *rc::gen::inRange<int64_t>(16, 25);
  const int64_t N = decode ? 1024 : *rc::gen::inRange<int64_t>(512, 601);
  const int64_t K = decode ? 1024 : *rc::gen::inRange<int64_t>(512, 601);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  const Floats x = ops::linalg::fast_operand(rng, M * K), w = ops::linalg::fast_operand(rng, N * K);
  const int before = set(1);
  const auto one = calls::linalg::matmul(b, x, w, M, N, K);
  set(2);
  const auto two = calls::linalg::matmul(b, x, w, M, N, K);
  set(before);
  for (size_t i = 0; i < one.size(); ++i) RC_ASSERT(same_bits(one[i], two[i]));
}

// ---------------------------------------------------------------- feed-forwards

// The feed-forward equals its composition from the backend's own Matmul:
// g = x Wg^T, u = x Wu^T, h = act(g) u (in double, rounded), y = h Wd^T. Both
// are within the op's limit of the exact result, so within twice of each other.
void ffn_composes(const Backend& b, const char* name, Gate act, int gelu) {
  const int64_t M = *rc::gen::inRange<int64_t>(1, 11), D = *rc::gen::inRange<int64_t>(1, 48);
  const int64_t H = *rc::gen::inRange<int64_t>(1, 64);
  // Unit-variance gates, as trained layers have: w ~ N(0, 1/cols).
  auto weights = [](int64_t rows, int64_t cols) { return seeded(rows * cols, 1.0f / std::sqrt(float(cols))); };
  const Floats x = seeded(M * D, 1.0f);
  const Floats wg = weights(H, D), wu = weights(H, D), wd = weights(D, H);
  const auto g = calls::linalg::matmul(b, x, wg, M, H, D);
  const auto u = calls::linalg::matmul(b, x, wu, M, H, D);
  Floats h(static_cast<size_t>(M * H));
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(reference::ffn::gate<double>(act, g[i]) * u[i]);
  const auto unfused = calls::linalg::matmul(b, h, wd, M, D, H);
  const auto y = calls::linalg::ffn(b, name, x, wg, wu, wd, M, D, H, gelu);
  const auto scale = ops::ffn_scale::output_scale(
      ops::ffn_scale::hidden_with_scale(x.data(), wg.data(), wu.data(), M, D, H, act), wd.data(), M, D, H);
  for (int64_t i = 0; i < M * D; ++i) RC_ASSERT(near(y[i], unfused[i], scale[i], 2 * limit_of(name)));
}

void swiglu_ffn_composes(const Backend& b) { ffn_composes(b, "SwiGlu_FFN", Gate::silu, 0); }
void glu_ffn_composes(const Backend& b) { ffn_composes(b, "Glu_FFN", Gate::sigmoid, 0); }
void geglu_ffn_composes(const Backend& b) {
  const bool tanh = *rc::gen::arbitrary<bool>();
  ffn_composes(b, "GeGlu_FFN", tanh ? Gate::gelu_tanh : Gate::gelu_erf, tanh ? 1 : 0);
}

// ---------------------------------------------------------------- fused ops

// The spec's "1e-4 (F32)" as an error relative to the element's scale.
bool within_spec(double fused, double unfused, double scale) {
  return std::fabs(fused - unfused) <= 1e-4 * std::fmax(scale, 1.17549435e-38);
}

// FusedNormMatmul(x) = Matmul(RmsNorm(x)) within 1e-4, RmsNorm rounded to
// float and Matmul the backend's own; rows small enough that eps matters
// come up too (eps inside the root, the norm before the matmul).
void fused_norm_matmul_matches_unfused(const Backend& b) {
  const int64_t M = *rc::gen::inRange<int64_t>(1, 20), N = *rc::gen::inRange<int64_t>(1, 50);
  const int64_t K = *rc::gen::inRange<int64_t>(1, 300);
  const float eps = *rc::gen::element(1e-5f, 1e-6f);
  Floats x = finite_floats(M * K);
  if (*rc::gen::arbitrary<bool>())
    for (float& v : x) v *= std::sqrt(eps) * 0x1p-20f;  // mean square at or below eps
  const Floats g = finite_floats(K), w = seeded(N * K, 1.0f);
  std::vector<double> z(static_cast<size_t>(M * K));
  reference::rmsnorm<double>(x.data(), g.data(), z.data(), M, K, eps);
  const Floats zf(z.begin(), z.end());
  const auto unfused = calls::linalg::matmul(b, zf, w, M, N, K);
  const auto fused = calls::linalg::fused_norm_matmul(b, x, g, w, M, N, K, eps);
  const auto scale = ops::linalg::dot_scale(z.data(), w.data(), M, N, K);
  for (int64_t i = 0; i < M * N; ++i) RC_ASSERT(within_spec(fused[i], unfused[i], scale[i]));
}

// x = [3, 4], norm_w = [1, 2], eps = 0: rms = 3.5355339, z = [0.8485281,
// 2.2627417]; W = [[1, 1], [1, -1]]: y = [3.1112698, -1.4142136].
void fused_norm_matmul_hand_example(const Backend& b) {
  const auto y = calls::linalg::fused_norm_matmul(b, {3, 4}, {1, 2}, {1, 1, 1, -1}, 1, 2, 2, 0.0f);
  const double scale = 0.8485281 + 2.2627417, limit = limit_of("FusedNormMatmul");  // sum |z w|
  RC_ASSERT(matches_printed(y[0], 3.1112698, scale, limit));
  RC_ASSERT(matches_printed(y[1], -1.4142136, scale, limit));
}

// FusedSwiGlu(x) = Silu(Matmul(x, Wg)) * Matmul(x, Wu) within 1e-4, the
// matmuls the backend's own.
void fused_swiglu_matches_unfused(const Backend& b) {
  const int64_t M = *rc::gen::inRange<int64_t>(1, 20), D = *rc::gen::inRange<int64_t>(1, 64);
  const int64_t H = *rc::gen::inRange<int64_t>(1, 80);
  const Floats x = seeded(M * D, 1.0f), wg = seeded(H * D, 1.0f / std::sqrt(float(D))),
               wu = seeded(H * D, 1.0f / std::sqrt(float(D)));
  const auto g = calls::linalg::matmul(b, x, wg, M, H, D);
  const auto u = calls::linalg::matmul(b, x, wu, M, H, D);
  const auto h = calls::linalg::fused_swiglu(b, x, wg, wu, M, D, H);
  const auto hid = ops::ffn_scale::hidden_with_scale(x.data(), wg.data(), wu.data(), M, D, H, Gate::silu);
  for (int64_t i = 0; i < M * H; ++i)
    RC_ASSERT(within_spec(h[i], reference::ffn::silu<double>(g[i]) * u[i], hid.scale[i]));
}

}  // namespace

namespace props {

std::vector<Property> linalg_properties() {
  return {
      {"hand_example", "Matmul", "unit", matmul_hand_example},
      {"matmul_exact_on_small_integers", "Matmul", "property", matmul_exact_on_small_integers},
      {"matmul_empty_sum_and_identity", "Matmul", "boundary", matmul_empty_sum_and_identity},
      {"matmul_rows_are_batch_invariant", "Matmul", "property", matmul_rows_are_batch_invariant},
      {"matmul_threads_do_not_change_bits", "Matmul", "property", matmul_threads_do_not_change_bits},
      {"swiglu_ffn_composes", "SwiGlu_FFN", "property", swiglu_ffn_composes},
      {"geglu_ffn_composes", "GeGlu_FFN", "property", geglu_ffn_composes},
      {"glu_ffn_composes", "Glu_FFN", "property", glu_ffn_composes},
      {"hand_example", "FusedNormMatmul", "unit", fused_norm_matmul_hand_example},
      {"fused_norm_matmul_matches_unfused", "FusedNormMatmul", "property", fused_norm_matmul_matches_unfused},
      {"fused_swiglu_matches_unfused", "FusedSwiGlu", "property", fused_swiglu_matches_unfused},
  };
}

}  // namespace props

}  // namespace konform
