// Argument validation and the draw of tinyllm/sampling.h, shared by the
// scalar, simd and cuda backends: anything wrong becomes a tl_status with a message
// (impl::fail) before a token is written; the PCG32 stream and u are the
// header's, bit for bit.
#pragma once

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>

#include "impl/common/status.hpp"
#include "tinyllm/sampling.h"

namespace konform::impl::sampling_args {

inline std::string str(double v) { return std::to_string(v); }

inline tl_status check(const char* fn, int64_t rows, int64_t vocab, int32_t method, float temperature, int64_t top_k,
                       float top_p, float min_p) {
  const std::string f(fn);
  if (rows < 0) return fail(TL_ERR_INVALID_ARGUMENT, f + ": rows = " + std::to_string(rows) + " is negative");
  if (vocab < 1) return fail(TL_ERR_INVALID_ARGUMENT, f + ": vocab = " + std::to_string(vocab) + " is below 1");
  if (vocab > INT32_MAX)
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": vocab = " + std::to_string(vocab) + " does not fit an int32 token");
  int64_t bytes = 0;
  if (__builtin_mul_overflow(rows, vocab, &bytes) || __builtin_mul_overflow(bytes, int64_t{4}, &bytes))
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": rows * vocab * 4 bytes does not fit an int64_t");
  if (method < TL_SAMPLE_GREEDY || method > TL_SAMPLE_MIN_P)
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": method = " + std::to_string(method) + " is not a tl_sample_method");
  if (method == TL_SAMPLE_GREEDY) return TL_OK;
  if (!(temperature > 0.0f) || std::isinf(temperature))
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": temperature = " + str(temperature) + " must be finite and > 0");
  if (method == TL_SAMPLE_TOP_K && (top_k < 1 || top_k > vocab))
    return fail(TL_ERR_INVALID_ARGUMENT,
                f + ": top_k = " + std::to_string(top_k) + " outside [1, vocab = " + std::to_string(vocab) + "]");
  if (method == TL_SAMPLE_TOP_P && !(top_p > 0.0f && top_p <= 1.0f))
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": top_p = " + str(top_p) + " outside (0, 1]");
  if (method == TL_SAMPLE_MIN_P && !(min_p >= 0.0f && min_p <= 1.0f))
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": min_p = " + str(min_p) + " outside [0, 1]");
  return TL_OK;
}

// PCG32 XSH-RR as tinyllm/sampling.h states it (pcg32_srandom_r(seed, row)).
struct Pcg32 {
  uint64_t state = 0, inc = 1;
  Pcg32(uint64_t seed, uint64_t stream) : inc((stream << 1u) | 1u) {
    step();
    state += seed;
    step();
  }
  void step() { state = state * 6364136223846793005ULL + inc; }
  uint32_t next32() {
    const uint64_t old = state;
    step();
    const auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    const auto rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }
  // u in [0, 1): 24 bits, exact in float.
  float uniform() { return static_cast<float>(next32() >> 8) * 0x1p-24f; }
};

// Compiled for the device too where nvcc includes this (impl/cuda/sampling.cu).
#ifdef __CUDACC__
#define KONFORM_HOST_DEVICE __host__ __device__
#else
#define KONFORM_HOST_DEVICE
#endif

// The draw over the kept positions kept[0, count) of weights w: the first
// whose running sum (double) exceeds u * Z; the last positive one if rounding
// leaves none; -1 when Z is 0.
template <class Index>
KONFORM_HOST_DEVICE inline int32_t draw_kept(const float* w, const Index* kept, int64_t count, float u) {
  double z = 0;
  for (int64_t j = 0; j < count; ++j) z += w[kept[j]];
  if (!(z > 0)) return -1;
  const double target = static_cast<double>(u) * z;
  double c = 0;
  int64_t last = -1;
  for (int64_t j = 0; j < count; ++j) {
    c += w[kept[j]];
    if (w[kept[j]] > 0) last = kept[j];
    if (target < c) return static_cast<int32_t>(kept[j]);
  }
  return static_cast<int32_t>(last);
}

// seed 0: a seed from the clock and a process-wide counter (not reproducible).
inline uint64_t resolve_seed(uint64_t seed) {
  if (seed != 0) return seed;
  static std::atomic<uint64_t> counter{0};
  const auto t = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const uint64_t s = t ^ (0x9E3779B97F4A7C15ULL * (counter.fetch_add(1) + 1));
  return s == 0 ? 1 : s;
}

}  // namespace konform::impl::sampling_args
