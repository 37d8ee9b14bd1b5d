/* wrap.h: what the wrap_*.h headers share. A wrap header turns a correct base
 * (act_base.c, tensor_base.c, ...) into a plugin whose every function calls
 * the base's between WRAP_BEFORE() and WRAP_AFTER(y, n) (an output and its
 * element count, once per output, after a TL_OK call only): how an
 * alternative changes one thing about a correct kernel (the NaNs it writes,
 * its subnormals) without copying it. The alternative defines both macros,
 * then includes the wrap header. */
#ifndef KONFORM_WRAP_H
#define KONFORM_WRAP_H

#include <stdint.h>

/* The product of n extents: a tensor's element count. */
static inline int64_t wrap_count(const int64_t* shape, int64_t n) {
  int64_t c = 1;
  for (int64_t a = 0; a < n; ++a) c *= shape[a];
  return c;
}

#endif
