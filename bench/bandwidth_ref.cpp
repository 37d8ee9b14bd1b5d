// The stream kernel of bandwidth_ref.h, on Highway with runtime dispatch so
// that it uses the widest vectors the CPU has, like the kernels it is
// compared with. Integer ORs: no floating-point latency in the way.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/bandwidth_ref.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline uint32_t Bits(const float* p) {
  uint32_t bits;
  std::memcpy(&bits, p, sizeof bits);
  return bits;
}

uint32_t Stream(const float* a, const float* b, float* y, size_t n) {
  const hn::ScalableTag<uint32_t> d;
  const size_t N = hn::Lanes(d);
  const uint32_t* ua = reinterpret_cast<const uint32_t*>(a);
  const uint32_t* ub = reinterpret_cast<const uint32_t*>(b);
  uint32_t* uy = reinterpret_cast<uint32_t*>(y);
  size_t i = 0;
  if (uy == nullptr) {
    auto r0 = hn::Zero(d), r1 = hn::Zero(d), r2 = hn::Zero(d), r3 = hn::Zero(d);
    for (; i + 4 * N <= n; i += 4 * N) {
      r0 = hn::Or(r0, hn::LoadU(d, ua + i));
      r1 = hn::Or(r1, hn::LoadU(d, ua + i + N));
      r2 = hn::Or(r2, hn::LoadU(d, ua + i + 2 * N));
      r3 = hn::Or(r3, hn::LoadU(d, ua + i + 3 * N));
      if (ub != nullptr) {
        r0 = hn::Or(r0, hn::LoadU(d, ub + i));
        r1 = hn::Or(r1, hn::LoadU(d, ub + i + N));
        r2 = hn::Or(r2, hn::LoadU(d, ub + i + 2 * N));
        r3 = hn::Or(r3, hn::LoadU(d, ub + i + 3 * N));
      }
    }
    HWY_ALIGN uint32_t lanes[HWY_MAX_BYTES / sizeof(uint32_t)];
    hn::Store(hn::Or(hn::Or(r0, r1), hn::Or(r2, r3)), d, lanes);
    uint32_t bits = 0;
    for (size_t k = 0; k < N; ++k) bits |= lanes[k];
    for (; i < n; ++i) bits |= Bits(a + i) | (b != nullptr ? Bits(b + i) : 0u);
    return bits;
  }
  if (ub == nullptr) {
    for (; i + 4 * N <= n; i += 4 * N) {
      const auto v0 = hn::LoadU(d, ua + i), v1 = hn::LoadU(d, ua + i + N);
      const auto v2 = hn::LoadU(d, ua + i + 2 * N), v3 = hn::LoadU(d, ua + i + 3 * N);
      hn::StoreU(v0, d, uy + i);
      hn::StoreU(v1, d, uy + i + N);
      hn::StoreU(v2, d, uy + i + 2 * N);
      hn::StoreU(v3, d, uy + i + 3 * N);
    }
    std::memmove(y + i, a + i, (n - i) * sizeof(float));  // y may be a
    return 0;
  }
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto v0 = hn::Or(hn::LoadU(d, ua + i), hn::LoadU(d, ub + i));
    const auto v1 = hn::Or(hn::LoadU(d, ua + i + N), hn::LoadU(d, ub + i + N));
    const auto v2 = hn::Or(hn::LoadU(d, ua + i + 2 * N), hn::LoadU(d, ub + i + 2 * N));
    const auto v3 = hn::Or(hn::LoadU(d, ua + i + 3 * N), hn::LoadU(d, ub + i + 3 * N));
    hn::StoreU(v0, d, uy + i);
    hn::StoreU(v1, d, uy + i + N);
    hn::StoreU(v2, d, uy + i + 2 * N);
    hn::StoreU(v3, d, uy + i + 3 * N);
  }
  for (; i < n; ++i) {
    const uint32_t bits = Bits(a + i) | Bits(b + i);
    std::memcpy(y + i, &bits, sizeof bits);
  }
  return 0;
}

// ---------------------------------------------------------------- tuned
// The candidates for each pattern's limit (bandwidth_ref.h): eight vectors a
// step, eight independent accumulators, so that neither a dependency chain
// nor the loop's own instructions come between the core and its caches.

float TunedRead(const float* a, size_t n, size_t ahead) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  auto s4 = hn::Zero(d), s5 = hn::Zero(d), s6 = hn::Zero(d), s7 = hn::Zero(d);
  const size_t ahead_floats = ahead / sizeof(float);
  size_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    if (ahead_floats != 0) {
      // One prefetch per 64-byte line of the step (AVX-512: one per vector).
      for (size_t b = 0; b < 8 * N * sizeof(float); b += 64) hwy::Prefetch(a + i + ahead_floats + b / sizeof(float));
    }
    s0 = hn::Add(s0, hn::LoadU(d, a + i));
    s1 = hn::Add(s1, hn::LoadU(d, a + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, a + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, a + i + 3 * N));
    s4 = hn::Add(s4, hn::LoadU(d, a + i + 4 * N));
    s5 = hn::Add(s5, hn::LoadU(d, a + i + 5 * N));
    s6 = hn::Add(s6, hn::LoadU(d, a + i + 6 * N));
    s7 = hn::Add(s7, hn::LoadU(d, a + i + 7 * N));
  }
  const auto s = hn::Add(hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)), hn::Add(hn::Add(s4, s5), hn::Add(s6, s7)));
  float sum = hn::GetLane(hn::SumOfLanes(d, s));
  for (; i < n; ++i) sum += a[i];
  return sum;
}

void TunedCopy(const float* a, float* y, size_t n, bool stream) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  // Non-temporal stores need aligned vectors: the head up to y's alignment plainly.
  if (stream)
    for (; i < n && (reinterpret_cast<uintptr_t>(y + i) % (N * sizeof(float))) != 0; ++i) y[i] = a[i];
  for (; i + 8 * N <= n; i += 8 * N) {
    hn::Vec<decltype(d)> v[8];
    for (size_t j = 0; j < 8; ++j) v[j] = hn::LoadU(d, a + i + j * N);
    if (stream) {
      for (size_t j = 0; j < 8; ++j) hn::Stream(v[j], d, y + i + j * N);
    } else {
      for (size_t j = 0; j < 8; ++j) hn::StoreU(v[j], d, y + i + j * N);
    }
  }
  if (stream) hwy::FlushStream();
  for (; i < n; ++i) y[i] = a[i];
}

void TunedRmw(float* y, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto one = hn::Set(d, 1.0f);
  size_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    hn::Vec<decltype(d)> v[8];
    for (size_t j = 0; j < 8; ++j) v[j] = hn::Add(hn::LoadU(d, y + i + j * N), one);
    for (size_t j = 0; j < 8; ++j) hn::StoreU(v[j], d, y + i + j * N);
  }
  for (; i < n; ++i) y[i] += 1.0f;
}

}  // namespace konform::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "bench/bandwidth_ref.h"

namespace konform::bench {

HWY_EXPORT(Stream);
HWY_EXPORT(TunedRead);
HWY_EXPORT(TunedCopy);
HWY_EXPORT(TunedRmw);

StreamFn BestStream() {
  // HWY_DYNAMIC_DISPATCH names a table entry; the first call resolves the
  // entry for this CPU, after which the entry is the target's own function.
  static const StreamFn fn = [] {
    float one = 0.0f;
    HWY_DYNAMIC_DISPATCH(Stream)(&one, nullptr, nullptr, 1);
    return &HWY_DYNAMIC_DISPATCH(Stream);
  }();
  return fn;
}

// Each tuned kernel's best target, fixed on the first call (as BestStream).
TunedKernels BestTuned() {
  static const TunedKernels k = [] {
    float one = 0.0f;
    HWY_DYNAMIC_DISPATCH(TunedRead)(&one, 1, 0);
    HWY_DYNAMIC_DISPATCH(TunedCopy)(&one, &one, 1, false);
    HWY_DYNAMIC_DISPATCH(TunedRmw)(&one, 1);
    return TunedKernels{&HWY_DYNAMIC_DISPATCH(TunedRead), &HWY_DYNAMIC_DISPATCH(TunedCopy),
                        &HWY_DYNAMIC_DISPATCH(TunedRmw)};
  }();
  return k;
}

}  // namespace konform::bench
#endif  // HWY_ONCE
