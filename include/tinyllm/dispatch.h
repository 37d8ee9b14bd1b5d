/* tinyllm/dispatch.h: which SIMD target libtl_kernels runs, and forcing one.
 *
 * Optional for a plugin: a library that exports these lets `konform check
 * --backend LIB:TARGET` test each of its targets in turn.
 */
#ifndef TINYLLM_DISPATCH_H
#define TINYLLM_DISPATCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Targets compiled in and supported by this CPU, best first. */
int tl_simd_target_count(void);
const char* tl_simd_target_name(int index); /* e.g. "AVX3", "AVX2", "SSE4"; NULL past the end */

/* Later calls run `name` (one of the above); NULL or "" restores the best.
 * Returns 0 on success, -1 for a target that is not available. */
int tl_simd_force_target(const char* name);

/* The target the next call will run. */
const char* tl_simd_active_target(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_DISPATCH_H */
