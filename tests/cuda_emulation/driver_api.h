/* The emulated CUDA driver's test hooks (driver_api.cpp): what a device
 * kernel in a test plugin does to the stream it was handed. */
#ifndef KONFORM_EMULATED_DRIVER_API_H
#define KONFORM_EMULATED_DRIVER_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* cuStreamQuery answers `error` for this stream from now on: 600
 * (CUDA_ERROR_NOT_READY) for a kernel that never finishes, 700
 * (CUDA_ERROR_ILLEGAL_ADDRESS) for one that faulted. */
void konform_emulated_stream_fail(void* stream, int error);

/* Runs work(arg) at the next cuStreamCreate: a kernel enqueued on a stream
 * the caller does not wait for, which writes after the caller has read. */
void konform_emulated_run_later(void (*work)(void*), void* arg);

#ifdef __cplusplus
}
#endif

#endif /* KONFORM_EMULATED_DRIVER_API_H */
