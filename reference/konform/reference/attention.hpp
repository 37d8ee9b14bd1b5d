// The attention ops of tinyllm/attention.h, written from spec/operations.txt
// section 5 (Sdpa, SdpaCross, SdpaWindow, FlashAttention) and its QK-norm.
//
// One source on the scalar type T, as elementwise.hpp: double is the oracle,
// float is the `scalar` backend, a 50-digit float checks the double one.
// Arguments are assumed valid here (the ABI's validation lives in the
// backends and in the harness's declarations).
//
// Per (sample, query head h, query i), over the keys j of a range:
//   s_j = (q_i . k_j) * (1 / sqrt(D))  [+ -1e4 if causally masked] [+ mask]
//   p   = softmax(s)   (max subtracted first)
//   y_i = sum_j p_j v_j
// with the KV head of h by repeat_interleave: h / (num_heads / kv_heads).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "konform/reference/elementwise.hpp"
#include "konform/reference/pairwise_sum.hpp"

namespace konform::reference::attn {

// The causal mask's value: -1e4, F16-safe, never -inf (spec §5).
constexpr float kCausalMask = -1e4f;

// The mask kinds of tinyllm/attention.h (tl_attn_mask), by value.
enum MaskKind : int { kMaskNone = 0, kMaskPadding = 1, kMaskFull = 2, kMaskSeq = 3, kMaskBatch = 4 };

struct Dims {
  int64_t batch = 1, heads = 1, kv_heads = 1, sq = 1, sk = 1, d = 1;
};

// Element strides of the additive mask along (b, h, i); j's stride is 1.
// A stride of 0 broadcasts that dimension.
struct MaskStrides {
  int64_t b = 0, h = 0, i = 0;
};

inline MaskStrides mask_strides(int kind, const Dims& n) {
  switch (kind) {
    case kMaskPadding: return {n.sk, 0, 0};
    case kMaskFull: return {n.heads * n.sq * n.sk, n.sq * n.sk, n.sk};
    case kMaskSeq: return {0, 0, n.sk};
    case kMaskBatch: return {n.sq * n.sk, 0, n.sk};
    default: return {0, 0, 0};
  }
}

// Elements the mask of `kind` holds.
inline int64_t mask_elements(int kind, const Dims& n) {
  switch (kind) {
    case kMaskPadding: return n.batch * n.sk;
    case kMaskFull: return n.batch * n.heads * n.sq * n.sk;
    case kMaskSeq: return n.sq * n.sk;
    case kMaskBatch: return n.batch * n.sq * n.sk;
    default: return 0;
  }
}

// The KV head query head h reads: groups of num_heads / kv_heads consecutive
// query heads share one (repeat_interleave).
inline int64_t kv_head(const Dims& n, int64_t h) { return h / (n.heads / n.kv_heads); }

// Key j is causally masked for query i when it lies after the query's
// position i + Sk - Sq (the queries are the last Sq of the Sk positions).
inline bool causally_masked(const Dims& n, int64_t i, int64_t j) { return j > i + n.sk - n.sq; }

// Where one query row reads and writes.
struct Row {
  const float* q;     // [D]
  const float* k;     // [Sk, D] of its KV head
  const float* v;     // [Sk, D]
  const float* mask;  // [Sk] of its (b, h, i), or nullptr
  bool causal = false;
  int64_t i = 0;  // the query's index, for the causal mask
};

inline Row row_of(const float* q, const float* k, const float* v, const float* mask, const Dims& n, int kind,
                  bool causal, int64_t b, int64_t h, int64_t i) {
  const int64_t kvh = kv_head(n, h);
  const MaskStrides ms = mask_strides(kind, n);
  Row r;
  r.q = q + ((b * n.heads + h) * n.sq + i) * n.d;
  r.k = k + (b * n.kv_heads + kvh) * n.sk * n.d;
  r.v = v + (b * n.kv_heads + kvh) * n.sk * n.d;
  r.mask = kind == kMaskNone ? nullptr : mask + b * ms.b + h * ms.h + i * ms.i;
  r.causal = causal;
  r.i = i;
  return r;
}

// The score of key j: the dot product (pairwise), times 1/sqrt(D), then the
// causal mask's -1e4, then the additive mask.
template <typename T>
T score(const Row& r, const Dims& n, int64_t j) {
  using std::sqrt;
  const float* kj = r.k + j * n.d;
  const T dot = pairwise_sum<T>(0, n.d, [&](int64_t t) { return T(r.q[t]) * T(kj[t]); });
  T s = dot * (T(1) / sqrt(T(n.d)));
  if (r.causal && causally_masked(n, r.i, j)) s += T(kCausalMask);
  if (r.mask != nullptr) s += T(r.mask[j]);
  return s;
}

// The scores of keys [j0, j1) of a row.
template <typename T>
std::vector<T> scores(const Row& r, const Dims& n, int64_t j0, int64_t j1) {
  std::vector<T> s(static_cast<size_t>(j1 - j0));
  for (int64_t j = j0; j < j1; ++j) s[static_cast<size_t>(j - j0)] = score<T>(r, n, j);
  return s;
}

// Softmax of the scores, the max subtracted first, the sum pairwise.
template <typename T>
std::vector<T> probabilities(const std::vector<T>& s) {
  using std::exp;
  T m = s.empty() ? T(0) : s[0];
  for (const T& x : s) m = x > m ? x : m;
  std::vector<T> p(s.size());
  for (size_t j = 0; j < s.size(); ++j) p[j] = exp(s[j] - m);
  const T sum =
      pairwise_sum<T>(0, static_cast<int64_t>(p.size()), [&](int64_t j) { return p[static_cast<size_t>(j)]; });
  for (T& x : p) x /= sum;
  return p;
}

// One row over keys [j0, j1): out[D] = softmax(scores) @ v.
template <typename T>
void attend_row(const Row& r, const Dims& n, int64_t j0, int64_t j1, T* out) {
  const std::vector<T> p = probabilities<T>(scores<T>(r, n, j0, j1));
  for (int64_t t = 0; t < n.d; ++t)
    out[t] = pairwise_sum<T>(j0, j1, [&](int64_t j) { return p[static_cast<size_t>(j - j0)] * T(r.v[j * n.d + t]); });
}

// Sdpa with GQA, the causal mask and an additive mask of `kind`.
template <typename T>
void sdpa(const float* q, const float* k, const float* v, const float* mask, T* y, const Dims& n, bool causal,
          int kind) {
  for (int64_t b = 0; b < n.batch; ++b)
    for (int64_t h = 0; h < n.heads; ++h)
      for (int64_t i = 0; i < n.sq; ++i)
        attend_row<T>(row_of(q, k, v, mask, n, kind, causal, b, h, i), n, 0, n.sk,
                      y + ((b * n.heads + h) * n.sq + i) * n.d);
}

// SdpaCross: Sdpa with as many KV heads as query heads, no mask.
template <typename T>
void sdpa_cross(const float* q, const float* k, const float* v, T* y, int64_t batch, int64_t heads, int64_t sq,
                int64_t se, int64_t d) {
  sdpa<T>(q, k, v, nullptr, y, Dims{batch, heads, heads, sq, se, d}, false, kMaskNone);
}

// SdpaWindow: query i attends to the keys of its window of `window`
// positions, [i / window * window, + window).
template <typename T>
void sdpa_window(const float* q, const float* k, const float* v, T* y, int64_t batch, int64_t heads, int64_t seq,
                 int64_t d, int64_t window) {
  const Dims n{batch, heads, heads, seq, seq, d};
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < seq; ++i) {
        const int64_t j0 = i / window * window;
        attend_row<T>(row_of(q, k, v, nullptr, n, kMaskNone, false, b, h, i), n, j0, j0 + window,
                      y + ((b * heads + h) * seq + i) * d);
      }
}

// FlashAttention: Sdpa by tiles of `tile` keys with the online softmax: a
// running max m, a running sum l and an accumulator acc[D], rescaled by
// exp(m_old - m_new) whenever the max grows; y = acc / l at the end.
// In float the running l and acc are doubles: a float running sum would
// round once per tile, Sk / tile deep, outside the summation contract at
// long contexts (docs/tolerances.md, "Reductions"); the tiles stay float.
template <typename T>
void flash_attention(const float* q, const float* k, const float* v, const float* mask, T* y, const Dims& n,
                     bool causal, int kind, int64_t tile) {
  using std::exp;
  using Run = std::conditional_t<std::is_same_v<T, float>, double, T>;
  std::vector<Run> acc(static_cast<size_t>(n.d));
  std::vector<T> part(static_cast<size_t>(n.d));
  for (int64_t b = 0; b < n.batch; ++b)
    for (int64_t h = 0; h < n.heads; ++h)
      for (int64_t i = 0; i < n.sq; ++i) {
        const Row r = row_of(q, k, v, mask, n, kind, causal, b, h, i);
        std::fill(acc.begin(), acc.end(), Run(0));
        T m = T(0);
        Run l = Run(0);
        for (int64_t j0 = 0; j0 < n.sk; j0 += tile) {
          const int64_t j1 = std::min(n.sk, j0 + tile);
          const std::vector<T> s = scores<T>(r, n, j0, j1);
          T tm = s[0];
          for (const T& x : s) tm = x > tm ? x : tm;
          const T m_new = j0 == 0 || tm > m ? tm : m;
          const T c = j0 == 0 ? T(0) : exp(m - m_new);
          // The tile's sums on their own, then folded into the running ones:
          // no sum runs over more than `tile` terms or Sk / tile tiles.
          std::fill(part.begin(), part.end(), T(0));
          T tile_sum = T(0);
          for (int64_t j = j0; j < j1; ++j) {
            const T p = exp(s[static_cast<size_t>(j - j0)] - m_new);
            tile_sum += p;
            for (int64_t t = 0; t < n.d; ++t) part[static_cast<size_t>(t)] += p * T(r.v[j * n.d + t]);
          }
          l = l * Run(c) + Run(tile_sum);
          for (int64_t t = 0; t < n.d; ++t)
            acc[static_cast<size_t>(t)] = acc[static_cast<size_t>(t)] * Run(c) + Run(part[static_cast<size_t>(t)]);
          m = m_new;
        }
        T* out = y + ((b * n.heads + h) * n.sq + i) * n.d;
        for (int64_t t = 0; t < n.d; ++t) out[t] = T(acc[static_cast<size_t>(t)] / l);
      }
}

// QK-norm: RmsNorm of each head's vector of D values of x[tokens, heads, D]
// on its own (the reduction over D, never over heads * D), gain g[D].
template <typename T>
void qk_norm(const float* x, const float* g, T* y, int64_t tokens, int64_t heads, int64_t d, float eps) {
  rmsnorm<T>(x, g, y, tokens * heads, d, eps);
}

}  // namespace konform::reference::attn
