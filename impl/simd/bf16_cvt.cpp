// The run-time check for vcvtneps2bf16 (AVX512_BF16: 16 floats rounded to
// bf16, to nearest with ties to even, whatever MXCSR says). Intel's
// definition, per lane: a NaN gives its top half with the quiet bit set, a
// subnormal input is read as zero (DAZ), and every other value is rounded as
// impl::bf16::F32ToBF16 rounds it. So the instruction is bit for bit the
// integer rounding on every input but the subnormals; half-inl.h's BF16Cvt
// sends a vector holding one of those to the integer rounding. Highway
// 1.0.3's AVX3 target does not enable avx512bf16, so the probe here carries
// its own target attribute and BF16Cvt emits the instruction from inline
// assembly (tests/bf16_cvt_test.cpp compares it with the integer rounding on
// all 2^32 inputs).
#include "impl/simd/bf16_cvt.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "impl/common/bf16.hpp"

namespace konform::simd {

namespace {

// Two vectors of inputs: ties below and above an even kept half, the values
// around them, the largest finite values (rounded to the infinities), the
// smallest normal ones, zeros, infinities, quiet and signalling NaNs of
// either sign and one whose payload is only in the dropped half.
constexpr uint32_t kProbe[32] = {
    0x3f800000u, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u, 0xbf818000u, 0xc0fe8000u, 0x4b7fffffu,
    0x7f7fffffu, 0xff7fffffu, 0x7f7f7fffu, 0x7f7f8000u, 0x00800000u, 0x80ffffffu, 0x00000000u, 0x80000000u,
    0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff800001u, 0x7f80ffffu, 0x7fbfffffu,
    0x7fffffffu, 0xffffffffu, 0x3eaaaaabu, 0xc2c7ffffu, 0x01008000u, 0x81018000u, 0x5f7f8000u, 0x1f808000u};

__attribute__((target("avx512f,avx512bf16"))) bool ProbeMatches() {
  for (int v = 0; v < 2; ++v) {
    alignas(64) uint16_t got[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(got),
                       reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(
                           _mm512_castsi512_ps(_mm512_loadu_si512(static_cast<const void*>(kProbe + 16 * v))))));
    for (int i = 0; i < 16; ++i) {
      float f;
      std::memcpy(&f, &kProbe[16 * v + i], 4);
      if (got[i] != impl::bf16::F32ToBF16(f)) return false;
    }
  }
  return true;
}

}  // namespace

bool HasBf16Cvt() {
  static const bool has = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && ProbeMatches();
  return has;
}

}  // namespace konform::simd

#else  // not x86-64 with GCC or Clang: never chosen

namespace konform::simd {
bool HasBf16Cvt() { return false; }
}  // namespace konform::simd

#endif
