// libtl_kernels' Softmax over half tensors (f16, bf16) on every SIMD target,
// bit for bit against the f32 Softmax on the widened values rounded by the
// library's cast: the contract of the half twins (docs/ops-activations.md).
// Along the last axis the twins run the f32 kernel's passes on the half line
// widened in the registers, so a pass that reads one value wrong, or sums in
// another order, shows here as a differing bit; along another axis they
// widen whole slices. Lengths cross the vector widths, the 4-vector steps
// and the 8-step chunks of the sum; some values are -inf (masked) and some
// lines all -inf (NaN, any NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "konform/rng.hpp"
#include "tests/half_values.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/dispatch.h"
#include "tinyllm/tensor.h"

namespace {

struct Half {
  const char* name;
  tl_status (*softmax)(const uint16_t*, uint16_t*, const int64_t*, int, int);
  void (*narrow)(const float*, uint16_t*, int64_t);
  void (*widen)(const uint16_t*, float*, int64_t);
};

const Half kHalves[] = {{"f16", tl_softmax_f16, tl_cast_f32_to_f16, tl_cast_f16_to_f32},
                        {"bf16", tl_softmax_bf16, tl_cast_f32_to_bf16, tl_cast_bf16_to_f32}};

TEST(HalfSoftmax, IsTheF32SoftmaxOnTheWidenedValuesOnEveryTarget) {
  konform::Rng rng(20261207);
  const float inf = std::numeric_limits<float>::infinity();
  int cases = 0;
  for (int t = 0; t < tl_simd_target_count(); ++t) {
    const std::string target = tl_simd_target_name(t);
    ASSERT_EQ(tl_simd_force_target(target.c_str()), 0) << target;
    for (const Half& h : kHalves)
      for (int64_t outer : {1, 3})
        for (int64_t length : {1, 7, 15, 16, 17, 63, 64, 65, 100, 512, 513, 1000, 2049})
          for (int64_t inner : {1, 3}) {
            const int64_t n = outer * length * inner;
            std::vector<float> f(static_cast<size_t>(n));
            for (auto& v : f) v = rng.chance(0.05) ? -inf : static_cast<float>(rng.uniform(-8.0, 8.0));
            if (outer == 3 && length == 7)  // a line all -inf: 0 / 0
              for (int64_t k = 0; k < length * inner; ++k) f[static_cast<size_t>(k)] = -inf;
            std::vector<uint16_t> x(f.size()), got(f.size()), want(f.size());
            h.narrow(f.data(), x.data(), n);
            const auto xf = konform::test::widened(h.widen, x);
            std::vector<float> yf(f.size());
            const int64_t shape[3] = {outer, length, inner};
            ASSERT_EQ(h.softmax(x.data(), got.data(), shape, 3, 1), TL_OK);
            ASSERT_EQ(tl_softmax_f32(xf.data(), yf.data(), shape, 3, 1), TL_OK);
            h.narrow(yf.data(), want.data(), n);
            const auto gf = konform::test::widened(h.widen, got);
            for (size_t i = 0; i < got.size(); ++i) {
              if (std::isnan(yf[i]) && std::isnan(gf[i])) continue;
              ASSERT_EQ(got[i], want[i]) << target << " " << h.name << " [" << outer << ", " << length << ", " << inner
                                         << "], index " << i;
            }
            // In place (y == x) gives the same bits.
            ASSERT_EQ(h.softmax(x.data(), x.data(), shape, 3, 1), TL_OK);
            EXPECT_EQ(x, got) << target << " " << h.name << " in place, [" << outer << ", " << length << ", " << inner
                              << "]";
            ++cases;
          }
  }
  tl_simd_force_target(nullptr);
  EXPECT_GT(cases, 0);
}

}  // namespace
