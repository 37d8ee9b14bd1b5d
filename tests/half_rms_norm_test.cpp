// libtl_kernels' RmsNorm over half tensors (f16, bf16) on every SIMD target,
// bit for bit against the f32 RmsNorm on the widened values rounded by the
// library's cast: the contract of the half twins (docs/ops-norm.md). The
// twins take the f32 kernel's sum of squares on the row widened in the
// registers and round (x inv) g straight into y; bf16 with several rows
// writes y in 64-byte steps with the gain laid out as even and odd values
// once per call, so a gain value taken from the wrong place shows here as a
// differing bit. Widths cross the vector widths, the 32-value steps and the
// 4096-value gain buffer.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "konform/rng.hpp"
#include "tests/half_values.hpp"
#include "tinyllm/dispatch.h"
#include "tinyllm/norm.h"
#include "tinyllm/tensor.h"

namespace {

struct Half {
  const char* name;
  tl_status (*rms_norm)(const uint16_t*, const float*, uint16_t*, const int64_t*, int32_t, float);
  void (*narrow)(const float*, uint16_t*, int64_t);
  void (*widen)(const uint16_t*, float*, int64_t);
};

const Half kHalves[] = {{"f16", tl_rms_norm_f16, tl_cast_f32_to_f16, tl_cast_f16_to_f32},
                        {"bf16", tl_rms_norm_bf16, tl_cast_f32_to_bf16, tl_cast_bf16_to_f32}};

TEST(HalfRmsNorm, IsTheF32RmsNormOnTheWidenedValuesOnEveryTarget) {
  konform::Rng rng(20261207);
  int cases = 0;
  for (int t = 0; t < tl_simd_target_count(); ++t) {
    const std::string target = tl_simd_target_name(t);
    ASSERT_EQ(tl_simd_force_target(target.c_str()), 0) << target;
    for (const Half& h : kHalves)
      for (int64_t rows : {1, 2, 5})
        for (int64_t d : {1, 15, 16, 31, 32, 33, 100, 4096, 4097}) {
          const int64_t n = rows * d;
          auto x = konform::test::half_values(rng, h.narrow, static_cast<size_t>(n), 3.0);
          std::vector<float> g(static_cast<size_t>(d));
          for (auto& v : g) v = static_cast<float>(rng.uniform(-2.0, 2.0));
          const auto xf = konform::test::widened(h.widen, x);
          std::vector<float> yf(xf.size());
          std::vector<uint16_t> got(x.size()), want(x.size());
          const int64_t shape[2] = {rows, d};
          ASSERT_EQ(h.rms_norm(x.data(), g.data(), got.data(), shape, 2, 1e-5f), TL_OK);
          ASSERT_EQ(tl_rms_norm_f32(xf.data(), g.data(), yf.data(), shape, 2, 1e-5f), TL_OK);
          h.narrow(yf.data(), want.data(), n);
          for (size_t i = 0; i < got.size(); ++i)
            ASSERT_EQ(got[i], want[i]) << target << " " << h.name << " " << rows << " x " << d << ", index " << i;
          ASSERT_EQ(h.rms_norm(x.data(), g.data(), x.data(), shape, 2, 1e-5f), TL_OK);  // y == x
          EXPECT_EQ(x, got) << target << " " << h.name << " in place, " << rows << " x " << d;
          ++cases;
        }
  }
  tl_simd_force_target(nullptr);
  EXPECT_GT(cases, 0);
}

}  // namespace
