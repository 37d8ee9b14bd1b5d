// libtl_cuda: the C ABI of tinyllm/elementwise.h on a CUDA device, and its
// device-pointer twins (tinyllm/cuda/elementwise.h). The host functions copy
// their inputs to the device, run the twin on the default stream and copy
// the outputs back (host_call.cuh), so their device buffers are separate; the
// twins run in place where the ABI allows it (rmsnorm's y == x, add's
// y == a): every kernel here reads an element before it writes it and no
// other thread reads it. Sizes of 0 return before any CUDA call.
// Straightforward rather than fast: docs/cuda.md.
#include <cstdint>

#include "impl/cuda/abi.cuh"
#include "impl/cuda/arith.cuh"
#include "impl/cuda/kernels.cuh"
#include "impl/cuda/map.cuh"
#include "tinyllm/cuda/elementwise.h"

namespace kc = konform::cuda;

TL_CUDA_EXPORT void tl_rmsnorm_f32_dev(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps,
                                       tl_cuda_stream stream) {
  if (rows <= 0 || d <= 0) return;
  kc::launch_rmsnorm(x, w, y, rows, d, eps, stream);
  kc::check_launch("tl_rmsnorm_f32_dev");
}

TL_CUDA_EXPORT void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  if (rows <= 0 || d <= 0) return;
  kc::on_device("tl_rmsnorm_f32", tl_rmsnorm_f32_dev, kc::in(x, rows * d), kc::in(w, d), kc::out(y, rows * d), rows, d,
                eps);
}

TL_CUDA_EXPORT void tl_rope_f32_dev(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot,
                                    const float* inv_freq, float attn_scaling, int layout, tl_cuda_stream stream) {
  if (T <= 0 || H <= 0 || D <= 0 || d_rot / 2 <= 0) return;  // nothing rotates: x stays as it is
  const long long pairs = static_cast<long long>(T) * (d_rot / 2) * H;
  kc::launch(kc::rope_pairs, kc::grid_for(pairs, kc::kThreads), kc::kThreads, stream, x, pos, T, H, D, d_rot, inv_freq,
             attn_scaling, layout);
  kc::check_launch("tl_rope_f32_dev");
}

TL_CUDA_EXPORT void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot,
                                const float* inv_freq, float attn_scaling, int layout) {
  if (T <= 0 || H <= 0 || D <= 0 || d_rot / 2 <= 0) return;
  // the tail past d_rot goes there and back as bits
  kc::on_device("tl_rope_f32", tl_rope_f32_dev, kc::in_out(x, T * H * D), kc::in(pos, T), T, H, D, d_rot,
                kc::in(inv_freq, d_rot / 2), attn_scaling, layout);
}

TL_CUDA_EXPORT void tl_silu_mul_f32_dev(const float* gate, const float* up, float* y, int64_t n,
                                        tl_cuda_stream stream) {
  kc::run_map2(gate, up, y, n, kc::SiluMul{}, "tl_silu_mul_f32_dev", stream);
}

TL_CUDA_EXPORT void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  kc::map2_on_device("tl_silu_mul_f32", tl_silu_mul_f32_dev, gate, up, y, n);
}

namespace konform::cuda {

// out[t, :] = rows[ids[t] - first, :] as 32-bit words.
void embed_rows(const float* rows, const int32_t* ids, int64_t first, float* out, int64_t n, int64_t d,
                tl_cuda_stream stream) {
  launch(gather_rows<uint32_t>, grid_for(n * d, kThreads), kThreads, stream, reinterpret_cast<const uint32_t*>(rows),
         ids, first, reinterpret_cast<uint32_t*>(out), n, d);
  check_launch("tl_embedding_f32");
}

}  // namespace konform::cuda

TL_CUDA_EXPORT void tl_embedding_f32_dev(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d,
                                         tl_cuda_stream stream) {
  if (n > 0 && d > 0) kc::embed_rows(table, ids, 0, out, n, d, stream);
}

// The kernel cannot know V (the caller checks 0 <= ids[t] < V, spec §2.4):
// only table rows from the smallest to the largest id are copied, all of
// them inside the table.
TL_CUDA_EXPORT void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  if (n <= 0 || d <= 0) return;
  int64_t first = ids[0], last = ids[0];
  for (int64_t t = 1; t < n; ++t) {
    first = ids[t] < first ? ids[t] : first;
    last = ids[t] > last ? ids[t] : last;
  }
  kc::on_device("tl_embedding_f32", kc::embed_rows, kc::in(table + first * d, (last - first + 1) * d), kc::in(ids, n),
                first, kc::out(out, n * d), n, d);
}

TL_CUDA_EXPORT void tl_add_f32_dev(const float* a, const float* b, float* y, int64_t n, tl_cuda_stream stream) {
  kc::run_map2(a, b, y, n, kc::Add{}, "tl_add_f32_dev", stream);
}

TL_CUDA_EXPORT void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  kc::map2_on_device("tl_add_f32", tl_add_f32_dev, a, b, y, n);
}

// Returns the index by value: waits for `stream` (and its scratch).
TL_CUDA_EXPORT int32_t tl_argmax_f32_dev(const float* x, int64_t n, tl_cuda_stream stream) {
  if (n <= 0) return -1;
  const char* where = "tl_argmax_f32_dev";
  const unsigned blocks = kc::grid_for(n, kc::kThreads) < 1024 ? kc::grid_for(n, kc::kThreads) : 1024;
  kc::DeviceBuffer<kc::Best> partial(blocks, where, stream);
  kc::DeviceBuffer<int64_t> result(1, where, stream);
  kc::launch(kc::argmax_blocks, blocks, kc::kThreads, stream, x, n, partial.get());
  kc::check_launch(where);
  kc::launch(kc::argmax_final, 1, kc::kThreads, stream, partial.get(), static_cast<int64_t>(blocks), result.get());
  kc::check_launch(where);
  return static_cast<int32_t>(kc::fetch(result.get(), 1, stream, where)[0]);
}

TL_CUDA_EXPORT int32_t tl_argmax_f32(const float* x, int64_t n) {
  if (n <= 0) return -1;
  return kc::on_device("tl_argmax_f32", tl_argmax_f32_dev, kc::in(x, n), n);
}
