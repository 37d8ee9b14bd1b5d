// libtl_cuda: tinyllm/attention.h on a CUDA device and its device-pointer
// twins, as elementwise.cu; the checks are libtl_kernels' (attention_args.hpp).
// One block of kLineThreads per query row. Rounding follows the oracle's
// float instantiation (reference/konform/reference/attention.hpp) where it
// is float (the scale, the masks, expf, the division by the sum); every sum
// over keys or over head_dim runs in double, which meets the pairwise
// summation contract of docs/tolerances.md "Reductions" at any Sk and in any order.
#include <algorithm>
#include <cstdint>

#include "impl/common/attention_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/reduce.cuh"
#include "tinyllm/cuda/attention.h"
#include "tinyllm/cuda/elementwise.h"
#include "tinyllm/cuda/norm.h"
#include "tinyllm/cuda/tensor.h"

namespace kc = konform::cuda;
namespace ka = konform::impl::attention_args;

namespace konform::cuda {

// A validated call as the kernels read it.
struct AttnCall {
  int64_t heads, kv_heads, sq, sk, d, rows;  // rows = batch * heads * sq
  int64_t window;                            // 0: a row sees all sk keys; else its own window's
  int causal;
  float scale;                     // 1 / sqrt(head_dim), rounded as the oracle's float
  int64_t mask_b, mask_h, mask_i;  // the mask's strides (ka::mask_layout)
};

// Where query row `row` = (b, h, i) reads, and the keys [j0, j1) it sees.
struct AttnRow {
  const float *q, *k, *v, *mask;
  int64_t i, j0, j1;
};

__device__ inline AttnRow attn_row(const AttnCall& c, const float* q, const float* k, const float* v, const float* mask,
                                   int64_t row) {
  const int64_t i = row % c.sq, h = row / c.sq % c.heads, b = row / c.sq / c.heads;
  const int64_t kv = (b * c.kv_heads + h / (c.heads / c.kv_heads)) * c.sk * c.d;  // GQA: repeat_interleave
  const int64_t j0 = c.window > 0 ? i / c.window * c.window : 0;
  return {q + row * c.d,
          k + kv,
          v + kv,
          mask == nullptr ? nullptr : mask + b * c.mask_b + h * c.mask_h + i * c.mask_i,
          i,
          j0,
          c.window > 0 ? j0 + c.window : c.sk};
}

// The oracle's score: the dot product (here exact products summed in double,
// rounded once), times the scale, + -1e4 when causally masked, + the mask.
__device__ inline float attn_score(const AttnCall& c, const AttnRow& r, int64_t j) {
  const float* kj = r.k + j * c.d;
  double dot = 0.0;
  for (int64_t t = 0; t < c.d; ++t) dot += static_cast<double>(r.q[t]) * static_cast<double>(kj[t]);
  float s = static_cast<float>(dot) * c.scale;
  if (c.causal != 0 && j > r.i + c.sk - c.sq) s += -1e4f;
  if (r.mask != nullptr) s += r.mask[j];
  return s;
}

// Sdpa, SdpaCross, SdpaWindow: the row's scores in `scratch` (j1 - j0 floats
// per block), the max by a tree, e = expf(s - m) summed in double and rounded
// once, p = e / sum in float (the oracle's p); then thread t of head_dim
// sums p_j v_j[t] over the keys in double.
__global__ void sdpa_rows(AttnCall c, const float* q, const float* k, const float* v, const float* mask, float* y,
                          float* scratch) {
  __shared__ float shared_max[kLineThreads];
  __shared__ double shared_sum[kLineThreads];
  const int64_t keys = c.window > 0 ? c.window : c.sk;
  float* p = scratch + blockIdx.x * keys;
  for (int64_t row = blockIdx.x; row < c.rows; row += gridDim.x) {
    const AttnRow r = attn_row(c, q, k, v, mask, row);
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < keys; j += kLineThreads) m = MaxOrNan{}(m, p[j] = attn_score(c, r, r.j0 + j));
    m = reduce_block<kLineThreads>(m, shared_max, MaxOrNan{});
    double sum = 0.0;
    for (int64_t j = threadIdx.x; j < keys; j += kLineThreads) sum += static_cast<double>(p[j] = expf(p[j] - m));
    const float total = static_cast<float>(reduce_block<kLineThreads>(sum, shared_sum, Plus{}));
    for (int64_t j = threadIdx.x; j < keys; j += kLineThreads) p[j] /= total;
    __syncthreads();  // every p_j before any thread's weighted sum
    const float* vr = r.v + r.j0 * c.d;
    for (int64_t t = threadIdx.x; t < c.d; t += kLineThreads) {
      double acc = 0.0;
      for (int64_t j = 0; j < keys; ++j) acc += static_cast<double>(p[j]) * static_cast<double>(vr[j * c.d + t]);
      y[row * c.d + t] = static_cast<float>(acc);
    }
    __syncthreads();  // the next row rewrites p
  }
}

// FlashAttention: the oracle's online softmax over tiles of kLineThreads keys
// (one per thread), no score row: a running max m, running sums l (a part
// per thread, added once per row) and the accumulator acc[head_dim]
// (`scratch`, head_dim doubles per block), rescaled by exp(m - m_new) in
// double whenever the max grows; y = acc / l. Every thread takes the tile's
// max from the shared scores itself: three barriers per tile, not a tree's.
__global__ void flash_rows(AttnCall c, const float* q, const float* k, const float* v, const float* mask, float* y,
                           double* scratch) {
  __shared__ float s[kLineThreads];
  __shared__ float p[kLineThreads];
  __shared__ double shared_sum[kLineThreads];
  double* acc = scratch + blockIdx.x * c.d;  // thread t owns acc[t], acc[t + kLineThreads], ...
  for (int64_t row = blockIdx.x; row < c.rows; row += gridDim.x) {
    const AttnRow r = attn_row(c, q, k, v, mask, row);
    for (int64_t t = threadIdx.x; t < c.d; t += kLineThreads) acc[t] = 0.0;
    float m = 0.0f;
    double l = 0.0;
    for (int64_t j0 = 0; j0 < c.sk; j0 += kLineThreads) {
      const int64_t j = j0 + threadIdx.x, tile = c.sk - j0 < kLineThreads ? c.sk - j0 : kLineThreads;
      if (j < c.sk) s[threadIdx.x] = attn_score(c, r, j);
      __syncthreads();
      float tm = s[0];
      for (int64_t jj = 1; jj < tile; ++jj) tm = MaxOrNan{}(tm, s[jj]);
      const float m_new = j0 == 0 || tm > m ? tm : m;
      const double rescale = j0 == 0 ? 0.0 : exp(static_cast<double>(m) - static_cast<double>(m_new));
      const float pj = j < c.sk ? expf(s[threadIdx.x] - m_new) : 0.0f;
      p[threadIdx.x] = pj;
      l = l * rescale + static_cast<double>(pj);
      __syncthreads();
      const float* vt = r.v + j0 * c.d;
      for (int64_t t = threadIdx.x; t < c.d; t += kLineThreads) {
        double part = 0.0;
        for (int64_t jj = 0; jj < tile; ++jj)
          part += static_cast<double>(p[jj]) * static_cast<double>(vt[jj * c.d + t]);
        acc[t] = acc[t] * rescale + part;
      }
      m = m_new;
      __syncthreads();  // the next tile rewrites s and p
    }
    const double total = reduce_block<kLineThreads>(l, shared_sum, Plus{});
    for (int64_t t = threadIdx.x; t < c.d; t += kLineThreads) y[row * c.d + t] = static_cast<float>(acc[t] / total);
  }
}

// Blocks of an attention launch: each holds a scratch row, so at most this many.
constexpr int64_t kAttnBlocks = 1024;

// Runs sdpa_rows (flash_rows when `flash`) on device pointers; sizes are
// validated, nothing to compute enqueues nothing. Waits for `stream` (each
// block's row of scores or accumulator is scratch).
tl_status run_attention(const char* where, const float* q, const float* k, const float* v, const float* mask, float* y,
                        const ka::Dims& n, int causal, int kind, int64_t window, bool flash, tl_cuda_stream stream) {
  if (n.batch == 0 || n.sq == 0) return TL_OK;
  const ka::MaskLayout ml = ka::mask_layout(n, kind);
  const AttnCall c{n.heads,
                   n.kv_heads,
                   n.sq,
                   n.sk,
                   n.d,
                   n.batch * n.heads * n.sq,
                   window,
                   causal != 0 ? 1 : 0,
                   1.0f / sqrtf(static_cast<float>(n.d)),
                   ml.b,
                   ml.h,
                   ml.i};
  const float* m = ml.elements > 0 ? mask : nullptr;
  const auto blocks = static_cast<unsigned>(std::min(c.rows, kAttnBlocks));
  if (flash) {
    DeviceBuffer<double> scratch(static_cast<size_t>(blocks) * static_cast<size_t>(n.d), where, stream);
    launch(flash_rows, blocks, kLineThreads, stream, c, q, k, v, m, y, scratch.get());
    check_launch(where);
  } else {
    DeviceBuffer<float> scratch(static_cast<size_t>(blocks) * static_cast<size_t>(window > 0 ? window : n.sk), where,
                                stream);
    launch(sdpa_rows, blocks, kLineThreads, stream, c, q, k, v, m, y, scratch.get());
    check_launch(where);
  }
  return TL_OK;
}

// The host functions: q, k, v (and the mask of `kind`) in, y out; their
// elements f32, or the 16-bit words of f16 and bf16.
template <class Elem, class Dev, class... Params>
tl_status attention_host(const char* fn, Dev dev, const ka::Dims& n, int kind, const Elem* q, const Elem* k,
                         const Elem* v, const float* mask, Elem* y, Params... params) {
  if (n.batch == 0 || n.sq == 0) return TL_OK;
  const int64_t q_count = n.batch * n.heads * n.sq * n.d, kv_count = n.batch * n.kv_heads * n.sk * n.d;
  return on_device(fn, dev, in(q, q_count), in(k, kv_count), in(v, kv_count),
                   in(mask, ka::mask_layout(n, kind).elements), out(y, q_count), params...);
}

template <class Elem, class Dev, class... Params>
tl_status attention_host(const char* fn, Dev dev, const ka::Dims& n, const Elem* q, const Elem* k, const Elem* v,
                         Elem* y, Params... params) {
  if (n.batch == 0 || n.sq == 0) return TL_OK;
  const int64_t q_count = n.batch * n.heads * n.sq * n.d, kv_count = n.batch * n.kv_heads * n.sk * n.d;
  return on_device(fn, dev, in(q, q_count), in(k, kv_count), in(v, kv_count), out(y, q_count), params...);
}

// f16 and bf16: q, k, v widened on the device by the casts' kernels into
// scratch, the f32 kernel (run_attention's `mask_kind`, `window`, `flash`),
// y rounded back (waits for `stream`: the scratch). `n` already checked.
using WidenDev = void (*)(const uint16_t*, float*, int64_t, tl_cuda_stream);
using NarrowDev = void (*)(const float*, uint16_t*, int64_t, tl_cuda_stream);
inline tl_status half_attention(const char* where, WidenDev widen, NarrowDev narrow, const uint16_t* q,
                                const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y, const ka::Dims& n,
                                int32_t causal, tl_attn_mask mask_kind, int64_t window, bool flash,
                                tl_cuda_stream stream) {
  if (n.batch == 0 || n.sq == 0) return TL_OK;
  const int64_t q_count = n.batch * n.heads * n.sq * n.d, kv_count = n.batch * n.kv_heads * n.sk * n.d;
  const auto nq = static_cast<size_t>(q_count), nkv = static_cast<size_t>(kv_count);
  DeviceBuffer<float> qf(nq, where, stream), kf(nkv, where, stream), vf(nkv, where, stream), yf(nq, where, stream);
  widen(q, qf.get(), q_count, stream);
  widen(k, kf.get(), kv_count, stream);
  widen(v, vf.get(), kv_count, stream);
  if (tl_status s = run_attention(where, qf.get(), kf.get(), vf.get(), mask, yf.get(), n, causal, mask_kind, window,
                                  flash, stream))
    return s;
  narrow(yf.get(), y, q_count, stream);
  return TL_OK;
}

}  // namespace konform::cuda

TL_CUDA_EXPORT tl_status tl_sdpa_f32_dev(const float* q, const float* k, const float* v, const float* mask, float* y,
                                         int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                         int64_t head_dim, int32_t causal, tl_attn_mask mask_kind,
                                         tl_cuda_stream stream) {
  const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = ka::check_sdpa("tl_sdpa_f32", n, mask_kind)) return s;
  return kc::run_attention("tl_sdpa_f32", q, k, v, mask, y, n, causal, mask_kind, 0, false, stream);
}

TL_CUDA_EXPORT tl_status tl_sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                     int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                     int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = ka::check_sdpa("tl_sdpa_f32", n, mask_kind)) return s;
  return kc::attention_host("tl_sdpa_f32", tl_sdpa_f32_dev, n, mask_kind, q, k, v, mask, y, batch, num_heads, kv_heads,
                            sq, sk, head_dim, causal, mask_kind);
}

TL_CUDA_EXPORT tl_status tl_flash_attention_f32_dev(const float* q, const float* k, const float* v, const float* mask,
                                                    float* y, int64_t batch, int64_t num_heads, int64_t kv_heads,
                                                    int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                                                    tl_attn_mask mask_kind, tl_cuda_stream stream) {
  const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = ka::check_sdpa("tl_flash_attention_f32", n, mask_kind)) return s;
  return kc::run_attention("tl_flash_attention_f32", q, k, v, mask, y, n, causal, mask_kind, 0, true, stream);
}

TL_CUDA_EXPORT tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask,
                                                float* y, int64_t batch, int64_t num_heads, int64_t kv_heads,
                                                int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                                                tl_attn_mask mask_kind) {
  const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = ka::check_sdpa("tl_flash_attention_f32", n, mask_kind)) return s;
  return kc::attention_host("tl_flash_attention_f32", tl_flash_attention_f32_dev, n, mask_kind, q, k, v, mask, y, batch,
                            num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind);
}

TL_CUDA_EXPORT tl_status tl_sdpa_cross_f32_dev(const float* q, const float* k, const float* v, float* y, int64_t batch,
                                               int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim,
                                               tl_cuda_stream stream) {
  const ka::Dims n{batch, num_heads, num_heads, sq, se, head_dim};
  if (tl_status s = ka::check_sdpa("tl_sdpa_cross_f32", n, TL_ATTN_MASK_NONE)) return s;
  return kc::run_attention("tl_sdpa_cross_f32", q, k, v, nullptr, y, n, 0, TL_ATTN_MASK_NONE, 0, false, stream);
}

TL_CUDA_EXPORT tl_status tl_sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch,
                                           int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim) {
  const ka::Dims n{batch, num_heads, num_heads, sq, se, head_dim};
  if (tl_status s = ka::check_sdpa("tl_sdpa_cross_f32", n, TL_ATTN_MASK_NONE)) return s;
  return kc::attention_host("tl_sdpa_cross_f32", tl_sdpa_cross_f32_dev, n, q, k, v, y, batch, num_heads, sq, se,
                            head_dim);
}

TL_CUDA_EXPORT tl_status tl_sdpa_window_f32_dev(const float* q, const float* k, const float* v, float* y, int64_t batch,
                                                int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window,
                                                tl_cuda_stream stream) {
  const ka::Dims n{batch, num_heads, num_heads, seq, seq, head_dim};
  if (tl_status s = ka::check_window("tl_sdpa_window_f32", n, window)) return s;
  return kc::run_attention("tl_sdpa_window_f32", q, k, v, nullptr, y, n, 0, TL_ATTN_MASK_NONE, window, false, stream);
}

TL_CUDA_EXPORT tl_status tl_sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch,
                                            int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window) {
  const ka::Dims n{batch, num_heads, num_heads, seq, seq, head_dim};
  if (tl_status s = ka::check_window("tl_sdpa_window_f32", n, window)) return s;
  return kc::attention_host("tl_sdpa_window_f32", tl_sdpa_window_f32_dev, n, q, k, v, y, batch, num_heads, seq,
                            head_dim, window);
}

// QK-norm is RmsNorm over rows of head_dim: elementwise.cu's kernel, whose
// rounding is the oracle's rmsnorm (docs/cuda.md), on tokens * num_heads rows
// (y == x is safe, rms.cuh).
TL_CUDA_EXPORT tl_status tl_qk_norm_f32_dev(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads,
                                            int64_t head_dim, float eps, tl_cuda_stream stream) {
  if (tl_status s = ka::check_qk_norm("tl_qk_norm_f32", tokens, num_heads, head_dim, eps)) return s;
  tl_rmsnorm_f32_dev(x, g, y, tokens * num_heads, head_dim, eps, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads,
                                        int64_t head_dim, float eps) {
  if (tl_status s = ka::check_qk_norm("tl_qk_norm_f32", tokens, num_heads, head_dim, eps)) return s;
  tl_rmsnorm_f32(x, g, y, tokens * num_heads, head_dim, eps);
  return TL_OK;
}

// The half twins of Sdpa, FlashAttention, SdpaCross and SdpaWindow
// (half_attention above): the _dev functions on device pointers, the host
// functions through attention_host.
#define TL_CUDA_SDPA_HALF(Name, Dtype, flash)                                                                          \
  TL_CUDA_EXPORT tl_status tl_##Name##_##Dtype##_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v,          \
                                                     const float* mask, uint16_t* y, int64_t batch, int64_t num_heads, \
                                                     int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,       \
                                                     int32_t causal, tl_attn_mask mask_kind, tl_cuda_stream stream) {  \
    const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};                                                    \
    if (tl_status s = ka::check_sdpa("tl_" #Name "_" #Dtype, n, mask_kind)) return s;                                  \
    return kc::half_attention("tl_" #Name "_" #Dtype, tl_cast_##Dtype##_to_f32_dev, tl_cast_f32_to_##Dtype##_dev, q,   \
                              k, v, mask, y, n, causal, mask_kind, 0, flash, stream);                                  \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_##Name##_##Dtype(const uint16_t* q, const uint16_t* k, const uint16_t* v,                \
                                               const float* mask, uint16_t* y, int64_t batch, int64_t num_heads,       \
                                               int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,             \
                                               int32_t causal, tl_attn_mask mask_kind) {                               \
    const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};                                                    \
    if (tl_status s = ka::check_sdpa("tl_" #Name "_" #Dtype, n, mask_kind)) return s;                                  \
    return kc::attention_host("tl_" #Name "_" #Dtype, tl_##Name##_##Dtype##_dev, n, mask_kind, q, k, v, mask, y,       \
                              batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind);                        \
  }
TL_CUDA_SDPA_HALF(sdpa, f16, false)
TL_CUDA_SDPA_HALF(sdpa, bf16, false)
TL_CUDA_SDPA_HALF(flash_attention, f16, true)
TL_CUDA_SDPA_HALF(flash_attention, bf16, true)
#undef TL_CUDA_SDPA_HALF

#define TL_CUDA_CROSS_WINDOW_HALF(Dtype)                                                                               \
  TL_CUDA_EXPORT tl_status tl_sdpa_cross_##Dtype##_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v,        \
                                                       uint16_t* y, int64_t batch, int64_t num_heads, int64_t sq,      \
                                                       int64_t se, int64_t head_dim, tl_cuda_stream stream) {          \
    const ka::Dims n{batch, num_heads, num_heads, sq, se, head_dim};                                                   \
    if (tl_status s = ka::check_sdpa("tl_sdpa_cross_" #Dtype, n, TL_ATTN_MASK_NONE)) return s;                         \
    return kc::half_attention("tl_sdpa_cross_" #Dtype, tl_cast_##Dtype##_to_f32_dev, tl_cast_f32_to_##Dtype##_dev, q,  \
                              k, v, nullptr, y, n, 0, TL_ATTN_MASK_NONE, 0, false, stream);                            \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_sdpa_cross_##Dtype(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, \
                                                 int64_t batch, int64_t num_heads, int64_t sq, int64_t se,             \
                                                 int64_t head_dim) {                                                   \
    const ka::Dims n{batch, num_heads, num_heads, sq, se, head_dim};                                                   \
    if (tl_status s = ka::check_sdpa("tl_sdpa_cross_" #Dtype, n, TL_ATTN_MASK_NONE)) return s;                         \
    return kc::attention_host("tl_sdpa_cross_" #Dtype, tl_sdpa_cross_##Dtype##_dev, n, q, k, v, y, batch, num_heads,   \
                              sq, se, head_dim);                                                                       \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_sdpa_window_##Dtype##_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v,       \
                                                        uint16_t* y, int64_t batch, int64_t num_heads, int64_t seq,    \
                                                        int64_t head_dim, int64_t window, tl_cuda_stream stream) {     \
    const ka::Dims n{batch, num_heads, num_heads, seq, seq, head_dim};                                                 \
    if (tl_status s = ka::check_window("tl_sdpa_window_" #Dtype, n, window)) return s;                                 \
    return kc::half_attention("tl_sdpa_window_" #Dtype, tl_cast_##Dtype##_to_f32_dev, tl_cast_f32_to_##Dtype##_dev, q, \
                              k, v, nullptr, y, n, 0, TL_ATTN_MASK_NONE, window, false, stream);                       \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_sdpa_window_##Dtype(const uint16_t* q, const uint16_t* k, const uint16_t* v,             \
                                                  uint16_t* y, int64_t batch, int64_t num_heads, int64_t seq,          \
                                                  int64_t head_dim, int64_t window) {                                  \
    const ka::Dims n{batch, num_heads, num_heads, seq, seq, head_dim};                                                 \
    if (tl_status s = ka::check_window("tl_sdpa_window_" #Dtype, n, window)) return s;                                 \
    return kc::attention_host("tl_sdpa_window_" #Dtype, tl_sdpa_window_##Dtype##_dev, n, q, k, v, y, batch, num_heads, \
                              seq, head_dim, window);                                                                  \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_qk_norm_##Dtype##_dev(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens,    \
                                                    int64_t num_heads, int64_t head_dim, float eps,                    \
                                                    tl_cuda_stream stream) {                                           \
    if (tl_status s = ka::check_qk_norm("tl_qk_norm_" #Dtype, tokens, num_heads, head_dim, eps)) return s;             \
    const int64_t shape[2] = {tokens * num_heads, head_dim};                                                           \
    return tl_rms_norm_##Dtype##_dev(x, g, y, shape, 2, eps, stream);                                                  \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_qk_norm_##Dtype(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens,          \
                                              int64_t num_heads, int64_t head_dim, float eps) {                        \
    if (tl_status s = ka::check_qk_norm("tl_qk_norm_" #Dtype, tokens, num_heads, head_dim, eps)) return s;             \
    const int64_t shape[2] = {tokens * num_heads, head_dim};                                                           \
    return tl_rms_norm_##Dtype(x, g, y, shape, 2, eps);                                                                \
  }
TL_CUDA_CROSS_WINDOW_HALF(f16)
TL_CUDA_CROSS_WINDOW_HALF(bf16)
#undef TL_CUDA_CROSS_WINDOW_HALF
