/* tinyllm/backend.h: what any backend library may say about itself.
 *
 * Optional for every library that exports the C ABI of the tinyllm headers: a library
 * without these functions is taken to run wherever it loads.
 */
#ifndef TINYLLM_BACKEND_H
#define TINYLLM_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when this library's kernels can run on this machine; otherwise a short
 * reason they cannot, e.g. "no CUDA device: cudaErrorNoDevice (no CUDA-capable
 * device is detected)". A harness asks before calling any kernel and, given a
 * reason, calls none and reports them "not run" with it (never "passed").
 * The string stays valid until the library is unloaded. konform calls it in a
 * child process of its own, once per load: a GPU runtime initialised there is
 * not inherited by the processes that later run the kernels. */
const char* tl_backend_unavailable(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_BACKEND_H */
