// libtl_kernels' FlashAttention over a half cache (f16, bf16) on every SIMD
// target, bit for bit against the f32 kernel on the widened q, k and v with
// y rounded by the library's cast: the contract of the half twins
// (docs/ops-attention.md). Decode over a half cache takes its own score loop
// on AVX-512 (16 keys at a time, their horizontal sums in one shuffle tree
// that must give SumOfLanes' bits), which the f32 call does not take: a
// tree in another order, or a key of the 16 scored against another row,
// shows here as a differing bit. The shapes: D 64 and 128 (that loop) and
// 80 (the key-at-a-time loop), 1, 4 and 12 query rows a KV head, Sk across
// the 16-key groups and 64-key tiles, causal and masked.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "konform/rng.hpp"
#include "tests/half_values.hpp"
#include "tinyllm/attention.h"
#include "tinyllm/dispatch.h"
#include "tinyllm/tensor.h"

namespace {

struct Half {
  const char* name;
  tl_status (*flash)(const uint16_t*, const uint16_t*, const uint16_t*, const float*, uint16_t*, int64_t, int64_t,
                     int64_t, int64_t, int64_t, int64_t, int32_t, tl_attn_mask);
  void (*narrow)(const float*, uint16_t*, int64_t);
  void (*widen)(const uint16_t*, float*, int64_t);
};

const Half kHalves[] = {{"f16", tl_flash_attention_f16, tl_cast_f32_to_f16, tl_cast_f16_to_f32},
                        {"bf16", tl_flash_attention_bf16, tl_cast_f32_to_bf16, tl_cast_bf16_to_f32}};

// Values of the half type: uniform in [-2, 2), a few exact zeros.
std::vector<uint16_t> half_values(konform::Rng& rng, const Half& h, size_t n) {
  return konform::test::half_values(rng, h.narrow, n, 2.0);
}

std::vector<float> widened(const Half& h, const std::vector<uint16_t>& x) { return konform::test::widened(h.widen, x); }

TEST(HalfDecode, FlashAttentionIsTheF32KernelOnTheWidenedValuesOnEveryTarget) {
  konform::Rng rng(20261207);
  struct Heads {
    int64_t heads, kv_heads;
  };
  int shapes = 0;
  for (int t = 0; t < tl_simd_target_count(); ++t) {
    const std::string target = tl_simd_target_name(t);
    ASSERT_EQ(tl_simd_force_target(target.c_str()), 0) << target;
    for (const Half& h : kHalves)
      for (int64_t D : {64, 128, 80})
        for (Heads g : {Heads{32, 8}, Heads{8, 8}, Heads{12, 1}})
          for (int64_t sk : {1, 16, 47, 64, 200})
            for (int32_t causal : {0, 1})
              for (bool masked : {false, true}) {
                const int64_t sq = causal ? 2 : 1;
                const auto q = half_values(rng, h, static_cast<size_t>(g.heads * sq * D));
                const auto k = half_values(rng, h, static_cast<size_t>(g.kv_heads * sk * D));
                const auto v = half_values(rng, h, static_cast<size_t>(g.kv_heads * sk * D));
                std::vector<float> mask(static_cast<size_t>(g.heads * sq * sk));
                for (auto& m : mask) m = static_cast<float>(rng.uniform(-1.0, 1.0));
                const float* m = masked ? mask.data() : nullptr;
                const tl_attn_mask kind = masked ? TL_ATTN_MASK_FULL : TL_ATTN_MASK_NONE;
                std::vector<uint16_t> y(q.size()), want(q.size());
                std::vector<float> yf(q.size());
                ASSERT_EQ(
                    h.flash(q.data(), k.data(), v.data(), m, y.data(), 1, g.heads, g.kv_heads, sq, sk, D, causal, kind),
                    TL_OK);
                ASSERT_EQ(tl_flash_attention_f32(widened(h, q).data(), widened(h, k).data(), widened(h, v).data(), m,
                                                 yf.data(), 1, g.heads, g.kv_heads, sq, sk, D, causal, kind),
                          TL_OK);
                h.narrow(yf.data(), want.data(), static_cast<int64_t>(yf.size()));
                EXPECT_EQ(std::memcmp(y.data(), want.data(), y.size() * sizeof(uint16_t)), 0)
                    << target << " " << h.name << ": D " << D << ", " << g.heads << "/" << g.kv_heads << " heads, Sk "
                    << sk << ", causal " << causal << ", mask " << masked;
                ++shapes;
              }
  }
  tl_simd_force_target(nullptr);
  EXPECT_GT(shapes, 0);
}

}  // namespace
