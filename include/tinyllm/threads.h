/* tinyllm/threads.h: how many threads the multithreaded kernels of
 * libtl_kernels use (Matmul and everything built on it: the feed-forwards, the
 * fused ops, the quantized matmuls; and FlashAttention, over KV heads).
 *
 * Results never depend on the thread count: work is split over output columns
 * (attention: whole KV heads) and every output element is computed in the
 * same order whatever the split, so 1 and 8 threads give the same bits.
 *
 * The default is 1 thread, or the value of the environment variable
 * TL_NUM_THREADS (a positive integer) when it is set at the first call. Small
 * problems run on one thread whatever the setting.
 *
 * The calling thread takes a share of the work. With n > 1, the n - 1 helper
 * threads a call starts stay about 100 microseconds after it, spinning for the
 * next call's share, and then end: back-to-back calls (a decode step) do not
 * pay to start threads, and nothing keeps running between bursts of calls.
 */
#ifndef TINYLLM_THREADS_H
#define TINYLLM_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Later calls use n threads (n >= 1); n <= 0 restores the default. Returns
 * the previous setting. Not to be called while kernels run on other threads. */
int tl_set_num_threads(int n);

/* The number of threads the next large call will use. */
int tl_get_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_THREADS_H */
