/* A plugin whose probe says it can run here (NULL): checked as any plugin is. */
#include <stddef.h>
#include <tinyllm/backend.h>
#include <tinyllm/elementwise.h>

const char* tl_backend_unavailable(void) { return NULL; }

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
