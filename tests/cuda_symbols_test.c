/* libtl_cuda.so loads without a GPU, exports tl_last_error and the probe of
 * tinyllm/backend.h, and not the static CUDA runtime (cuda_symbols_test.sh
 * compares the rest of its symbols with its emulated build's). Runs anywhere
 * the library was built: the probe's answer is printed, not judged
 * (cuda_check_test.sh judges the kernels). */
#include <dlfcn.h>
#include <stdio.h>

#include <tinyllm/backend.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: konform_cuda_symbols_test LIBTL_CUDA.so\n");
    return 2;
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    printf("FAIL: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  int failures = 0;
  const char* required[] = {"tl_last_error", "tl_backend_unavailable"};
  for (int i = 0; i < 2; ++i)
    if (dlsym(h, required[i]) == NULL) {
      printf("FAIL: %s does not export %s\n", argv[1], required[i]);
      ++failures;
    }
  /* The static CUDA runtime stays inside (impl/cuda/exports.map). */
  if (dlsym(h, "cudaMalloc") != NULL) {
    printf("FAIL: %s exports cudaMalloc\n", argv[1]);
    ++failures;
  }
  if (failures == 0) {
    typedef const char* (*probe_fn)(void);
    probe_fn probe;
    *(void**)&probe = dlsym(h, "tl_backend_unavailable");
    const char* why = probe();
    printf("tl_backend_unavailable: %s\n", why ? why : "NULL (a device is usable)");
    printf("ok: %s loads, with its probe and tl_last_error, and keeps the CUDA runtime inside\n", argv[1]);
  }
  return failures == 0 ? 0 : 1;
}
