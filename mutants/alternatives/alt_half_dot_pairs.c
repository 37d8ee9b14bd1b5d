/* alt_half_dot_pairs.c: a correct Matmul_f16 and Matmul_bf16 (and the f32
 * Matmul they are checked beside) in the summation order of AVX512_BF16's
 * vdpbf16ps: 16 float lanes, lane l taking the pairs k = 32 j + 2 l, 2 l + 1
 * of each block of 32; per pair the odd product is added first, then the
 * even one, each addition rounded to float (the products of two half values
 * are exact in float); then the lanes added as a tree, then the K % 32 tail
 * in order, and y rounded once to the dtype. IEEE throughout: unlike the
 * instruction, it neither reads subnormal inputs as zero nor flushes its
 * sums. A different order of the same exact products, which the rule of
 * docs/tolerances.md must admit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinyllm/linalg.h"

static const char* last_error = "";
const char* tl_last_error(void) { return last_error; }

static tl_status sizes(int64_t M, int64_t N, int64_t K) {
  const double limit = (double)INT64_MAX / 4;
  if (M < 0 || N < 0 || K < 0 || (double)M * (double)N > limit || (double)M * (double)K > limit ||
      (double)N * (double)K > limit) {
    last_error = "a negative size, or a tensor past int64_t bytes";
    return TL_ERR_INVALID_ARGUMENT;
  }
  return TL_OK;
}

static float from_f16(uint16_t h) {
  _Float16 v;
  memcpy(&v, &h, 2);
  return (float)v;
}
static float from_bf16(uint16_t h) {
  const uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static uint16_t to_f16(float f) {
  const _Float16 v = (_Float16)f;
  uint16_t h;
  memcpy(&h, &v, 2);
  return h;
}
/* Round to nearest even on the bits; a NaN keeps its top half, quieted. */
static uint16_t to_bf16(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if (isnan(f)) return (uint16_t)((b >> 16) | 0x40u);
  return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

enum { kLanes = 16, kBlock = 2 * kLanes };

/* One output: a[k] * b[k] summed in the instruction's order. Not loop
 * vectorized: GCC 12.2's -O3 loop vectorizer returned wrong sums for these
 * loops (-16 for the exact -6 of small integers at K = 64; right at -O2 and
 * with -fno-tree-loop-vectorize). */
__attribute__((optimize("no-tree-loop-vectorize"))) static float dot_pairs(const float* a, const float* b, int64_t K) {
  float lane[kLanes] = {0};
  int64_t k = 0;
  for (; k + kBlock <= K; k += kBlock)
    for (int l = 0; l < kLanes; ++l) {
      lane[l] += a[k + 2 * l + 1] * b[k + 2 * l + 1];
      lane[l] += a[k + 2 * l] * b[k + 2 * l];
    }
  for (int width = kLanes / 2; width >= 1; width /= 2)
    for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
  float sum = lane[0];
  for (; k < K; ++k) sum += a[k] * b[k];
  return sum;
}

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  const tl_status st = sizes(M, N, K);
  if (st != TL_OK) return st;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) y[m * N + n] = dot_pairs(x + m * K, w + n * K, K);
  return TL_OK;
}

static tl_status matmul_half(int f16, const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N,
                             int64_t K) {
  const tl_status st = sizes(M, N, K);
  if (st != TL_OK) return st;
  float* a = (float*)malloc(sizeof(float) * (size_t)(K > 0 ? K : 1));
  float* b = (float*)malloc(sizeof(float) * (size_t)(K > 0 ? K : 1));
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    last_error = "out of memory";
    return TL_ERR_UNSUPPORTED;
  }
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t k = 0; k < K; ++k) a[k] = f16 ? from_f16(x[m * K + k]) : from_bf16(x[m * K + k]);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t k = 0; k < K; ++k) b[k] = f16 ? from_f16(w[n * K + k]) : from_bf16(w[n * K + k]);
      const float v = dot_pairs(a, b, K);
      y[m * N + n] = f16 ? to_f16(v) : to_bf16(v);
    }
  }
  free(a);
  free(b);
  return TL_OK;
}

tl_status tl_matmul_f16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half(1, x, w, y, M, N, K);
}
tl_status tl_matmul_bf16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half(0, x, w, y, M, N, K);
}
