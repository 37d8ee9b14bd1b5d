/* A plugin that says it cannot run here (tinyllm/backend.h): konform must
 * call none of its kernels and report each one not run with this reason. */
#include <stdlib.h>
#include <tinyllm/backend.h>
#include <tinyllm/elementwise.h>

const char* tl_backend_unavailable(void) { return "test plugin: no device here"; }

/* Called anyway, it would end the run: a check that calls it cannot pass. */
void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  (void)a, (void)b, (void)y, (void)n;
  abort();
}
