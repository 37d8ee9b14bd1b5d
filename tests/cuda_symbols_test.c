/* libtl_cuda.so loads without a GPU and exports every symbol its version
 * script (impl/cuda/exports.map) lists: its kernels, tl_last_error and the
 * probe of tinyllm/backend.h; and not the static CUDA runtime. Runs anywhere the library was built: the probe's
 * answer is printed, not judged (cuda_check_test.sh judges the kernels). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <tinyllm/backend.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: konform_cuda_symbols_test LIBTL_CUDA.so EXPORTS_MAP\n");
    return 2;
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    printf("FAIL: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  /* The symbols the version script exports: one list, impl/cuda/exports.map. */
  FILE* map = fopen(argv[2], "r");
  if (map == NULL) {
    printf("FAIL: cannot read %s\n", argv[2]);
    return 1;
  }
  int failures = 0, listed = 0, probe_listed = 0, last_error_listed = 0;
  char line[256], symbol[200];
  while (fgets(line, sizeof line, map) != NULL) {
    if (sscanf(line, " %199[a-z0-9_];", symbol) != 1 || strncmp(symbol, "tl_", 3) != 0) continue;
    ++listed;
    probe_listed |= strcmp(symbol, "tl_backend_unavailable") == 0;
    last_error_listed |= strcmp(symbol, "tl_last_error") == 0;
    if (dlsym(h, symbol) == NULL) {
      printf("FAIL: %s does not export %s (listed in %s)\n", argv[1], symbol, argv[2]);
      ++failures;
    }
  }
  fclose(map);
  if (listed < 3 || !probe_listed || !last_error_listed) {
    printf("FAIL: %s lists %d tl_ symbols, without tl_last_error or tl_backend_unavailable\n", argv[2], listed);
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
    printf("ok: the %d symbols of %s are exported\n", listed, argv[2]);
  }
  return failures == 0 ? 0 : 1;
}
