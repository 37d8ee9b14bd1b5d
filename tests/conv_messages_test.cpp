// The conv family's refusals name the caller's own argument: Pool and
// DepthwiseConv take one channel count, C, where Conv takes C_in and C_out
// (docs/ops-conv.md, "Every function validates").
#include <gtest/gtest.h>

#include <string>

#include "tinyllm/conv.h"
#include "tinyllm/status.h"

namespace {

const int64_t kIn[2] = {4, 4}, kKernel[2] = {2, 2}, kOnes[2] = {1, 1}, kZeros[2] = {0, 0};
float x[64], w[64], y[64];

TEST(ConvMessages, PoolNamesC) {
  EXPECT_EQ(tl_pool_f32(x, y, 1, 0, kIn, kKernel, nullptr, nullptr, TL_POOL_MAX), TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tl_last_error()), "tl_pool_f32: C = 0 is below 1");
}

TEST(ConvMessages, DepthwiseNamesC) {
  EXPECT_EQ(tl_depthwise_conv2d_f32(x, w, nullptr, y, 1, -3, kIn, kKernel, kOnes, kZeros, kOnes),
            TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tl_last_error()), "tl_depthwise_conv2d_f32: C = -3 is below 1");
}

TEST(ConvMessages, ConvNamesCIn) {
  EXPECT_EQ(tl_conv_f32(x, w, nullptr, y, 1, 0, 1, 1, 2, kIn, kKernel, kOnes, kZeros, kOnes), TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tl_last_error()), "tl_conv_f32: C_in = 0 is below 1");
}

}  // namespace
