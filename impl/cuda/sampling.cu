// libtl_cuda: tl_sample_f32 of tinyllm/sampling.h on a CUDA device and its
// device-pointer twin, as elementwise.cu. The checks, the seed and the PCG32
// draw u of each row are libtl_kernels' host code (sampling_args.hpp); the
// device does one block per row: the max and the weights by the block, the
// TopK/TopP order by a bitonic sort of the row's indices, then one thread
// cuts the kept set and draws (sampling_args.hpp's draw_kept, libtl_kernels'
// own; sums in double). Correct rather than fast: the cut and the draw are serial.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "impl/common/sampling_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/reduce.cuh"
#include "tinyllm/cuda/sampling.h"
#include "tinyllm/cuda/tensor.h"

namespace kc = konform::cuda;
namespace sa = konform::impl::sampling_args;

namespace konform::cuda {

struct SampleCall {
  int64_t rows, vocab, span;  // span: vocab rounded up to a power of 2 (the sort's length)
  int method;
  float temperature, top_p, min_p;
  int64_t top_k;
};

// The max of the numbers, NaN skipped (-Inf when there is none).
struct MaxSkippingNan {
  __device__ float operator()(float a, float b) const { return b > a ? b : a; }
};

// a before b in TopK's and TopP's order: logit descending, ties by lower
// index, NaN last; the sort's padding (index >= vocab) after everything.
__device__ inline bool sample_before(const float* l, int64_t vocab, int32_t a, int32_t b) {
  if (a >= vocab || b >= vocab) return a < b;
  const bool na = l[a] != l[a], nb = l[b] != l[b];
  if (na != nb) return nb;
  if (!na && l[a] != l[b]) return l[a] > l[b];
  return a < b;
}

// A block's bitonic sort of idx[0, span) (span a power of 2) by
// sample_before. Each thread owns a contiguous chunk of span / kLineThreads
// indices: a stage whose pairs lie within chunks (j < chunk) needs no
// barrier, so a sort costs barriers only at its cross-chunk stages and at
// the end of each merge round.
__device__ inline void sort_indices(const float* l, int64_t vocab, int32_t* idx, int64_t span) {
  const int64_t chunk = span > kLineThreads ? span / kLineThreads : 1;
  const int64_t first = threadIdx.x * chunk, end = first + chunk < span ? first + chunk : span;
  for (int64_t i = first; i < end; ++i) idx[i] = static_cast<int32_t>(i);
  __syncthreads();
  for (int64_t k = 2; k <= span; k <<= 1)
    for (int64_t j = k / 2; j > 0; j >>= 1) {
      for (int64_t i = first; i < end; ++i) {
        const int64_t o = i ^ j;
        if (o <= i) continue;  // each pair is its lower member's
        const bool up = (i & k) == 0;
        if (sample_before(l, vocab, idx[o], idx[i]) == up) {
          const int32_t t = idx[i];
          idx[i] = idx[o];
          idx[o] = t;
        }
      }
      if (j >= chunk || j == 1) __syncthreads();
    }
}

// One block per row (grid-striding); `w` (vocab floats) and `idx` (span
// int32) are the block's scratch.
__global__ void sample_rows(SampleCall c, const float* logits, const float* u, int32_t* tokens, float* w_all,
                            int32_t* idx_all) {
  __shared__ float shared_max[kLineThreads];
  float* w = w_all + blockIdx.x * c.vocab;
  int32_t* idx = idx_all + blockIdx.x * c.span;
  for (int64_t row = blockIdx.x; row < c.rows; row += gridDim.x) {
    const float* l = logits + row * c.vocab;
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < c.vocab; i += kLineThreads) m = MaxSkippingNan{}(m, l[i]);
    m = reduce_block<kLineThreads>(m, shared_max, MaxSkippingNan{});
    if (m == -INFINITY) {  // no number: uniform across the block, so no barrier is skipped unevenly
      if (threadIdx.x == 0) tokens[row] = -1;
      continue;
    }
    for (int64_t i = threadIdx.x; i < c.vocab; i += kLineThreads) {
      const float x = l[i];
      w[i] = x != x || x == -INFINITY ? 0.0f : m == INFINITY ? (x == m ? 1.0f : 0.0f) : expf((x - m) / c.temperature);
    }
    if (c.method == TL_SAMPLE_TOP_K || c.method == TL_SAMPLE_TOP_P) sort_indices(l, c.vocab, idx, c.span);
    __syncthreads();  // every weight (and the order) before the serial part
    if (threadIdx.x == 0) {
      int64_t count = c.vocab;
      if (c.method == TL_SAMPLE_TOP_K) {
        count = c.top_k;
      } else if (c.method == TL_SAMPLE_TOP_P) {
        double z = 0.0, run = 0.0;
        for (int64_t i = 0; i < c.vocab; ++i) z += w[i];
        for (count = 0; count < c.vocab; ++count) {
          run += w[idx[count]];
          if (run / z > static_cast<double>(c.top_p)) break;
        }
        count = count > 1 ? count : 1;  // the first token is always kept
      } else {                          // Temperature, MinP: index order
        count = 0;
        for (int64_t i = 0; i < c.vocab; ++i)
          if (c.method != TL_SAMPLE_MIN_P || w[i] >= c.min_p) idx[count++] = static_cast<int32_t>(i);  // max(w) = 1
      }
      tokens[row] = impl::sampling_args::draw_kept(w, idx, count, u[row]);
    }
    __syncthreads();  // the next row rewrites w and idx
  }
}

constexpr int64_t kSampleBlocks = 1024;  // each block holds a row's scratch

}  // namespace konform::cuda

// Waits for `stream` (the draws and each block's row of weights and order are scratch).
TL_CUDA_EXPORT tl_status tl_sample_f32_dev(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab,
                                           int32_t method, float temperature, int64_t top_k, float top_p, float min_p,
                                           uint64_t seed, tl_cuda_stream stream) {
  if (tl_status s = sa::check("tl_sample_f32", rows, vocab, method, temperature, top_k, top_p, min_p)) return s;
  if (rows == 0) return TL_OK;
  if (method == TL_SAMPLE_GREEDY) {  // tensor.cu's argmax along the vocab: the argmax of each row
    const int64_t shape[2] = {rows, vocab};
    return tl_argmax_axis_f32_dev(logits, shape, 2, 1, tokens, stream);
  }
  const uint64_t s = sa::resolve_seed(seed);
  std::vector<float> u(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) u[static_cast<size_t>(r)] = sa::Pcg32(s, static_cast<uint64_t>(r)).uniform();
  int64_t span = 1;
  while (span < vocab) span <<= 1;
  const kc::SampleCall c{rows, vocab, span, method, temperature, top_p, min_p, top_k};
  const char* where = "tl_sample_f32_dev";
  const auto blocks = static_cast<unsigned>(std::min(rows, kc::kSampleBlocks));
  kc::DeviceBuffer<float> du(u.data(), u.size(), where, stream);
  kc::DeviceBuffer<float> w(static_cast<size_t>(blocks) * static_cast<size_t>(vocab), where, stream);
  kc::DeviceBuffer<int32_t> idx(static_cast<size_t>(blocks) * static_cast<size_t>(span), where, stream);
  kc::launch(kc::sample_rows, blocks, kc::kLineThreads, stream, c, logits, du.get(), tokens, w.get(), idx.get());
  kc::check_launch(where);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab,
                                       int32_t method, float temperature, int64_t top_k, float top_p, float min_p,
                                       uint64_t seed) {
  if (tl_status s = sa::check("tl_sample_f32", rows, vocab, method, temperature, top_k, top_p, min_p)) return s;
  if (rows == 0) return TL_OK;
  return kc::on_device("tl_sample_f32", tl_sample_f32_dev, kc::in(logits, rows * vocab), kc::out(tokens, rows), rows,
                       vocab, method, temperature, top_k, top_p, min_p, seed);
}

// f16 and bf16: the logits widened exactly on the device by the casts'
// kernels into scratch, then the f32 op (waits for `stream`: the scratch).
#define TL_CUDA_SAMPLE_HALF(Dtype)                                                                                     \
  TL_CUDA_EXPORT tl_status tl_sample_##Dtype##_dev(const uint16_t* logits, int32_t* tokens, int64_t rows,              \
                                                   int64_t vocab, int32_t method, float temperature, int64_t top_k,    \
                                                   float top_p, float min_p, uint64_t seed, tl_cuda_stream stream) {   \
    const char* where = "tl_sample_" #Dtype;                                                                           \
    if (tl_status s = sa::check(where, rows, vocab, method, temperature, top_k, top_p, min_p)) return s;               \
    if (rows == 0) return TL_OK;                                                                                       \
    kc::DeviceBuffer<float> wide(static_cast<size_t>(rows * vocab), where, stream);                                    \
    tl_cast_##Dtype##_to_f32_dev(logits, wide.get(), rows* vocab, stream);                                             \
    return tl_sample_f32_dev(wide.get(), tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed, stream); \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_sample_##Dtype(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab,     \
                                             int32_t method, float temperature, int64_t top_k, float top_p,            \
                                             float min_p, uint64_t seed) {                                             \
    if (tl_status s = sa::check("tl_sample_" #Dtype, rows, vocab, method, temperature, top_k, top_p, min_p)) return s; \
    if (rows == 0) return TL_OK;                                                                                       \
    return kc::on_device("tl_sample_" #Dtype, tl_sample_##Dtype##_dev, kc::in(logits, rows * vocab),                   \
                         kc::out(tokens, rows), rows, vocab, method, temperature, top_k, top_p, min_p, seed);          \
  }
TL_CUDA_SAMPLE_HALF(f16)
TL_CUDA_SAMPLE_HALF(bf16)
#undef TL_CUDA_SAMPLE_HALF
