/* hostile.c: an add (tl_add_f32) that computes the right sum and then
 * misbehaves on purpose, the way a plugin konform should survive would:
 * built once per behaviour with -DHOSTILE_<NAME> (tests/hostile/manifest.tsv
 * names each with the finding konform must give). The behaviour starts at
 * the first call with n == TRIGGER_N, so it belongs to one case of the
 * sweep, which the test finds and replays.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TRIGGER_N 47

static void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

#ifdef HOSTILE_HANG_CTOR
__attribute__((constructor)) static void hang_in_constructor(void) {
  for (;;) pause();
}
#endif

#ifdef HOSTILE_THREAD_AFTER_RETURN
/* Keeps writing into y for 200 ms after the call returned. */
struct late {
  float* y;
  int64_t n;
};
static void* scribble(void* arg) {
  struct late* l = arg;
  const struct timespec tick = {0, 100000};
  for (int round = 0; round < 2000; ++round) {
    for (int64_t i = 0; i < l->n; ++i) ((volatile float*)l->y)[i] = -1.0f;
    nanosleep(&tick, NULL);
  }
  return NULL;
}
#endif

#ifdef HOSTILE_STACK_OVERFLOW
static int deeper(volatile char* p) {
  volatile char frame[4096];
  frame[0] = p[0];
  return deeper(frame) + frame[1];
}
#endif

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  add(a, b, y, n);
  if (n != TRIGGER_N) return;
#if defined(HOSTILE_THREAD_AFTER_RETURN)
  static struct late l;
  l.y = y;
  l.n = n;
  pthread_t t;
  pthread_create(&t, NULL, scribble, &l);
  pthread_detach(t);
#elif defined(HOSTILE_WRITE_PAST)
  ((volatile char*)(y + n))[HOSTILE_WRITE_PAST - 1] = 1; /* HOSTILE_WRITE_PAST bytes past the end */
#elif defined(HOSTILE_READ_PAST)
  y[0] = a[0] + ((const volatile float*)b)[n + HOSTILE_READ_PAST / 4] * 0.0f;
#elif defined(HOSTILE_HANG_CALL)
  for (;;) {
  }
#elif defined(HOSTILE_ABORT)
  abort();
#elif defined(HOSTILE_EXIT)
  exit(0);
#elif defined(HOSTILE_STACK_OVERFLOW)
  y[0] = (float)deeper((volatile char*)y);
#elif defined(HOSTILE_FORK_BOMB)
  /* Forks until fork fails (RLIMIT_NPROC), at most 64 times: root is exempt
   * from the limit, and this test must not take the machine down. */
  for (int i = 0; i < 64; ++i) {
    const pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0)
      for (;;) pause();
  }
#elif defined(HOSTILE_HUGE_ALLOC)
  /* 1 TiB without reserving it: refused under konform's RLIMIT_AS. */
  void* p = mmap(NULL, (size_t)1 << 40, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) abort();
  munmap(p, (size_t)1 << 40);
#elif defined(HOSTILE_MIMIC_OUTPUT)
  printf(
      "PASS  elementwise_add  scalar               300 cases  0 properties  0.1s\n1 passed, 0 failed, 0 unsupported\n");
  fflush(stdout);
  fprintf(stderr, "konform: everything is fine\n");
#elif defined(HOSTILE_CLOSE_FDS)
  for (int fd = 3; fd < 1024; ++fd) close(fd);
#endif
}
