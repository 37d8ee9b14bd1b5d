/* tinyllm/cuda/stream.h: the device-pointer ABI of libtl_cuda.
 *
 * Every host function tl_X of tinyllm/<family>.h that libtl_cuda exports has
 * a twin tl_X_dev, declared in tinyllm/cuda/<family>.h, with tl_X's
 * parameters plus a trailing tl_cuda_stream and tl_X's return type:
 *
 * - Every pointer to tensor data (inputs, outputs, in-out tensors, and the
 *   int32 and byte tensors: tokens, indices, ids, positions, quantized
 *   blocks) is a device pointer. Pointers to parameters stay host pointers:
 *   shape arrays (shapes, dims, sizes, strides, kernel geometry, perm),
 *   MultiAxisRope's axis_dims and axis_bases, and the arrays of Concat,
 *   Split and Chunk themselves (host arrays whose elements are device
 *   pointers). Scalars and returned values as in tl_X.
 * - The arguments are checked first, as tl_X checks them: a refused call
 *   returns tl_X's status with tl_X's tl_last_error words, enqueues nothing
 *   and writes nothing.
 * - The work is enqueued on `stream` (NULL: the legacy default stream) and
 *   the function may return before it is done: the caller synchronizes
 *   before reading the outputs or reusing the inputs. A function that must
 *   read device data on the host (positions and ids its checks look at,
 *   Quantize's values, an argmax index it returns) or that needs scratch
 *   memory synchronizes `stream` itself before it returns; the comments in
 *   impl/cuda/ say which.
 * - An output may be the same pointer as an input exactly where tl_X allows
 *   it (y == x for the elementwise maps, ...); any other overlap is undefined.
 *
 * A CUDA failure (an allocation, a launch) prints what failed and aborts, as
 * in tl_X. The KV cache's device table is tinyllm/cuda/kv_cache.h. */
#ifndef TINYLLM_CUDA_STREAM_H
#define TINYLLM_CUDA_STREAM_H

typedef struct CUstream_st* tl_cuda_stream; /* a cudaStream_t */

#endif /* TINYLLM_CUDA_STREAM_H */
