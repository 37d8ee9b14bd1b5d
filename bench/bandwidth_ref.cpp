// The stream kernel of bandwidth_ref.h, on Highway with runtime dispatch so
// that it uses the widest vectors the CPU has, like the kernels it is
// compared with. Integer ORs: no floating-point latency in the way.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/bandwidth_ref.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

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

}  // namespace konform::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "bench/bandwidth_ref.h"

namespace konform::bench {

HWY_EXPORT(Stream);

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

}  // namespace konform::bench
#endif  // HWY_ONCE
