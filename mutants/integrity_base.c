/* integrity_base.c: the correct base kernels wrapped with faults that no
 * comparison of values finds, only the harness's guards: a write past the
 * end, an element left unwritten, an input modified, a second call that
 * differs, a crash, a hang. -DKONFORM_MUTANT=N switches on fault N; the
 * manifest names the guard that must catch it (integrity_mNN).
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>

/* This file's fault number; the base is then included as the correct base. */
#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 6
#error "integrity mutants are 1..6"
#endif
enum { kFault = KONFORM_MUTANT };
#undef KONFORM_MUTANT

/* The base's six functions, renamed so the exported ones below can wrap them. */
#define tl_rmsnorm_f32 base_rmsnorm_f32
#define tl_rope_f32 base_rope_f32
#define tl_silu_mul_f32 base_silu_mul_f32
#define tl_embedding_f32 base_embedding_f32
#define tl_add_f32 base_add_f32
#define tl_argmax_f32 base_argmax_f32
#include "base_kernels.c"
#undef tl_rmsnorm_f32
#undef tl_rope_f32
#undef tl_silu_mul_f32
#undef tl_embedding_f32
#undef tl_add_f32
#undef tl_argmax_f32

void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  if (kFault == 5 && d == 17) raise(SIGSEGV); /* m05: crashes on one width */
  base_rmsnorm_f32(x, w, y, rows, d, eps);
}

void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
  base_rope_f32(x, pos, T, H, D, d_rot, inv_freq, attn_scaling, layout);
}

void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  if (kFault == 2 && n % 8 == 7) --n;               /* m02: a vector tail of 7 left unwritten */
  if (kFault == 3 && n > 0) ((float*)up)[0] = 0.5f; /* m03: scribbles on an input */
  base_silu_mul_f32(gate, up, y, n);
}

void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  base_embedding_f32(table, ids, out, n, d);
}

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  static int calls = 0;
  base_add_f32(a, b, y, n);
  if (kFault == 1 && n > 0) y[n] = y[n - 1]; /* m01: one element written past the end */
  if (kFault == 4 && n > 0 && (++calls & 1) == 0)
    y[0] = nextafterf(y[0], INFINITY); /* m04: every second call perturbs an element */
}

int32_t tl_argmax_f32(const float* x, int64_t n) {
  if (kFault == 6)
    while (n == 0) { /* m06: never returns on an empty row */
    }
  return base_argmax_f32(x, n);
}
