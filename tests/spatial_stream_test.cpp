// libtl_kernels' PixelShuffle at outputs of 16 MiB and more, on every SIMD
// target: there the row kernel streams its output in chunks through a stack
// buffer (impl/simd/spatial_layout-inl.h), a path the op sweep's small
// cases and the properties' never reach. Bit for bit against the oracle's
// float template, rows past one chunk (512 columns) and of no whole number
// of vectors, buffers one float off alignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "konform/reference/spatial.hpp"
#include "tinyllm/dispatch.h"
#include "tinyllm/spatial.h"

namespace {

namespace ref = konform::reference::spatial;

TEST(SpatialStream, LargePixelShuffleMatchesTheOracleOnEveryTarget) {
  for (int t = 0; t < tl_simd_target_count(); ++t) {
    const std::string target = tl_simd_target_name(t);
    ASSERT_EQ(tl_simd_force_target(target.c_str()), 0) << target;
    for (int64_t r = 2; r <= 4; ++r) {
      const int64_t W = 1031, H = (int64_t{1} << 22) / (r * r * W) + 1;  // y just past 16 MiB
      const auto n = static_cast<size_t>(r * r * H * W);
      std::vector<float> x(n + 1), y(n + 1), want(n);
      for (size_t k = 0; k < n; ++k) x[k + 1] = float(k);
      ref::pixel_shuffle<float>(x.data() + 1, want.data(), {1, r * r, H, W, r, 0});
      ASSERT_EQ(tl_pixel_shuffle_f32(x.data() + 1, y.data() + 1, 1, r * r, H, W, r), TL_OK) << target;
      EXPECT_EQ(std::memcmp(y.data() + 1, want.data(), n * sizeof(float)), 0) << target << ", r = " << r;
    }
  }
  tl_simd_force_target(nullptr);
}

}  // namespace
