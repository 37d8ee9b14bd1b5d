/* flush_subnormals.h: the wrap macros (wrap.h) of an alternative built the
 * way TensorFlow's CPU kernels, oneDNN's injectors and `nvcc -ftz=true` run:
 * subnormal inputs read as zero (DAZ) and subnormal results flushed to zero
 * (FTZ). On x86 the base runs with MXCSR's DAZ and FTZ bits set and the
 * caller's MXCSR restored on return (konform's own double oracle must not
 * flush); elsewhere the outputs alone are flushed. Correct in konform's
 * --flush-subnormals mode, a finding in the default strict one. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
static void restore_csr(const unsigned* csr) { _mm_setcsr(*csr); }
#define WRAP_BEFORE()                                                           \
  __attribute__((cleanup(restore_csr))) const unsigned wrap_csr = _mm_getcsr(); \
  _mm_setcsr(wrap_csr | 0x8040u) /* FTZ (bit 15) and DAZ (bit 6) */
#define WRAP_AFTER(y, n) ((void)(y), (void)(n))
#else
static void flush_outputs(float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (y[i] != 0 && fabsf(y[i]) < FLT_MIN) y[i] = copysignf(0.0f, y[i]);
}
#define WRAP_BEFORE() ((void)0)
#define WRAP_AFTER(y, n) flush_outputs((y), (n))
#endif
