// libtl_kernels' Add, Sub, Mul and Div over half tensors (f16, bf16) on every
// SIMD target, bit for bit against the f32 op on the widened values rounded
// by the library's cast: the contract of the half twins (docs/ops-tensor.md).
// The flat calls take their own loops: a and b of one shape, b a scalar, and
// b a bias row, which is widened once for all the rows of a when it has at
// most 4096 columns (f16 a vector at a time, bf16 as even and odd values of
// 32-value steps), so an index into that buffer off by a step or a lane shows
// here as a differing bit. Columns cross the vector widths, the 32-value
// steps and the 4096-column buffer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "konform/rng.hpp"
#include "tests/half_values.hpp"
#include "tinyllm/dispatch.h"
#include "tinyllm/tensor.h"

namespace {

using Binary = tl_status (*)(const uint16_t*, const int64_t*, int64_t, const uint16_t*, const int64_t*, int64_t,
                             uint16_t*, const int64_t*, int64_t);
using BinaryF32 = tl_status (*)(const float*, const int64_t*, int64_t, const float*, const int64_t*, int64_t, float*,
                                const int64_t*, int64_t);

struct Half {
  const char* name;
  Binary ops[4];
  void (*narrow)(const float*, uint16_t*, int64_t);
  void (*widen)(const uint16_t*, float*, int64_t);
};

const char* const kOps[4] = {"add", "sub", "mul", "div"};
const BinaryF32 kF32[4] = {tl_add_broadcast_f32, tl_sub_broadcast_f32, tl_mul_broadcast_f32, tl_div_broadcast_f32};
const Half kHalves[] = {{"f16",
                         {tl_add_broadcast_f16, tl_sub_broadcast_f16, tl_mul_broadcast_f16, tl_div_broadcast_f16},
                         tl_cast_f32_to_f16,
                         tl_cast_f16_to_f32},
                        {"bf16",
                         {tl_add_broadcast_bf16, tl_sub_broadcast_bf16, tl_mul_broadcast_bf16, tl_div_broadcast_bf16},
                         tl_cast_f32_to_bf16,
                         tl_cast_bf16_to_f32}};

// Values of the half type: uniform in [-4, 4), a few exact zeros.
std::vector<uint16_t> half_values(konform::Rng& rng, const Half& h, int64_t n) {
  return konform::test::half_values(rng, h.narrow, static_cast<size_t>(n), 4.0);
}

std::vector<float> widened(const Half& h, const std::vector<uint16_t>& x) { return konform::test::widened(h.widen, x); }

TEST(HalfArith, FlatBroadcastsAreTheF32OpOnTheWidenedValuesOnEveryTarget) {
  konform::Rng rng(20261207);
  const int64_t kRows[] = {1, 3, 32};
  const int64_t kCols[] = {1, 15, 16, 17, 31, 32, 33, 100, 2049, 4096, 4097};
  int cases = 0;
  for (int t = 0; t < tl_simd_target_count(); ++t) {
    const std::string target = tl_simd_target_name(t);
    ASSERT_EQ(tl_simd_force_target(target.c_str()), 0) << target;
    for (const Half& h : kHalves)
      for (int64_t rows : kRows)
        for (int64_t cols : kCols)
          for (const char* b_kind : {"same", "row", "scalar"}) {
            const std::string kind = b_kind;
            // b as the flat plans take it: [rows, cols], [cols], [1].
            const int64_t a_shape[2] = {rows, cols};
            const int64_t b_rank = kind == "same" ? 2 : 1;
            const int64_t b_shape[2] = {kind == "same" ? rows : kind == "row" ? cols : 1, cols};
            const auto a = half_values(rng, h, rows * cols);
            const auto b = half_values(rng, h, b_rank == 2 ? rows * cols : b_shape[0]);
            const auto af = widened(h, a), bf = widened(h, b);
            for (int op = 0; op < 4; ++op) {
              std::vector<uint16_t> got(a.size()), want(a.size());
              std::vector<float> yf(a.size());
              ASSERT_EQ(h.ops[op](a.data(), a_shape, 2, b.data(), b_shape, b_rank, got.data(), a_shape, 2), TL_OK);
              ASSERT_EQ(kF32[op](af.data(), a_shape, 2, bf.data(), b_shape, b_rank, yf.data(), a_shape, 2), TL_OK);
              h.narrow(yf.data(), want.data(), static_cast<int64_t>(yf.size()));
              const auto gf = widened(h, got);
              for (size_t i = 0; i < got.size(); ++i) {
                if (std::isnan(yf[i]) && std::isnan(gf[i])) continue;  // 0 / 0: any NaN
                ASSERT_EQ(got[i], want[i]) << target << " " << h.name << " " << kOps[op] << " by " << kind << ", "
                                           << rows << " x " << cols << ", index " << i;
              }
              ++cases;
            }
          }
  }
  tl_simd_force_target(nullptr);
  EXPECT_GT(cases, 0);
}

}  // namespace
