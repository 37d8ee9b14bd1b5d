// konform_simd_check: a quick self-check of libtl_kernels against the oracle
// templates, on every target the library can be forced to. Not the harness
// (that is harness/ and properties/): it exists so the SIMD kernels can be
// checked on their own, including on guard pages that fault on any access
// past an array's end. Prints the worst errors per kernel and target; exits 1
// on a failure.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "guarded_buffer.hpp"
#include "konform/reference/elementwise.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/dispatch.h"
#include "tinyllm/elementwise.h"

namespace {

using konform::bench::GuardedBuffer;
namespace ref = konform::reference;

constexpr double kU = 0x1p-24;  // the unit of the relative limits below
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

int g_failures = 0;

void Fail(const std::string& what) {
  if (++g_failures <= 20) std::printf("  FAIL %s\n", what.c_str());
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

std::mt19937_64 g_rng(20261130);

float Normal(float scale = 1.0f) { return std::normal_distribution<float>(0.0f, scale)(g_rng); }
float Uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(g_rng); }
int64_t Pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(g_rng); }

void FillNormal(float* p, size_t n, float scale) {
  for (size_t i = 0; i < n; ++i) p[i] = Normal(scale);
}

// ---------------------------------------------------------------- rmsnorm
double CheckRmsNorm() {
  std::vector<int64_t> widths;
  for (int64_t d = 1; d <= 70; ++d) widths.push_back(d);
  for (int64_t d : {127, 128, 129, 255, 256, 257, 511, 1000, 1023, 1024, 1025, 4095, 4096, 4097, 11007, 11008})
    widths.push_back(d);
  const float scales[] = {1.0f, 1e-3f, 1e3f, 1e20f, 1e-25f};
  const float epsilons[] = {1e-6f, 1e-5f, 0.0f};
  double worst = 0;
  for (int64_t d : widths) {
    for (int trial = 0; trial < 4; ++trial) {
      const int64_t rows = 1 + Pick(0, 4);
      const float scale = scales[Pick(0, trial == 0 ? 2 : 4)];
      const float eps = epsilons[Pick(0, 2)];
      const size_t n = static_cast<size_t>(rows * d);
      GuardedBuffer x(n), w(static_cast<size_t>(d)), y(n);
      FillNormal(x.data(), n, scale);
      FillNormal(w.data(), static_cast<size_t>(d), 1.0f);
      if (trial == 2) std::fill(x.data(), x.data() + d, 0.0f);          // a zero row
      if (trial == 3) std::fill(x.data(), x.data() + n, Normal(1.0f));  // same rounding every add
      tl_rmsnorm_f32(x.data(), w.data(), y.data(), rows, d, eps);
      std::vector<double> want(n);
      ref::rmsnorm<double>(x.data(), w.data(), want.data(), rows, d, eps);
      for (size_t i = 0; i < n; ++i) {
        const double err = std::isnan(want[i]) ? (std::isnan(y[i]) ? 0 : 1e9)
                           : want[i] == 0      ? (y[i] == 0 ? 0 : 1e9)
                                               : std::fabs(y[i] - want[i]) / std::fabs(want[i]) / kU;
        if (!(err <= worst)) worst = std::isnan(err) ? 1e9 : err;
      }
      // Batch invariance: each row alone gives the same bits.
      for (int64_t r = 0; r < rows; ++r) {
        GuardedBuffer one(static_cast<size_t>(d));
        tl_rmsnorm_f32(x.data() + r * d, w.data(), one.data(), 1, d, eps);
        if (std::memcmp(one.data(), y.data() + r * d, sizeof(float) * d) != 0)
          Fail("rmsnorm row alone differs from the batch, d=" + std::to_string(d));
      }
      // In place.
      GuardedBuffer inplace(n);
      std::memcpy(inplace.data(), x.data(), sizeof(float) * n);
      tl_rmsnorm_f32(inplace.data(), w.data(), inplace.data(), rows, d, eps);
      if (std::memcmp(inplace.data(), y.data(), sizeof(float) * n) != 0)
        Fail("rmsnorm in place differs, d=" + std::to_string(d));
      if (!x.canary_intact() || !y.canary_intact()) Fail("rmsnorm wrote before an array");
    }
  }
  if (worst > 16) Fail("rmsnorm relative error " + std::to_string(worst) + " u");
  return worst;
}

// ---------------------------------------------------------------- rope
struct RopeWorst {
  double err = 0;           // |y - oracle| / (mu * |pair|), units of 2^-24
  int64_t diff_scalar = 0;  // elements whose bits differ from the scalar backend
  int64_t elements = 0;
};

void RopeCase(int64_t T, int64_t H, int64_t D, int64_t d_rot, float mu, int layout, const std::vector<int32_t>& pos,
              const std::vector<float>& inv_freq_in, RopeWorst* worst) {
  const size_t n = static_cast<size_t>(T * H * D);
  GuardedBuffer x(n), inv_freq(static_cast<size_t>(d_rot / 2));
  std::memcpy(inv_freq.data(), inv_freq_in.data(), sizeof(float) * inv_freq.size());
  FillNormal(x.data(), n, 1.0f);
  std::vector<float> x0(x.data(), x.data() + n), scalar(x0);
  std::vector<double> want(n);
  ref::rope<double>(x0.data(), want.data(), pos.data(), T, H, D, d_rot, inv_freq.data(), mu, layout);
  tl_rope_f32(x.data(), pos.data(), T, H, D, d_rot, inv_freq.data(), mu, layout);
  konform::scalar::rope_f32(scalar.data(), pos.data(), T, H, D, d_rot, inv_freq.data(), mu, layout);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t base = (t * H + h) * D;
      for (int64_t i = 0; i < d_rot / 2; ++i) {
        int64_t ia, ib;
        ref::rope_pair(layout, d_rot, i, &ia, &ib);
        const double norm = std::hypot(double(x0[base + ia]), double(x0[base + ib])) * std::fabs(mu);
        for (int64_t k : {ia, ib}) {
          const double err =
              norm == 0 ? (x[base + k] == 0 ? 0 : 1e9) : std::fabs(x[base + k] - want[base + k]) / norm / kU;
          if (!(err <= worst->err)) worst->err = std::isnan(err) ? 1e9 : err;
        }
      }
      for (int64_t k = d_rot; k < D; ++k)
        if (!SameBits(x[base + k], x0[base + k])) Fail("rope touched the tail past d_rot");
      if (pos[t] == 0 && mu == 1.0f)
        for (int64_t k = 0; k < D; ++k)
          if (!(x[base + k] == x0[base + k])) Fail("rope at position 0 is not the identity");
    }
  for (size_t k = 0; k < n; ++k) worst->diff_scalar += !SameBits(x[k], scalar[k]);
  worst->elements += static_cast<int64_t>(n);
  if (!x.canary_intact()) Fail("rope wrote before x");
}

std::vector<float> InvFreq(int64_t d_rot, bool random) {
  std::vector<float> f(static_cast<size_t>(d_rot / 2));
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = random ? Uniform(1e-4f, 1.0f) : static_cast<float>(std::pow(10000.0, -2.0 * double(i) / double(d_rot)));
  return f;
}

RopeWorst CheckRope() {
  RopeWorst worst;
  std::vector<int64_t> heads_width;
  for (int64_t D = 2; D <= 40; D += 2) heads_width.push_back(D);
  for (int64_t D : {64, 96, 128, 130, 256}) heads_width.push_back(D);
  const float mus[] = {1.0f, 2.0f, 0.7f};
  for (int layout : {0, 1})
    for (int64_t D : heads_width)
      for (int trial = 0; trial < 3; ++trial) {
        const int64_t d_rot = trial == 0 ? D : 2 * Pick(1, D / 2);
        const int64_t T = Pick(1, 3), H = Pick(1, 5);
        std::vector<int32_t> pos(static_cast<size_t>(T));
        for (auto& p : pos) p = static_cast<int32_t>(Pick(0, 1 << 20));
        if (trial == 0) pos[0] = 0;
        if (trial == 1) pos[0] = static_cast<int32_t>(Pick(0, 600));
        RopeCase(T, H, D, d_rot, mus[trial == 0 ? 0 : Pick(0, 2)], layout, pos, InvFreq(d_rot, trial == 2), &worst);
      }
  if (worst.err > 8) Fail("rope error " + std::to_string(worst.err) + " u of the pair's norm");
  return worst;
}

// cos and sin as the kernel forms them: x = (1, 0) pairs rotate to exactly
// (cos, sin). Worst absolute error against double cos/sin of the float angle.
double CheckRopeCosSin() {
  double worst = 0;
  const int64_t half = 37;  // not a multiple of any vector width
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t T = 8;
    std::vector<int32_t> pos(T);
    const int32_t top = trial % 4 == 0 ? (1 << 20) : trial % 4 == 1 ? 40000 : trial % 4 == 2 ? 20000 : 600;
    for (auto& p : pos) p = static_cast<int32_t>(Pick(0, top));
    std::vector<float> f = InvFreq(2 * half, trial % 2 == 0);
    if (trial % 3 == 0) f[0] = 1.0f;
    std::vector<float> x(static_cast<size_t>(T * 2 * half), 0.0f);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < half; ++i) x[t * 2 * half + i] = 1.0f;
    tl_rope_f32(x.data(), pos.data(), T, 1, 2 * half, 2 * half, f.data(), 1.0f, 0);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < half; ++i) {
        const double theta = ref::rope_angle(pos[t], f[i]);
        const double ec = std::fabs(x[t * 2 * half + i] - std::cos(theta)) / kU;
        const double es = std::fabs(x[t * 2 * half + half + i] - std::sin(theta)) / kU;
        worst = std::fmax(worst, std::fmax(ec, es));
      }
  }
  if (worst > 4) Fail("rope cos/sin error " + std::to_string(worst) + " units of 2^-24");
  return worst;
}

// ---------------------------------------------------------------- silu_mul
double UlpsOff(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want) || std::isinf(got)) return got == static_cast<float>(want) ? 0 : 1e9;
  const float wf = static_cast<float>(want);
  const int e = wf == 0 ? -149 : std::max(std::ilogb(wf) - 23, -149);
  return std::fabs(double(got) - want) / std::ldexp(1.0, e);
}

double CheckSiluMul() {
  const float specials[] = {0.0f,   -0.0f,   1.0f,    -1.0f,  100.0f, -100.0f, -1e4f, 1e4f,  88.0f, -88.0f, -88.8f,
                            -89.0f, -103.0f, -104.5f, 104.5f, 1e-40f, -1e-40f, kInf,  -kInf, kNaN,  3e38f,  -3e38f};
  double worst = 0;
  std::vector<int64_t> sizes;
  for (int64_t n = 0; n <= 70; ++n) sizes.push_back(n);
  sizes.push_back(1000);
  sizes.push_back(4099);
  for (int64_t n : sizes)
    for (int trial = 0; trial < 3; ++trial) {
      GuardedBuffer g(static_cast<size_t>(n)), u(static_cast<size_t>(n)), y(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const int kind = static_cast<int>(Pick(0, 9));
        g[i] = kind < 5   ? Normal(4.0f)
               : kind < 8 ? Uniform(-120.0f, 120.0f)
                          : specials[Pick(0, std::size(specials) - 1)];
        u[i] = Pick(0, 20) == 0 ? specials[Pick(0, 7)] : Normal(2.0f);
      }
      tl_silu_mul_f32(g.data(), u.data(), y.data(), n);
      std::vector<double> want(static_cast<size_t>(n));
      ref::silu_mul<double>(g.data(), u.data(), want.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        // Past g = -88.7 exp(-g) is +inf in float and the float form returns
        // -0 * u where double still has ~1e-37: the contract's saturation, so
        // errors are measured in ulps only where |want| is above 1e-30.
        const double e = std::fabs(want[i]) < 1e-30 ? std::fabs(y[i]) / 1e-30 : UlpsOff(y[i], want[i]);
        if (e > worst) {
          worst = e;
          if (e > 4) std::printf("  silu g=%g u=%g y=%g want=%g\n", g[i], u[i], y[i], want[i]);
        }
        // The limits, bit for bit with the float oracle: -0 * u and g * u.
        if (g[i] == -1e4f || g[i] == 100.0f || g[i] == -100.0f) {
          const float f = ref::silu(g[i]) * u[i];
          if (!SameBits(y[i], f) && !(std::isnan(f) && std::isnan(y[i])))
            Fail("silu_mul limit at g=" + std::to_string(g[i]));
        }
      }
      if (!y.canary_intact()) Fail("silu_mul wrote before y");
    }
  // A dense sweep of the gate with u = 1: the exp over its whole range.
  const int64_t n = 200001;
  GuardedBuffer g(n), u(n), y(n);
  for (int64_t i = 0; i < n; ++i) g[i] = -110.0f + 220.0f * float(i) / float(n - 1), u[i] = 1.0f;
  tl_silu_mul_f32(g.data(), u.data(), y.data(), n);
  std::vector<double> want(n);
  ref::silu_mul<double>(g.data(), u.data(), want.data(), n);
  for (int64_t i = 0; i < n; ++i)
    if (std::fabs(want[i]) >= 1e-30) worst = std::fmax(worst, UlpsOff(y[i], want[i]));
  if (worst > 4) Fail("silu_mul error " + std::to_string(worst) + " ulp");
  return worst;
}

// ---------------------------------------------------------------- embedding, add
void CheckEmbeddingAndAdd() {
  for (int64_t d : {1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 33, 64, 67, 4096}) {
    const int64_t V = 23, n = 9;
    GuardedBuffer table(static_cast<size_t>(V * d)), out(static_cast<size_t>(n * d));
    for (size_t i = 0; i < table.size(); ++i) {
      uint32_t bits = static_cast<uint32_t>(g_rng());
      if (i % 5 == 0) bits |= 0x7f800001u;  // NaN with a payload (some signaling)
      std::memcpy(&table[i], &bits, sizeof bits);
    }
    std::vector<int32_t> ids = {3, 0, 22, 3, 3, 7, 1, 22, 0};
    tl_embedding_f32(table.data(), ids.data(), out.data(), n, d);
    for (int64_t t = 0; t < n; ++t)
      if (std::memcmp(out.data() + t * d, table.data() + ids[t] * d, sizeof(float) * d) != 0)
        Fail("embedding row differs, d=" + std::to_string(d));
    if (!out.canary_intact()) Fail("embedding wrote before out");
  }
  for (int64_t n = 0; n <= 300; n += (n < 70 ? 1 : 37)) {
    GuardedBuffer a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    FillNormal(a.data(), a.size(), 1e3f);
    FillNormal(b.data(), b.size(), 1.0f);
    if (n > 3) a[2] = kInf, b[3] = kNaN;
    tl_add_f32(a.data(), b.data(), y.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const float want = a[i] + b[i];
      if (!SameBits(y[i], want) && !(std::isnan(want) && std::isnan(y[i])))
        Fail("add differs at n=" + std::to_string(n));
    }
    std::vector<float> y0(y.data(), y.data() + n);
    tl_add_f32(a.data(), b.data(), a.data(), n);  // y == a
    if (n > 0 && std::memcmp(a.data(), y0.data(), sizeof(float) * n) != 0) Fail("add in place differs");
    if (!y.canary_intact() || !a.canary_intact()) Fail("add wrote before an array");
  }
}

// ---------------------------------------------------------------- argmax
void ArgmaxCase(const std::vector<float>& v, const char* what) {
  GuardedBuffer x(v.size());
  if (!v.empty()) std::memcpy(x.data(), v.data(), sizeof(float) * v.size());
  const int32_t got = tl_argmax_f32(x.data(), static_cast<int64_t>(v.size()));
  const int32_t want = ref::argmax(v.data(), static_cast<int64_t>(v.size()));
  if (got != want)
    Fail(std::string("argmax ") + what + " n=" + std::to_string(v.size()) + ": got " + std::to_string(got) + ", want " +
         std::to_string(want));
}

void CheckArgmax() {
  ArgmaxCase({}, "empty");
  ArgmaxCase({2, 7, 7, -1}, "hand example");
  std::vector<int64_t> sizes;
  for (int64_t n = 1; n <= 300; ++n) sizes.push_back(n);
  for (int64_t n : {1023, 1024, 1025, 2047, 2048, 2049, 32000, 128256, 128257, 200003}) sizes.push_back(n);
  const float pool[] = {-1.0f, 0.0f, -0.0f, 1.0f, 2.0f, kNaN, -kInf, kInf};
  for (int64_t n : sizes) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& e : v) e = Normal(1.0f);
    ArgmaxCase(v, "normal");
    for (auto& e : v) e = pool[Pick(0, 4)];  // ties and signed zeros
    ArgmaxCase(v, "ties");
    for (auto& e : v) e = Pick(0, 3) == 0 ? kNaN : pool[Pick(0, 2)];  // zeros, -1, NaN
    ArgmaxCase(v, "zeros and NaN");
    for (auto& e : v) e = Pick(0, 2) == 0 ? kNaN : -kInf;
    ArgmaxCase(v, "-inf and NaN");
    std::fill(v.begin(), v.end(), kNaN);
    ArgmaxCase(v, "all NaN");
    std::fill(v.begin(), v.end(), -kInf);
    ArgmaxCase(v, "all -inf");
    v.back() = -1.0f;
    ArgmaxCase(v, "max last");
    for (auto& e : v) e = Pick(0, 9) == 0 ? kNaN : pool[Pick(0, 7)];
    ArgmaxCase(v, "everything");
    std::fill(v.begin(), v.end(), kNaN);
    v[static_cast<size_t>(Pick(0, n - 1))] = -kInf;
    ArgmaxCase(v, "one -inf among NaN");
  }
}

void CheckAll(const char* target) {
  const int before = g_failures;
  const double rms = CheckRmsNorm();
  const RopeWorst rope = CheckRope();
  const double cs = CheckRopeCosSin();
  const double silu = CheckSiluMul();
  CheckEmbeddingAndAdd();
  CheckArgmax();
  std::printf(
      "%-7s rmsnorm %.2f u | rope %.2f u of |pair| (%.1f%% of elements differ from scalar), "
      "cos/sin %.2f x 2^-24 | silu_mul %.2f ulp | embedding, add, argmax exact | %s\n",
      target, rms, rope.err, 100.0 * double(rope.diff_scalar) / double(rope.elements), cs, silu,
      g_failures == before ? "ok" : "FAILED");
}

}  // namespace

int main() {
  std::printf("targets:");
  for (int i = 0; i < tl_simd_target_count(); ++i) std::printf(" %s", tl_simd_target_name(i));
  std::printf("\n");
  for (int i = 0; i < tl_simd_target_count(); ++i) {
    const char* name = tl_simd_target_name(i);
    if (tl_simd_force_target(name) != 0 || std::strcmp(tl_simd_active_target(), name) != 0) {
      Fail(std::string("cannot force ") + name);
      continue;
    }
    CheckAll(name);
  }
  tl_simd_force_target(nullptr);
  if (std::strcmp(tl_simd_active_target(), tl_simd_target_name(0)) != 0) Fail("reset to the best");
  std::printf("%s\n", g_failures == 0 ? "all ok" : "FAILURES");
  return g_failures == 0 ? 0 : 1;
}
