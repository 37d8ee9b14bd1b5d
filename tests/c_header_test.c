/* The public headers are usable from C (C11, -pedantic-errors -Werror): this
 * file includes them (libtl_cuda's device-pointer headers, tinyllm/cuda/,
 * declare its twins and include the family headers they mirror), links libtl_kernels, and runs every one of the six
 * functions on the spec's worked examples (elementwise-kernels.txt, section 3)
 * on every SIMD target the library offers here. Exit status 0 only if every
 * check passed. */
#include <tinyllm/cuda/activations.h>
#include <tinyllm/cuda/attention.h>
#include <tinyllm/cuda/conv.h>
#include <tinyllm/cuda/elementwise.h>
#include <tinyllm/cuda/kv_cache.h>
#include <tinyllm/cuda/linalg.h>
#include <tinyllm/cuda/norm.h>
#include <tinyllm/cuda/pos.h>
#include <tinyllm/cuda/quant.h>
#include <tinyllm/cuda/sampling.h>
#include <tinyllm/cuda/spatial.h>
#include <tinyllm/cuda/stream.h>
#include <tinyllm/cuda/tensor.h>
#include <tinyllm/dispatch.h>
#include <tinyllm/elementwise.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
static const char* target = "default";

/* The spec prints 7 decimals; f32 adds a few roundoffs: 1e-6 relative. */
static void near(const char* what, int i, float got, double want) {
  const double tol = 1e-6 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
  if (!(fabs((double)got - want) <= tol)) {
    fprintf(stderr, "FAIL [%s] %s[%d] = %.9g, expected %.9g\n", target, what, i, (double)got, want);
    ++failures;
  }
}

static void same_bits(const char* what, int i, float got, float want) {
  if (memcmp(&got, &want, sizeof got) != 0) {
    fprintf(stderr, "FAIL [%s] %s[%d] = %.9g, expected exactly %.9g\n", target, what, i, (double)got, (double)want);
    ++failures;
  }
}

static void index_is(const char* what, int32_t got, int32_t want) {
  if (got != want) {
    fprintf(stderr, "FAIL [%s] %s = %d, expected %d\n", target, what, (int)got, (int)want);
    ++failures;
  }
}

static void run_all(void) {
  int i;
  {
    const float x[2] = {3.0f, 4.0f}, w[2] = {1.0f, 0.5f};
    const double want[2] = {0.8485281, 0.5656854};
    float y[2], inplace[2] = {3.0f, 4.0f};
    tl_rmsnorm_f32(x, w, y, 1, 2, 0.0f);
    for (i = 0; i < 2; ++i) near("rmsnorm", i, y[i], want[i]);
    tl_rmsnorm_f32(inplace, w, inplace, 1, 2, 0.0f); /* y == x is allowed */
    for (i = 0; i < 2; ++i) near("rmsnorm in place", i, inplace[i], want[i]);
  }
  {
    /* Section 4: eps inside the root, 1e-3 / sqrt(1e-6 + 1e-6) = 0.70710678. */
    const float x[2] = {1e-3f, 1e-3f}, w[2] = {1.0f, 1.0f};
    float y[2];
    tl_rmsnorm_f32(x, w, y, 1, 2, 1e-6f);
    for (i = 0; i < 2; ++i) near("rmsnorm eps inside the root", i, y[i], 0.70710678);
  }
  {
    const int32_t pos[1] = {1};
    const float inv_freq[2] = {1.0f, 0.01f};
    float half[4] = {1, 2, 3, 4}, inter[4] = {1, 2, 3, 4};
    const double want_half[4] = {-1.9841107, 1.9599007, 2.4623779, 4.0197997};
    const double want_inter[4] = {-1.1426397, 1.9220756, 2.9598507, 4.0297995};
    tl_rope_f32(half, pos, 1, 1, 4, 4, inv_freq, 1.0f, 0);
    tl_rope_f32(inter, pos, 1, 1, 4, 4, inv_freq, 1.0f, 1);
    for (i = 0; i < 4; ++i) near("rope half", i, half[i], want_half[i]);
    for (i = 0; i < 4; ++i) near("rope interleaved", i, inter[i], want_inter[i]);
  }
  {
    /* Partial rotary (d_rot = 4 of D = 6: the tail passes through) and
     * attn_scaling = 2 (doubles the pair), on two tokens x one head. */
    const int32_t pos[2] = {1, 0};
    const float inv_freq[2] = {1.0f, 0.01f};
    float x[12] = {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6};
    const double want[12] = {2 * -1.9841107, 2 * 1.9599007, 2 * 2.4623779, 2 * 4.0197997, 5, 6, 2, 4, 6, 8, 5, 6};
    tl_rope_f32(x, pos, 2, 1, 6, 4, inv_freq, 2.0f, 0);
    for (i = 0; i < 12; ++i) near("rope partial, scaled", i, x[i], want[i]);
  }
  {
    const float gate[3] = {0.0f, 1.0f, -1.0f}, up[3] = {5.0f, 2.0f, 3.0f};
    const double want[3] = {0.0, 1.4621172, -0.8068243};
    float y[3];
    tl_silu_mul_f32(gate, up, y, 3);
    for (i = 0; i < 3; ++i) near("silu_mul", i, y[i], want[i]);
  }
  {
    const float table[6] = {0.0f, 1.0f, 10.0f, 11.0f, 20.0f, 21.5f}; /* V = 3, d = 2 */
    const int32_t ids[3] = {2, 0, 2};
    const float want[6] = {20.0f, 21.5f, 0.0f, 1.0f, 20.0f, 21.5f};
    float out[6];
    tl_embedding_f32(table, ids, out, 3, 2);
    for (i = 0; i < 6; ++i) same_bits("embedding", i, out[i], want[i]);
  }
  {
    float a[3] = {1.0f, 2.0f, 0.1f};
    const float b[3] = {0.5f, -2.0f, 0.2f};
    const float want[3] = {1.5f, 0.0f, 0.1f + 0.2f};
    float y[3];
    tl_add_f32(a, b, y, 3);
    for (i = 0; i < 3; ++i) same_bits("add", i, y[i], want[i]);
    tl_add_f32(a, b, a, 3); /* y == a is allowed */
    for (i = 0; i < 3; ++i) same_bits("add in place", i, a[i], want[i]);
  }
  {
    const float x[4] = {2.0f, 7.0f, 7.0f, -1.0f};
    const float nan_first[3] = {NAN, 1.0f, 3.0f};
    const float all_nan[2] = {NAN, NAN};
    index_is("argmax [2, 7, 7, -1]", tl_argmax_f32(x, 4), 1);
    index_is("argmax [NaN, 1, 3]", tl_argmax_f32(nan_first, 3), 2);
    index_is("argmax [NaN, NaN]", tl_argmax_f32(all_nan, 2), -1);
    index_is("argmax of nothing", tl_argmax_f32(x, 0), -1);
  }
}

int main(void) {
  const int count = tl_simd_target_count();
  int t;
  if (count <= 0) {
    fprintf(stderr, "FAIL tl_simd_target_count() = %d: libtl_kernels always has at least one target\n", count);
    ++failures;
    run_all();
  }
  for (t = 0; t < count; ++t) {
    const char* name = tl_simd_target_name(t);
    const char* active;
    if (name == NULL) {
      fprintf(stderr, "FAIL tl_simd_target_name(%d) is NULL below the count %d\n", t, count);
      ++failures;
      continue;
    }
    if (tl_simd_force_target(name) != 0) {
      fprintf(stderr, "FAIL tl_simd_force_target(\"%s\") refused a listed target\n", name);
      ++failures;
      continue;
    }
    active = tl_simd_active_target();
    if (active == NULL || strcmp(active, name) != 0) {
      fprintf(stderr, "FAIL forced \"%s\" but tl_simd_active_target() says \"%s\"\n", name, active ? active : "(null)");
      ++failures;
    }
    target = name;
    run_all();
    printf("target %s: checked\n", name);
  }
  if (tl_simd_target_name(count) != NULL) {
    fprintf(stderr, "FAIL tl_simd_target_name(count) is not NULL\n");
    ++failures;
  }
  if (tl_simd_force_target("NO_SUCH_TARGET") != -1) {
    fprintf(stderr, "FAIL tl_simd_force_target(\"NO_SUCH_TARGET\") did not return -1\n");
    ++failures;
  }
  if (tl_simd_force_target(NULL) != 0) {
    fprintf(stderr, "FAIL tl_simd_force_target(NULL) did not restore the best target\n");
    ++failures;
  }
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all six functions of tinyllm/elementwise.h work from C on %d target(s)\n", count);
  return 0;
}
