// Q4_K's encoder on the device (quantize.cuh's helpers): the oracle's
// quantize_q4_k_block and its make_qkx2 search (reference/konform/reference/
// quant.hpp), each float operation in the same order, so the same bits.
#pragma once

#include <cstdint>

namespace konform::cuda {

// The best affine grid of 15 levels for 32 values: 21 trial scales, each
// fitted by weighted least squares, the least weighted error kept. Returns
// the scale; *neg_min = -min (>= 0); q gets the levels.
__device__ inline float q4_k_fit(const float* x, const float* w, uint8_t* q, float* neg_min) {
  constexpr int n = 32, nmax = 15, nstep = 20;
  constexpr float rmin = -1.0f, rdelta = 0.1f;
  float min = x[0], max = x[0], sum_w = w[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    sum_w += w[i];
    sum_x += w[i] * x[i];
  }
  if (min > 0) min = 0;
  float iscale = static_cast<float>(nmax) / (max - min);
  if (max == min || !isfinite(iscale)) {  // flat, or 15 / range overflows (finite_or_zero)
    for (int i = 0; i < n; ++i) q[i] = 0;
    *neg_min = -min;
    return 0.0f;
  }
  float scale = 1 / iscale, best_error = 0;
  for (int i = 0; i < n; ++i) {
    q[i] = static_cast<uint8_t>(clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax));
    float diff = scale * static_cast<float>(q[i]) + min - x[i];
    diff = diff * diff;
    best_error += w[i] * diff;
  }
  uint8_t trial[n];
  for (int step = 0; step <= nstep; ++step) {
    iscale = (rmin + rdelta * static_cast<float>(step) + static_cast<float>(nmax)) / (max - min);
    if (!isfinite(iscale)) continue;  // a grid of Inf levels is not tried
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
      trial[i] = static_cast<uint8_t>(l);
      const float fl = static_cast<float>(l);
      sum_l += w[i] * fl;
      sum_l2 += w[i] * fl * fl;
      sum_xl += w[i] * fl * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (!(D > 0)) continue;
    float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
    float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sum_xl / sum_l2;
    }
    float error = 0;
    for (int i = 0; i < n; ++i) {
      float diff = this_scale * static_cast<float>(trial[i]) + this_min - x[i];
      diff = diff * diff;
      error += w[i] * diff;
    }
    if (error < best_error) {
      for (int i = 0; i < n; ++i) q[i] = trial[i];
      best_error = error;
      scale = this_scale;
      min = this_min;
    }
  }
  *neg_min = -min;
  return scale;
}

struct QuantizeQ4_K : Q4_K {
  __device__ void operator()(const float* x, uint8_t* out) const {
    uint8_t levels[256];
    float scales[8], mins[8], max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; ++j) {
      const float* xs = x + 32 * j;
      float sum_x2 = 0;
      for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
      const float av_x = sqrtf(sum_x2 / 32);
      float w[32];
      for (int l = 0; l < 32; ++l) w[l] = av_x + fabsf(xs[l]);
      scales[j] = q4_k_fit(xs, w, levels + 32 * j, &mins[j]);
      if (scales[j] > max_scale) max_scale = scales[j];
      if (mins[j] > max_min) max_min = mins[j];
    }
    const float inv_scale = max_scale > 0 ? finite_or_zero(63.0f / max_scale) : 0.0f;
    const float inv_min = max_min > 0 ? finite_or_zero(63.0f / max_min) : 0.0f;
    uint8_t* packed = out + 4;
    for (int j = 0; j < 8; ++j) {
      // As ggml: the int becomes a uint8_t (mod 256) before the clamp to 63.
      const uint8_t ls0 = static_cast<uint8_t>(nearest_int(inv_scale * scales[j]));
      const uint8_t lm0 = static_cast<uint8_t>(nearest_int(inv_min * mins[j]));
      const uint8_t ls = ls0 < 63 ? ls0 : 63, lm = lm0 < 63 ? lm0 : 63;
      if (j < 4) {
        packed[j] = ls;
        packed[j + 4] = lm;
      } else {
        packed[j + 4] = static_cast<uint8_t>((ls & 15) | ((lm & 15) << 4));
        packed[j - 4] = static_cast<uint8_t>(packed[j - 4] | ((ls >> 4) << 6));
        packed[j] = static_cast<uint8_t>(packed[j] | ((lm >> 4) << 6));
      }
    }
    store_f16(out, max_scale / 63.0f);
    store_f16(out + 2, max_min / 63.0f);
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      q4_k_scale_min(j, packed, &sc, &m);
      const float d = f16_at(out) * static_cast<float>(sc), dm = f16_at(out + 2) * static_cast<float>(m);
      if (d == 0) continue;  // the sub-block keeps its fitted levels
      for (int i = 32 * j; i < 32 * j + 32; ++i) levels[i] = static_cast<uint8_t>(clamp_int(nearest_int((x[i] + dm) / d), 0, 15));
    }
    for (int c = 0; c < 4; ++c)
      for (int l = 0; l < 32; ++l)
        out[16 + 32 * c + l] = static_cast<uint8_t>(levels[64 * c + l] | (levels[64 * c + 32 + l] << 4));
  }
};

}  // namespace konform::cuda
