// konform_qmatmul_check: the guarantees of libtl_kernels' quantized matmuls
// that the harness does not test, on every target the library can be forced
// to: a row of a batch has the bits it has alone (M = 1, the decode path),
// whatever the batch's size; 1 and 2 threads give the same bits; and every
// output is within QMatmul's 258 u of sum |x| |w| of the double dot product
// with the dequantized weights (Q4_K: |x| (|d sc q| + |dmin m|)). Exits 1 on
// a failure. Shapes span K of one to 44 super-blocks and N past the
// kernel's tiles of four rows, M past its tiles of four and its chunks of
// rows of x (16 or more, fewer rows the longer K).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tinyllm/dispatch.h"
#include "tinyllm/quant.h"
#include "tinyllm/threads.h"

namespace {

int g_failures = 0;
std::mt19937_64 g_rng(20261204);

void Fail(const std::string& what) {
  if (++g_failures <= 20) std::printf("  FAIL %s\n", what.c_str());
}

struct Format {
  const char* name;
  int64_t qk, bytes;
  tl_status (*quantize)(const float*, void*, int64_t, int64_t);
  tl_status (*dequantize)(const void*, float*, int64_t, int64_t);
  tl_status (*qmatmul)(const float*, const void*, float*, int64_t, int64_t, int64_t);
};
const Format kFormats[] = {
    {"Q8_0", TL_QK8_0, TL_Q8_0_BLOCK_BYTES, tl_quantize_q8_0_f32, tl_dequantize_q8_0_f32, tl_qmatmul_q8_0_f32},
    {"Q4_0", TL_QK4_0, TL_Q4_0_BLOCK_BYTES, tl_quantize_q4_0_f32, tl_dequantize_q4_0_f32, tl_qmatmul_q4_0_f32},
    {"Q4_K", TL_QK_K, TL_Q4_K_BLOCK_BYTES, tl_quantize_q4_k_f32, tl_dequantize_q4_k_f32, tl_qmatmul_q4_k_f32},
};

std::vector<float> Normal(size_t n) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& e : v) e = dist(g_rng);
  return v;
}

float F16(const uint8_t* p) {
  const uint16_t h = static_cast<uint16_t>(p[0] | (p[1] << 8));
  const int e = (h >> 10) & 31, m = h & 1023;
  const float v = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(float(m + 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

// Q4_K's |d sc q| + |dmin m| of value i: the magnitude of both forms a
// kernel may sum (tinyllm/quant.h's layout).
double Q4KMagnitude(const uint8_t* blocks, int64_t i) {
  const uint8_t* b = blocks + (i / 256) * 144;
  const int j = int((i % 256) / 32), l = int(i % 32);
  const uint8_t* s = b + 4;
  const int sc = j < 4 ? s[j] & 63 : (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
  const int m = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  const uint8_t byte = b[16 + 32 * (j / 2) + l];
  const int q = (j % 2 == 0) ? byte & 15 : byte >> 4;
  return std::fabs(double(F16(b)) * sc * q) + std::fabs(double(F16(b + 2)) * m);
}

void CheckCase(const Format& f, int64_t M, int64_t N, int64_t K) {
  const auto wf = Normal(size_t(N * K)), x = Normal(size_t(M * K));
  std::vector<uint8_t> w(size_t(N * K / f.qk * f.bytes));
  std::vector<float> deq(size_t(N * K));
  if (f.quantize(wf.data(), w.data(), N, K) != TL_OK || f.dequantize(w.data(), deq.data(), N, K) != TL_OK) {
    Fail(std::string(f.name) + ": quantize refused");
    return;
  }
  std::vector<float> y(static_cast<size_t>(M * N)), y2(y.size()), row(static_cast<size_t>(N));
  tl_set_num_threads(1);
  f.qmatmul(x.data(), w.data(), y.data(), M, N, K);
  tl_set_num_threads(2);
  f.qmatmul(x.data(), w.data(), y2.data(), M, N, K);
  tl_set_num_threads(1);
  const std::string where =
      std::string(f.name) + " M " + std::to_string(M) + " N " + std::to_string(N) + " K " + std::to_string(K);
  if (std::memcmp(y.data(), y2.data(), y.size() * 4) != 0) Fail(where + ": 2 threads change bits");
  for (int64_t m = 0; m < M; ++m) {
    f.qmatmul(x.data() + m * K, w.data(), row.data(), 1, N, K);
    if (std::memcmp(row.data(), y.data() + m * N, size_t(N) * 4) != 0) {
      Fail(where + ": row " + std::to_string(m) + " alone differs from the batch");
      break;
    }
  }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double want = 0, scale = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double xv = x[size_t(m * K + k)], wv = deq[size_t(n * K + k)];
        want += xv * wv;
        const double mag = f.qk == 256 ? Q4KMagnitude(w.data(), n * K + k) : std::fabs(wv);
        scale += std::fabs(xv) * mag;
      }
      const double err = std::fabs(double(y[size_t(m * N + n)]) - want);
      if (err > 258 * 0x1p-24 * scale) {
        Fail(where + ": y[" + std::to_string(m) + "][" + std::to_string(n) + "] off by " +
             std::to_string(err / (0x1p-24 * scale)) + " u");
        return;
      }
    }
}

}  // namespace

int main() {
  for (int t = 0; t < tl_simd_target_count(); ++t) {
    const char* target = tl_simd_target_name(t);
    if (tl_simd_force_target(target) != 0) continue;
    std::printf("%s\n", target);
    for (const auto& f : kFormats)
      for (int64_t M : {1, 2, 5, 9, 13})
        for (int64_t N : {1, 3, 8, 17})
          for (int64_t blocks : {1, 3, 8, 9, 44}) {
            const int64_t K = f.qk == 256 ? blocks * 256 : blocks * 32;
            CheckCase(f, M, N, K);
          }
    for (const auto& f : kFormats)
      CheckCase(f, 37, 23, 44 * 256);       // chunks of rows of x, tiles and panels with remainders
    CheckCase(kFormats[2], 6, 1030, 4096);  // past the library's thread threshold
    CheckCase(kFormats[0], 3, 2050, 4096);
  }
  std::printf(g_failures == 0 ? "all passed\n" : "%d failures\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
