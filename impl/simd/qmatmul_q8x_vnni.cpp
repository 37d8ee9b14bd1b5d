// The q8x matmuls' integer dot products with AVX-512 VNNI (vpdpbusd: 32
// products of an unsigned and a signed byte summed into 8 int32 lanes per
// 256-bit instruction), for CPUs that have it (Ice Lake and later, Zen 4
// and later). Highway 1.0.3 compiles its AVX3_DL target only when
// HWY_WANT_AVX3_DL is defined, which would compile every simd translation
// unit once more and make AVX3_DL the target of every op on such a CPU; so
// these functions carry their own target attribute and run only where the
// CPU says avx512vnni and Highway dispatched its AVX3 target
// (qmatmul_q8x.cpp), so that simd:AVX2 and the others still test their own
// code.
//
// Integer sums are exact, and the f32 part is the same operations in the
// same order as q8x.hpp's (each block's (dw dx) float(isum), added in block
// order): the bits are the scalar backend's.
#include "impl/simd/qmatmul_q8x_vnni.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstring>
#include <vector>

#include "impl/common/q8x.hpp"

#define KONFORM_VNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace konform::simd {

namespace q8x = konform::impl::q8x;

bool HasAvx512Vnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("f16c");
  return has;
}

namespace {

// The tail's blocks, compiled for the baseline and never inlined here: with
// q8x.hpp's loop inlined into this file's VNNI-targeted code, GCC 12's build
// gave wrong sums on some blocks (seen on QMatmulQ8x_Q8_0's case 12 of seed
// 1, x [11, 32]; the generated code was not analysed further).
__attribute__((noinline)) int32_t TailSum(bool q4, const uint8_t* wb, const int8_t* qx) {
  return q4 ? q8x::isum_q4_0(wb, qx) : q8x::isum_q8_0(wb, qx);
}

// Eight vectors of 8 int32 partial sums to one vector of their 8 totals, in order.
KONFORM_VNNI inline __m256i Totals(const __m256i* s) {
  const __m256i h01 = _mm256_hadd_epi32(s[0], s[1]), h23 = _mm256_hadd_epi32(s[2], s[3]);
  const __m256i h45 = _mm256_hadd_epi32(s[4], s[5]), h67 = _mm256_hadd_epi32(s[6], s[7]);
  const __m256i a = _mm256_hadd_epi32(h01, h23), b = _mm256_hadd_epi32(h45, h67);
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(a, b, 0x31));
}

// Eight f16 scales 'stride' bytes apart, as floats.
KONFORM_VNNI inline __m256 Scales(const uint8_t* p, int64_t stride) {
  alignas(16) uint16_t h[8];
  for (int i = 0; i < 8; ++i) h[i] = impl::f16::LoadF16(p + i * stride);
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(h)));
}

// Q8_0 (kQ4 false) or Q4_0 weights: columns [n0, n1), x's Q8_0 blocks.
template <bool kQ4>
KONFORM_VNNI void Q8_0Columns(const q8x::XBlockQ8* xb, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K,
                              int64_t n0, int64_t n1) {
  constexpr int64_t bytes = kQ4 ? 18 : 34;
  const int64_t nb = K / 32, rb = nb * bytes;
  std::vector<float> dx(static_cast<size_t>(nb));
  std::vector<int32_t> sum8(static_cast<size_t>(nb));  // 8 sum qx per block (Q4_0's offset)
  const __m256i low = _mm256_set1_epi8(15);
  for (int64_t m = 0; m < M; ++m) {
    const q8x::XBlockQ8* xr = xb + m * nb;
    for (int64_t b = 0; b < nb; ++b) {
      dx[static_cast<size_t>(b)] = xr[b].d;
      int32_t s = 0;
      for (int j = 0; j < 32; ++j) s += xr[b].qs[j];
      sum8[static_cast<size_t>(b)] = 8 * s;
    }
    for (int64_t n = n0; n < n1; ++n) {
      const uint8_t* row = w + n * rb;
      float acc = 0.0f;
      int64_t b = 0;
      for (; b + 8 <= nb; b += 8) {
        __m256i s[8];
        for (int i = 0; i < 8; ++i) {
          const uint8_t* wb = row + (b + i) * bytes;
          const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr[b + i].qs));
          if (kQ4) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(wb + 2));
            const __m256i q = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(v, 4), v), low);
            s[i] = _mm256_dpbusd_epi32(_mm256_setzero_si256(), q, x);
          } else {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb + 2));
            s[i] = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_abs_epi8(v), _mm256_sign_epi8(x, v));
          }
        }
        __m256i isum = Totals(s);
        if (kQ4) isum = _mm256_sub_epi32(isum, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sum8.data() + b)));
        const __m256 d = _mm256_mul_ps(Scales(row + b * bytes, bytes), _mm256_loadu_ps(dx.data() + b));
        alignas(32) float t[8];
        _mm256_store_ps(t, _mm256_mul_ps(d, _mm256_cvtepi32_ps(isum)));
        for (int i = 0; i < 8; ++i) acc = acc + t[i];
      }
      for (; b < nb; ++b) {
        const uint8_t* wb = row + b * bytes;
        acc = acc + q8x::term(impl::f16::F16ToF32(impl::f16::LoadF16(wb)), xr[b].d, TailSum(kQ4, wb, xr[b].qs));
      }
      y[m * N + n] = acc;
    }
  }
}

KONFORM_VNNI void Q4_KColumns(const q8x::XBlockQ8K* xb, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K,
                              int64_t n0, int64_t n1) {
  const int64_t nb = K / 256, rb = nb * 144;
  const __m256i low = _mm256_set1_epi8(15);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = n0; n < n1; ++n) {
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* wb = w + n * rb + b * 144;
        const q8x::XBlockQ8K& x = xb[m * nb + b];
        __m256i s[8];
        for (int p = 0; p < 4; ++p) {
          const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb + 16 + 32 * p));
          const __m256i lo = _mm256_and_si256(v, low), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
          s[2 * p] = _mm256_dpbusd_epi32(_mm256_setzero_si256(), lo,
                                         _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs + 64 * p)));
          s[2 * p + 1] = _mm256_dpbusd_epi32(_mm256_setzero_si256(), hi,
                                             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs + 64 * p + 32)));
        }
        // The 6-bit scales and mins as bytes: sc[0..7], then m[0..7]
        // (the layout of quant.h, moved 32 bits at a time).
        uint32_t u[4];
        std::memcpy(u, wb + 4, 12);
        u[3] = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
        const uint32_t mins_lo = u[1] & 0x3f3f3f3fu;
        u[1] = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);
        u[2] = mins_lo;
        u[0] &= 0x3f3f3f3fu;
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(u));
        const __m256i sc = _mm256_cvtepu8_epi32(packed);
        const __m128i m16 = _mm_cvtepu8_epi16(_mm_srli_si128(packed, 8));
        const __m256i mm = _mm256_set_m128i(_mm_unpackhi_epi16(m16, m16), _mm_unpacklo_epi16(m16, m16));
        const __m256i bs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
        // isum = sum sc_j dot_j, isum_min = sum m_j (bsums[2j] + bsums[2j + 1]), both in one reduction.
        __m256i h = _mm256_hadd_epi32(_mm256_mullo_epi32(Totals(s), sc), _mm256_madd_epi16(bs, mm));
        h = _mm256_hadd_epi32(h, h);
        const __m128i h2 = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
        const int32_t isum = _mm_cvtsi128_si32(h2), isum_min = _mm_extract_epi32(h2, 1);
        acc = acc + q8x::term_q4_k(impl::f16::F16ToF32(impl::f16::LoadF16(wb)),
                                   impl::f16::F16ToF32(impl::f16::LoadF16(wb + 2)), x.d, isum, isum_min);
      }
      y[m * N + n] = acc;
    }
}

}  // namespace

void Q8xColumnsVnni(int format, const void* xq, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K, int64_t n0,
                    int64_t n1) {
  if (format == 2) Q4_KColumns(static_cast<const q8x::XBlockQ8K*>(xq), w, y, M, N, K, n0, n1);
  else if (format == 1) Q8_0Columns<true>(static_cast<const q8x::XBlockQ8*>(xq), w, y, M, N, K, n0, n1);
  else Q8_0Columns<false>(static_cast<const q8x::XBlockQ8*>(xq), w, y, M, N, K, n0, n1);
}

}  // namespace konform::simd

#else  // not x86-64 GCC or clang: no VNNI path

namespace konform::simd {
bool HasAvx512Vnni() { return false; }
void Q8xColumnsVnni(int, const void*, const uint8_t*, float*, int64_t, int64_t, int64_t, int64_t, int64_t) {}
}  // namespace konform::simd

#endif
