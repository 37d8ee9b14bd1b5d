/* hostile_device.c: the device-pointer add (tl_add_f32_dev, tinyllm/cuda/
 * elementwise.h) on the emulated CUDA driver (tests/cuda_emulation/
 * driver_api.cpp, linked in), right for every case but the first with
 * n == TRIGGER_N, where it misbehaves the way a GPU kernel can: built once
 * per behaviour with -DHOSTILE_DEVICE_<NAME> (tests/hostile/
 * device_manifest.tsv names each with the finding konform must give), and
 * once with none, which must pass. */
#include <stdint.h>

#include "tests/cuda_emulation/driver_api.h"

#define TRIGGER_N 47

static void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

#ifdef HOSTILE_DEVICE_OTHER_STREAM
struct late {
  const float *a, *b;
  float* y;
  int64_t n;
};
static void add_later(void* arg) {
  const struct late* l = arg;
  add(l->a, l->b, l->y, l->n);
}
#endif

void tl_add_f32_dev(const float* a, const float* b, float* y, int64_t n, void* stream) {
  if (n != TRIGGER_N) {
    add(a, b, y, n);
    return;
  }
#if defined(HOSTILE_DEVICE_WRITE_PAST)
  add(a, b, y, n);
  ((volatile char*)(y + n))[HOSTILE_DEVICE_WRITE_PAST - 1] = 1; /* into the canaries after y */
#elif defined(HOSTILE_DEVICE_WRITE_BEFORE)
  add(a, b, y, n);
  y[-1] = 0.0f; /* into the canaries before y */
#elif defined(HOSTILE_DEVICE_UNWRITTEN)
  add(a, b, y, n - 1); /* the last element left as it was */
#elif defined(HOSTILE_DEVICE_INPUT_CHANGED)
  add(a, b, y, n);
  ((float*)a)[n / 2] = 0.5f;
#elif defined(HOSTILE_DEVICE_HANG)
  add(a, b, y, n);
  konform_emulated_stream_fail(stream, 600); /* the stream never finishes */
#elif defined(HOSTILE_DEVICE_FAULT)
  add(a, b, y, n);
  konform_emulated_stream_fail(stream, 700); /* the kernel faulted */
#elif defined(HOSTILE_DEVICE_OTHER_STREAM)
  static struct late l;
  l.a = a, l.b = b, l.y = y, l.n = n;
  konform_emulated_run_later(add_later, &l); /* on a stream nobody waits for */
#else
  add(a, b, y, n);
#endif
  (void)stream;
}
