/* The KV cache of tinyllm/kv_cache.h, written again in plain C for the mutant
 * plugins (independent of impl/ and of the reference).
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is the correct plugin
 * kv_cache_base; with -DKONFORM_MUTANT=N it is mutant kv_cache_mNN: one
 * defect from the spec's lifecycle rules, named where it is made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinyllm/kv_cache.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 8
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..8 (kv_cache_m01..m08)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

static const char* last_error = "";
const char* tl_last_error(void) { return last_error; }
static tl_status fail(tl_status s, const char* why) {
  last_error = why;
  return s;
}

struct tl_kv_cache {
  int64_t layers, heads, dim, max_seq;
  float *k, *v; /* [layers][heads][max_seq][dim] */
  unsigned char* appended;
  int64_t past, s;
  int64_t start; /* past_seq_len at begin (m01 writes there) */
};

static int64_t at(const tl_kv_cache* c, int64_t layer, int64_t h, int64_t t) {
  return ((layer * c->heads + h) * c->max_seq + t) * c->dim;
}

static tl_status create(int64_t layers, int64_t heads, int64_t dim, int64_t max_seq, tl_kv_cache** out) {
  *out = NULL;
  if (layers < 1 || heads < 1 || dim < 1 || max_seq < 1) return fail(TL_ERR_INVALID_ARGUMENT, "a size < 1");
  if ((long double)8 * layers * heads * dim * max_seq > (long double)INT64_MAX)
    return fail(TL_ERR_INVALID_ARGUMENT, "the cache's size overflows int64_t");
  tl_kv_cache* c = calloc(1, sizeof *c);
  if (!c) return fail(TL_ERR_INVALID_ARGUMENT, "out of memory");
  size_t n = (size_t)(layers * heads * dim * max_seq);
  c->layers = layers, c->heads = heads, c->dim = dim, c->max_seq = max_seq;
  /* Zeroed, though a correct cache never reads a slot it has not written:
   * the mutants that do (m01, m04, m08) then read the same values on every
   * run, so which checks catch them (reports/mutants.json) does not depend
   * on what the heap held before. */
  c->k = calloc(n, sizeof(float));
  c->v = calloc(n, sizeof(float));
  c->appended = calloc((size_t)layers, 1);
  if (!c->k || !c->v || !c->appended) {
    free(c->k), free(c->v), free(c->appended), free(c);
    return fail(TL_ERR_INVALID_ARGUMENT, "out of memory");
  }
  *out = c;
  return TL_OK;
}

static void destroy(tl_kv_cache* c) {
  if (!c) return;
  free(c->k), free(c->v), free(c->appended), free(c);
}

static tl_status begin(tl_kv_cache* c, int64_t s) {
  if (s < 1) return fail(TL_ERR_INVALID_ARGUMENT, "s < 1");
  if (c->s > 0) return fail(TL_ERR_INVALID_ARGUMENT, "a forward is in progress");
#if MUTANT(2) /* m02: no overflow check: the write is cut at max_seq (silent truncation) */
  if (c->past + s > c->max_seq) s = c->max_seq - c->past;
  if (s < 1) return fail(TL_ERR_CONTEXT_OVERFLOW, "full");
#elif MUTANT(3) /* m03: the check off by one: a forward that exactly fills the cache is refused */
  if (c->past + s >= c->max_seq) return fail(TL_ERR_CONTEXT_OVERFLOW, "past + s >= max_seq");
#else
  if (c->past + s > c->max_seq) return fail(TL_ERR_CONTEXT_OVERFLOW, "past + s > max_seq");
#endif
  c->s = s;
  c->start = c->past;
  memset(c->appended, 0, (size_t)c->layers);
  return TL_OK;
}

static tl_status append_f32(tl_kv_cache* c, int64_t layer, const float* k, const float* v) {
  (void)v; /* unread by m05 */
  if (c->s == 0) return fail(TL_ERR_INVALID_ARGUMENT, "append outside a forward");
  if (layer < 0 || layer >= c->layers) return fail(TL_ERR_INVALID_ARGUMENT, "layer out of range");
  if (c->appended[layer]) return fail(TL_ERR_INVALID_ARGUMENT, "layer appended twice");
  for (int64_t h = 0; h < c->heads; ++h)
    for (int64_t t = 0; t < c->s; ++t)
      for (int64_t d = 0; d < c->dim; ++d) {
#if MUTANT(4) /* m04: the heads packed at the sequence's length, not at max_seq (the head stride ignored) */
        int64_t to = (layer * c->heads * c->max_seq) + (h * c->s + c->past + t) * c->dim + d;
#elif MUTANT(8) /* m08: the new rows written at position 0 of every forward (past ignored on write) */
        int64_t to = at(c, layer, h, t) + d;
#elif MUTANT(1)
        int64_t to = at(c, layer, h, c->start + t) + d;
#else
        int64_t to = at(c, layer, h, c->past + t) + d;
#endif
        c->k[to] = k[(h * c->s + t) * c->dim + d];
#if MUTANT(5) /* m05: V written from K */
        c->v[to] = k[(h * c->s + t) * c->dim + d];
#else
        c->v[to] = v[(h * c->s + t) * c->dim + d];
#endif
      }
  c->appended[layer] = 1;
#if MUTANT(1) /* m01: past_seq_len advanced per layer, at its append (the rows still land at the forward's start) */
  c->past += c->s;
#endif
  return TL_OK;
}

static tl_status view_f32(const tl_kv_cache* c, int64_t layer, tl_kv_view_f32* out) {
  if (layer < 0 || layer >= c->layers) return fail(TL_ERR_INVALID_ARGUMENT, "layer out of range");
  out->k = c->k + at(c, layer, 0, 0);
  out->v = c->v + at(c, layer, 0, 0);
#if MUTANT(6) || MUTANT(1) /* m06: the view stops at past_seq_len: the forward's own positions are not read */
  out->length = c->past;
#else
  out->length = c->past + (c->s > 0 && c->appended[layer] ? c->s : 0);
#endif
  out->head_stride = c->max_seq * c->dim;
  return TL_OK;
}

static tl_status commit(tl_kv_cache* c) {
  if (c->s == 0) return fail(TL_ERR_INVALID_ARGUMENT, "commit outside a forward");
#if !MUTANT(1)
  for (int64_t l = 0; l < c->layers; ++l)
    if (!c->appended[l]) return fail(TL_ERR_INVALID_ARGUMENT, "a layer has not appended");
  c->past += c->s;
#endif
  c->s = 0;
  return TL_OK;
}

static void reset(tl_kv_cache* c) {
#if !MUTANT(7) /* m07: reset drops the forward in progress but keeps past_seq_len */
  c->past = 0;
#endif
  c->s = 0;
}

static int64_t past_seq_len(const tl_kv_cache* c) { return c->past; }

static const tl_kv_cache_api api = {1, create, destroy, begin, append_f32, view_f32, commit, reset, past_seq_len};

const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &api; }
