/* Calls libtl_kernels through the installed header and library: one add. */
#include <stdio.h>
#include <tinyllm/elementwise.h>

int main(void) {
  const float a[3] = {1.0f, 2.0f, 3.0f}, b[3] = {0.5f, 0.25f, -3.0f};
  float y[3];
  tl_add_f32(a, b, y, 3);
  if (y[0] != 1.5f || y[1] != 2.25f || y[2] != 0.0f) {
    fprintf(stderr, "consumer: tl_add_f32 gave %g %g %g\n", y[0], y[1], y[2]);
    return 1;
  }
  puts("consumer: tl_add_f32 through the installed konform: ok");
  return 0;
}
