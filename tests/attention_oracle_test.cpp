// The oracle of the attention ops (reference/konform/reference/attention.hpp)
// tested like anything else (docs/design.md, "The oracle"):
//  - worked examples, in the double and the float instantiation;
//  - the double oracle (Sdpa, and FlashAttention's online softmax) against
//    the same templates on a 50-digit float, on the sweep's kinds of scores
//    (N(0, 1), spread to +-1e3, -1e4 masks, GQA, causal with Sq != Sk): within
//    64 units of 2^-53 of the harness's own scale for the element
//    (sum_j p_j (|v_j| + E_j |v_j - y|)), so the double oracle is at least
//    2^-23 times finer than one f32 roundoff of it.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "konform/reference/attention.hpp"
#include "konform/rng.hpp"

namespace {

namespace ref = konform::reference::attn;
using Big = boost::multiprecision::cpp_bin_float_50;
using konform::Rng;

// q = (2, 0, 0, 0), scale 1/2: scores 0 and ln 3, p = (1/4, 3/4),
// y = (1, 2) / 4 + 3 (5, -2) / 4 = (4, -1).
template <typename T>
void two_keys() {
  const float q[] = {2, 0, 0, 0}, k[] = {0, 0, 0, 0, 1.0986122886681098f, 0, 0, 0}, v[] = {1, 2, 0, 0, 5, -2, 0, 0};
  T y[4];
  ref::sdpa<T>(q, k, v, nullptr, y, ref::Dims{1, 1, 1, 1, 2, 4}, false, ref::kMaskNone);
  EXPECT_NEAR(double(y[0]), 4.0, 16 * 0x1p-24);
  EXPECT_NEAR(double(y[1]), -1.0, 16 * 0x1p-24);
  EXPECT_EQ(double(y[2]), 0.0);
  T f[4];
  ref::flash_attention<T>(q, k, v, nullptr, f, ref::Dims{1, 1, 1, 1, 2, 4}, false, ref::kMaskNone, 1);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(double(f[i]), double(y[i]), 16 * 0x1p-24) << i;
}
TEST(AttentionWorkedExample, TwoKeysDouble) { two_keys<double>(); }
TEST(AttentionWorkedExample, TwoKeysFloat) { two_keys<float>(); }

// Causal with Sq = 2 < Sk = 3: query 0 sits at position 1 and sees keys 0, 1;
// with equal scores it averages their values; query 1 averages all three.
TEST(AttentionWorkedExample, CausalOffsetAndGqa) {
  const float q[] = {0, 0, 0, 0}, k[] = {1, 2, 3}, v[] = {3, 6, 30};
  double y[4];
  // two query heads share the one KV head (D = 1)
  ref::sdpa<double>(q, k, v, nullptr, y, ref::Dims{1, 2, 1, 2, 3, 1}, true, ref::kMaskNone);
  EXPECT_NEAR(y[0], 4.5 + 25.5 * std::exp(-1e4), 1e-12);
  EXPECT_NEAR(y[1], 13.0, 1e-12);
  EXPECT_EQ(y[2], y[0]);
  EXPECT_EQ(y[3], y[1]);
}

// A row whose every key is masked: -1e4 added to each score, a finite result.
TEST(AttentionWorkedExample, FullyMaskedRowIsFinite) {
  // Sq = 3 queries over Sk = 2 keys: query 0 sees none (every key is after it).
  const float q[] = {1, 1, 1}, k[] = {1, -1}, v[] = {2, 4};
  float y[3];
  ref::sdpa<float>(q, k, v, nullptr, y, ref::Dims{1, 1, 1, 3, 2, 1}, true, ref::kMaskNone);
  for (float e : y) EXPECT_TRUE(std::isfinite(e));
}

// ---------------------------------------------------------------- 50 digits

TEST(AttentionOracle, DoubleAgainst50Digits) {
  Rng rng(7);
  double worst = 0;
  for (int it = 0; it < 40; ++it) {
    ref::Dims n;
    n.batch = 1;
    n.kv_heads = rng.range(1, 2);
    n.heads = n.kv_heads * rng.range(1, 2);
    n.sk = rng.range(1, 70);
    n.sq = rng.range(1, 6);
    n.d = rng.range(1, 40);
    const bool causal = rng.chance(0.5);
    const int kind = static_cast<int>(rng.range(0, 4));
    const double spread = rng.chance(0.3) ? 30.0 : 1.0;
    std::vector<float> q(static_cast<size_t>(n.heads * n.sq * n.d)), k(static_cast<size_t>(n.kv_heads * n.sk * n.d)),
        v(k.size()), m(static_cast<size_t>(n.heads * n.sq * n.sk));
    for (auto& x : q) x = static_cast<float>(spread * (rng.unit() * 2 - 1));
    for (auto& x : k) x = static_cast<float>(spread * (rng.unit() * 2 - 1));
    for (auto& x : v) x = static_cast<float>(rng.unit() * 2 - 1);
    for (auto& x : m) x = rng.chance(0.3) ? -1e4f : static_cast<float>(rng.unit());
    std::vector<double> yd(q.size()), fd(q.size());
    std::vector<Big> yb(q.size());
    ref::sdpa<double>(q.data(), k.data(), v.data(), m.data(), yd.data(), n, causal, kind);
    ref::flash_attention<double>(q.data(), k.data(), v.data(), m.data(), fd.data(), n, causal, kind, 16);
    ref::sdpa<Big>(q.data(), k.data(), v.data(), m.data(), yb.data(), n, causal, kind);
    for (int64_t h = 0; h < n.heads; ++h)
      for (int64_t i = 0; i < n.sq; ++i) {
        const ref::Row r = ref::row_of(q.data(), k.data(), v.data(), m.data(), n, kind, causal, 0, h, i);
        const auto sc = ref::scores<double>(r, n, 0, n.sk);
        const auto p = ref::probabilities<double>(sc);
        double mx = sc[0];
        for (double x : sc) mx = std::max(mx, x);
        for (int64_t t = 0; t < n.d; ++t) {
          const size_t at = static_cast<size_t>((h * n.sq + i) * n.d + t);
          // The harness's scale (harness/ops/attention.cpp, row_oracle).
          double s = 0;
          for (int64_t j = 0; j < n.sk; ++j) {
            double dot = 0;
            for (int64_t u = 0; u < n.d; ++u) dot += std::fabs(double(r.q[u]) * double(r.k[j * n.d + u]));
            const double added = (causal && ref::causally_masked(n, i, j) ? 1e4 : 0.0) +
                                 (kind != 0 ? std::fabs(double(r.mask[j])) : 0.0);
            const double e = 1 + dot / std::sqrt(double(n.d)) + std::fabs(sc[static_cast<size_t>(j)]) +
                             std::fabs(sc[static_cast<size_t>(j)] - mx) + added;
            const double vj = r.v[j * n.d + t];
            s += p[static_cast<size_t>(j)] * (std::fabs(vj) + e * std::fabs(vj - yd[at]));
          }
          const double unit = std::ldexp(std::max(s, DBL_MIN), -53);
          const double e = static_cast<double>(abs(Big(yd[at]) - yb[at])) / unit;
          const double ef = static_cast<double>(abs(Big(fd[at]) - yb[at])) / unit;
          worst = std::max({worst, e, ef});
          EXPECT_LE(e, 64) << "sdpa it " << it << " at " << at;
          EXPECT_LE(ef, 64) << "flash it " << it << " at " << at;
        }
      }
  }
  RecordProperty("worst_units", std::to_string(worst));
}

}  // namespace
