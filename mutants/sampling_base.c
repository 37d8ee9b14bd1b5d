/* sampling_base.c: tinyllm/sampling.h in plain C11 (tl_sample_f32: Greedy,
 * Temperature, TopK, TopP, MinP), and its mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is the correct plugin
 * konform_sampling_base, written differently from the reference: weights
 * exp((l - m) / t) in double, normalised probabilities (not raw weights)
 * summed in double, the sorted order by qsort on (logit, index). With
 * -DKONFORM_MUTANT=N it is mutant sampling_mNN: one defect switched on,
 * everything else identical. mutants/manifest.tsv names the check that must
 * catch each.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinyllm/sampling.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 15
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..15 (sampling_m01..m15)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- argument checks (the header's rules) ---------------------------------- */

static tl_status check(int64_t rows, int64_t vocab, int32_t method, float t, int64_t k, float p, float min_p) {
  if (rows < 0 || vocab < 1 || vocab > INT32_MAX) return TL_ERR_INVALID_ARGUMENT;
  if ((double)rows * (double)vocab * 4.0 > (double)INT64_MAX) return TL_ERR_INVALID_ARGUMENT;
  if (method < 0 || method > 4) return TL_ERR_INVALID_ARGUMENT;
  if (method == TL_SAMPLE_GREEDY) return TL_OK;
  if (!(t > 0.0f) || isinf(t)) return TL_ERR_INVALID_ARGUMENT;
  if (method == TL_SAMPLE_TOP_K && (k < 1 || k > vocab)) return TL_ERR_INVALID_ARGUMENT;
  if (method == TL_SAMPLE_TOP_P && !(p > 0.0f && p <= 1.0f)) return TL_ERR_INVALID_ARGUMENT;
  if (method == TL_SAMPLE_MIN_P && !(min_p >= 0.0f && min_p <= 1.0f)) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

/* ---- PCG32 XSH-RR ----------------------------------------------------------- */

typedef struct {
  uint64_t state, inc;
} pcg32;

static void pcg_step(pcg32* g) { g->state = g->state * 6364136223846793005ULL + g->inc; }

static void pcg_seed(pcg32* g, uint64_t seed, uint64_t stream) {
  g->state = 0;
#if MUTANT(6) /* m06: every row draws from the same stream (the row index ignored) */
  stream = 0;
#endif
  g->inc = (stream << 1u) | 1u;
  pcg_step(g);
#if !MUTANT(5) /* m05: the seed never enters the state: every seed draws the same */
  g->state += seed;
#else
  (void)seed;
#endif
  pcg_step(g);
}

static uint32_t pcg_next(pcg32* g) {
  const uint64_t old = g->state;
  pcg_step(g);
  const uint32_t x = (uint32_t)(((old >> 18u) ^ old) >> 27u);
  const uint32_t rot = (uint32_t)(old >> 59u);
  return (x >> rot) | (x << ((32u - rot) & 31u));
}

/* ---- Greedy ------------------------------------------------------------------ */

static int32_t greedy(const float* x, int64_t n) {
  int64_t best = -1;
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(2) /* m02: NaN not skipped: a NaN compares as the best so far */
    if (best < 0 || !(x[i] <= x[best])) best = i;
#elif MUTANT(1) /* m01: the last index of the max on ties (>=) */
    if (isnan(x[i])) continue;
    if (best < 0 || x[i] >= x[best]) best = i;
#else
    if (isnan(x[i])) continue;
    if (best < 0 || x[i] > x[best]) best = i;
#endif
  }
  return (int32_t)best;
}

/* ---- the sorted order -------------------------------------------------------- */

static const float* g_sort_logits;

static int before(const void* pa, const void* pb) {
  const int64_t a = *(const int64_t*)pa, b = *(const int64_t*)pb;
  const float la = g_sort_logits[a], lb = g_sort_logits[b];
  const int na = isnan(la), nb = isnan(lb);
  if (na != nb) return na ? 1 : -1;
  if (!na && la != lb) return la > lb ? -1 : 1;
#if MUTANT(8) /* m08: ties in the sorted order by higher index first */
  return a < b ? 1 : (a > b ? -1 : 0);
#else
  return a < b ? -1 : (a > b ? 1 : 0);
#endif
}

/* ---- one row ----------------------------------------------------------------- */

static int32_t sample_row(const float* l, int64_t n, int32_t method, float t, int64_t k, float p, float min_p, double u,
                          double* prob, int64_t* idx) {
  double m = -INFINITY;
  int any = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!isnan(l[i]) && (!any || l[i] > m)) m = l[i], any = 1;
  if (!any || m == -INFINITY) return -1;
  double z = 0;
  for (int64_t i = 0; i < n; ++i) {
    double w = 0;
    if (isnan(l[i]) || l[i] == -INFINITY) w = 0;
    else if (isinf(m)) w = l[i] == m ? 1.0 : 0.0;
#if MUTANT(3) /* m03: the temperature multiplied: exp((l - m) * t) */
    else w = exp(((double)l[i] - m) * t);
#elif MUTANT(4) /* m04: softmax before temperature: the probabilities divided by t, which renormalising undoes */
    else w = exp((double)l[i] - m) / t;
#else
    else w = exp(((double)l[i] - m) / t);
#endif
    prob[i] = w;
    z += w;
  }
  for (int64_t i = 0; i < n; ++i) prob[i] /= z; /* softmax over the whole row */
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  int64_t count = n;
  if (method == TL_SAMPLE_TOP_K || method == TL_SAMPLE_TOP_P) {
    g_sort_logits = l;
    qsort(idx, (size_t)n, sizeof *idx, before);
  }
  if (method == TL_SAMPLE_TOP_K) {
#if MUTANT(7) /* m07: TopK keeps k + 1 tokens (off by one) */
    count = k < n ? k + 1 : n;
#else
    count = k;
#endif
  } else if (method == TL_SAMPLE_TOP_P) {
    double c = 0;
    count = 0;
    for (int64_t j = 0; j < n; ++j) {
      c += prob[idx[j]];
#if MUTANT(10) /* m10: cumsum < p: the token that reaches p exactly is dropped */
      if (!(c < p)) break;
#elif MUTANT(11) /* m11: one token too many: the token that crosses p is kept too */
      if (c > p) {
        ++count;
        break;
      }
#else
      if (!(c <= p)) break;
#endif
      ++count;
    }
#if !MUTANT(9) /* m09: the first token is not always kept: a top token alone past p leaves nothing */
    if (count < 1) count = 1;
#endif
    if (count > n) count = n;
  } else if (method == TL_SAMPLE_MIN_P) {
    double top = 0, sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (prob[i] > top) top = prob[i];
      sum += prob[i];
    }
#if MUTANT(13) /* m13: the threshold against the sum of the probabilities instead of their max */
    const double threshold = min_p * sum;
#else
    const double threshold = min_p * top;
#endif
    (void)sum;
    count = 0;
    for (int64_t i = 0; i < n; ++i)
#if MUTANT(14) /* m14: probs > threshold (strict): a token exactly at min_p * max is dropped */
      if (prob[i] > threshold) idx[count++] = i;
#else
      if (prob[i] >= threshold) idx[count++] = i;
#endif
  }
  double kept = 0;
  for (int64_t j = 0; j < count; ++j) kept += prob[idx[j]];
  if (!(kept > 0)) return -1;
#if MUTANT(12) || \
    MUTANT(15) /* m12 (TopP), m15 (MinP): no renormalisation: u against the unrenormalised probabilities */
  if (method == (MUTANT(12) ? TL_SAMPLE_TOP_P : TL_SAMPLE_MIN_P)) kept = 1.0;
#endif
  const double target = u * kept;
  double c = 0;
  int64_t last = -1;
  for (int64_t j = 0; j < count; ++j) {
    c += prob[idx[j]];
    if (prob[idx[j]] > 0) last = idx[j];
    if (target < c) return (int32_t)idx[j];
  }
  return (int32_t)last;
}

tl_status tl_sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  tl_status s = check(rows, vocab, method, temperature, top_k, top_p, min_p);
  if (s != TL_OK) return s;
  if (rows == 0) return TL_OK;
  if (method == TL_SAMPLE_GREEDY) {
    for (int64_t r = 0; r < rows; ++r) tokens[r] = greedy(logits + r * vocab, vocab);
    return TL_OK;
  }
  static uint64_t counter = 0;
  if (seed == 0) seed = 0x9E3779B97F4A7C15ULL * ++counter ^ (uint64_t)(uintptr_t)&counter;
  double* prob = malloc((size_t)vocab * sizeof *prob);
  int64_t* idx = malloc((size_t)vocab * sizeof *idx);
  if (prob == NULL || idx == NULL) {
    free(prob);
    free(idx);
    return TL_ERR_INVALID_ARGUMENT;
  }
  for (int64_t r = 0; r < rows; ++r) {
    pcg32 g;
    pcg_seed(&g, seed, (uint64_t)r);
    const double u = (double)(pcg_next(&g) >> 8) * 0x1p-24;
    tokens[r] = sample_row(logits + r * vocab, vocab, method, temperature, top_k, top_p, min_p, u, prob, idx);
  }
  free(prob);
  free(idx);
  return TL_OK;
}
