// libtl_kernels: tl_sample_f32 of tinyllm/sampling.h. The row max and the
// weights exp((l - m) / t) are compiled once per Highway target
// (foreach_target) and chosen at run time (HWY_DYNAMIC_DISPATCH); the kept
// set (TopK: partial sort of indices, TopP: sort), the cumulative sums (in
// double, unlike the float reference: a correct kernel written differently)
// and the draw (sampling_args.hpp, shared with libtl_cuda) are plain code
// below. Greedy is tl_argmax_f32 per row.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/sampling_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/sampling-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

inline float SampRowMax(const float* x, size_t n) { return samp::RowMax(x, n); }
inline void SampWeights(const float* x, float* w, size_t n, float m, float t) { samp::Weights(x, w, n, m, t); }

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "impl/common/sampling_args.hpp"
#include "tinyllm/elementwise.h"
#include "tinyllm/sampling.h"
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(SampRowMax);
HWY_EXPORT(SampWeights);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace sa = konform::impl::sampling_args;

namespace {

// Before b in TopK's and TopP's order: logit descending, ties by lower index,
// NaN last (a strict weak order on (NaN?, -logit, index)).
struct Before {
  const float* l;
  bool operator()(int64_t a, int64_t b) const {
    const bool na = std::isnan(l[a]), nb = std::isnan(l[b]);
    if (na != nb) return nb;
    if (!na && l[a] != l[b]) return l[a] > l[b];
    return a < b;
  }
};

int32_t sample_row(const float* l, int64_t n, int32_t method, float t, int64_t top_k, float top_p, float min_p, float u,
                   std::vector<float>& w, std::vector<int64_t>& idx) {
  const float m = HWY_DYNAMIC_DISPATCH(ks::SampRowMax)(l, static_cast<size_t>(n));
  w.assign(static_cast<size_t>(n), 0.0f);
  if (m == -INFINITY) return -1;  // no number
  if (std::isinf(m)) {
    for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = l[i] == m ? 1.0f : 0.0f;
  } else {
    HWY_DYNAMIC_DISPATCH(ks::SampWeights)(l, w.data(), static_cast<size_t>(n), m, t);
  }
  idx.resize(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  int64_t count = n;
  switch (method) {
    case TL_SAMPLE_TOP_K:
      std::partial_sort(idx.begin(), idx.begin() + top_k, idx.end(), Before{l});
      count = top_k;
      break;
    case TL_SAMPLE_TOP_P: {
      std::sort(idx.begin(), idx.end(), Before{l});
      double z = 0;
      for (float e : w) z += e;
      double c = 0;
      count = 0;
      for (int64_t j = 0; j < n; ++j) {
        c += w[static_cast<size_t>(idx[static_cast<size_t>(j)])];
        if (c / z > static_cast<double>(top_p)) break;
        ++count;
      }
      count = std::max<int64_t>(count, 1);  // the first token is always kept
      break;
    }
    case TL_SAMPLE_MIN_P: {
      const float threshold = min_p * 1.0f;  // max(w) is exp(0) = 1
      count = 0;
      for (int64_t i = 0; i < n; ++i)
        if (w[static_cast<size_t>(i)] >= threshold) idx[static_cast<size_t>(count++)] = i;
      break;
    }
    default: break;
  }
  return sa::draw_kept(w.data(), idx.data(), count, u);
}

}  // namespace

extern "C" {

tl_status tl_sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  if (tl_status s = sa::check("tl_sample_f32", rows, vocab, method, temperature, top_k, top_p, min_p)) return s;
  if (method == TL_SAMPLE_GREEDY) {
    for (int64_t r = 0; r < rows; ++r) tokens[r] = tl_argmax_f32(logits + r * vocab, vocab);
    return TL_OK;
  }
  const uint64_t s = sa::resolve_seed(seed);
  std::vector<float> w;
  std::vector<int64_t> idx;
  for (int64_t r = 0; r < rows; ++r) {
    sa::Pcg32 g(s, static_cast<uint64_t>(r));
    tokens[r] = sample_row(logits + r * vocab, vocab, method, temperature, top_k, top_p, min_p, g.uniform(), w, idx);
  }
  return TL_OK;
}

// f16 and bf16: each row widened by the library's own casts (cast_simd.cpp:
// exact, every NaN payload a NaN) into one row of scratch, then the f32
// op's row: Greedy's argmax, or the weights, kept set and draw with the row's
// own u of the stream.
static tl_status SampleHalf(bool bf16, const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab,
                            int32_t method, float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  if (tl_status s =
          sa::check(bf16 ? "tl_sample_bf16" : "tl_sample_f16", rows, vocab, method, temperature, top_k, top_p, min_p))
    return s;
  if (rows == 0) return TL_OK;
  const auto widen = bf16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32;
  const uint64_t s = method == TL_SAMPLE_GREEDY ? 0 : sa::resolve_seed(seed);
  std::vector<float> row(static_cast<size_t>(vocab)), w;
  std::vector<int64_t> idx;
  for (int64_t r = 0; r < rows; ++r) {
    widen(logits + r * vocab, row.data(), vocab);
    if (method == TL_SAMPLE_GREEDY) {
      tokens[r] = tl_argmax_f32(row.data(), vocab);
      continue;
    }
    sa::Pcg32 g(s, static_cast<uint64_t>(r));
    tokens[r] = sample_row(row.data(), vocab, method, temperature, top_k, top_p, min_p, g.uniform(), w, idx);
  }
  return TL_OK;
}

tl_status tl_sample_f16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return SampleHalf(false, logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed);
}

tl_status tl_sample_bf16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                         float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return SampleHalf(true, logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed);
}

}  // extern "C"
#endif  // HWY_ONCE
