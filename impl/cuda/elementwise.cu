// libtl_cuda: the C ABI of tinyllm/elementwise.h on a CUDA device. Pointers
// are host pointers: each call copies its inputs to the device, launches,
// copies its outputs back and frees what it allocated. Inputs and outputs
// live in separate device buffers, so the in-place calls the ABI allows
// (rmsnorm's y == x, add's y == a) need nothing special. Sizes of 0 return
// before any CUDA call. Straightforward rather than fast: docs/cuda.md.
#include <cstdint>

#include "impl/cuda/abi.cuh"
#include "impl/cuda/arith.cuh"
#include "impl/cuda/kernels.cuh"
#include "impl/cuda/map.cuh"
#include "tinyllm/elementwise.h"

namespace kc = konform::cuda;

TL_CUDA_EXPORT void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  if (rows <= 0 || d <= 0) return;
  const char* where = "tl_rmsnorm_f32";
  const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(d);
  kc::DeviceBuffer<float> dx(x, n, where), dw(w, static_cast<size_t>(d), where), dy(n, where);
  kc::launch_rmsnorm(dx.get(), dw.get(), dy.get(), rows, d, eps);
  kc::check_launch(where);
  dy.copy_to(y);
}

TL_CUDA_EXPORT void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot,
                                const float* inv_freq, float attn_scaling, int layout) {
  if (T <= 0 || H <= 0 || D <= 0 || d_rot / 2 <= 0) return;  // nothing rotates: x stays as it is
  const char* where = "tl_rope_f32";
  const size_t n = static_cast<size_t>(T) * static_cast<size_t>(H) * static_cast<size_t>(D);
  kc::DeviceBuffer<float> dx(x, n, where), dfreq(inv_freq, static_cast<size_t>(d_rot / 2), where);
  kc::DeviceBuffer<int32_t> dpos(pos, static_cast<size_t>(T), where);
  const long long pairs = static_cast<long long>(T) * (d_rot / 2) * H;
  kc::launch(kc::rope_pairs, kc::grid_for(pairs, kc::kThreads), kc::kThreads, dx.get(), dpos.get(), T, H, D, d_rot,
             dfreq.get(), attn_scaling, layout);
  kc::check_launch(where);
  dx.copy_to(x);  // the tail past d_rot went there and back as bits
}

TL_CUDA_EXPORT void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  kc::run_map2(gate, up, y, n, kc::SiluMul{}, "tl_silu_mul_f32");
}

// The kernel cannot know V (the caller checks 0 <= ids[t] < V, spec §2.4):
// only table rows from the smallest to the largest id are copied, all of
// them inside the table.
TL_CUDA_EXPORT void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  if (n <= 0 || d <= 0) return;
  const char* where = "tl_embedding_f32";
  int64_t first = ids[0], last = ids[0];
  for (int64_t t = 1; t < n; ++t) {
    first = ids[t] < first ? ids[t] : first;
    last = ids[t] > last ? ids[t] : last;
  }
  const size_t row_count = static_cast<size_t>(last - first + 1);
  const auto* rows = reinterpret_cast<const uint32_t*>(table + first * d);
  kc::DeviceBuffer<uint32_t> drows(rows, row_count * static_cast<size_t>(d), where);
  kc::DeviceBuffer<int32_t> dids(ids, static_cast<size_t>(n), where);
  kc::DeviceBuffer<uint32_t> dout(static_cast<size_t>(n) * static_cast<size_t>(d), where);
  kc::launch(kc::gather_rows, kc::grid_for(n * d, kc::kThreads), kc::kThreads, drows.get(), dids.get(), first,
             dout.get(), n, d);
  kc::check_launch(where);
  dout.copy_to(reinterpret_cast<uint32_t*>(out));
}

TL_CUDA_EXPORT void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  kc::run_map2(a, b, y, n, kc::Add{}, "tl_add_f32");
}

TL_CUDA_EXPORT int32_t tl_argmax_f32(const float* x, int64_t n) {
  if (n <= 0) return -1;
  const char* where = "tl_argmax_f32";
  const unsigned blocks = kc::grid_for(n, kc::kThreads) < 1024 ? kc::grid_for(n, kc::kThreads) : 1024;
  kc::DeviceBuffer<float> dx(x, static_cast<size_t>(n), where);
  kc::DeviceBuffer<kc::Best> partial(blocks, where);
  kc::DeviceBuffer<int64_t> result(1, where);
  kc::launch(kc::argmax_blocks, blocks, kc::kThreads, dx.get(), n, partial.get());
  kc::check_launch(where);
  kc::launch(kc::argmax_final, 1, kc::kThreads, partial.get(), static_cast<int64_t>(blocks), result.get());
  kc::check_launch(where);
  int64_t index = -1;
  result.copy_to(&index);
  return static_cast<int32_t>(index);
}
