// libtl_cuda: tinyllm/pos.h on a CUDA device and its device-pointer twins, as
// elementwise.cu. The checks are libtl_kernels' (impl/common/pos_args.hpp),
// run before any CUDA call. Angles follow the header's contract: the
// frequencies are computed on the host with the oracle's own double
// std::pow / std::exp (a table of at most D / 2), so CUDA's pow, exp and log
// never enter; the device forms angle = p * f and its cos and sin in double
// (CUDA's double cos and sin err by <= 2 ulp of a double, far below the
// single rounding to float that follows). docs/cuda.md, "pos.h".
#include <cmath>
#include <cstdint>
#include <vector>

#include "impl/common/pos_args.hpp"
#include "impl/common/pos_buckets.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/gather.cuh"
#include "impl/cuda/map.cuh"
#include "tinyllm/cuda/elementwise.h"
#include "tinyllm/cuda/pos.h"

namespace kc = konform::cuda;
namespace check = konform::impl::pos_args;

namespace konform::cuda {

// The cos and sin of pair p of token t, from the cache's rows (Rope): rows
// holds the cache from position `first` on.
struct CacheAngle {
  const float* rows;
  const int32_t* pos;
  int64_t first, rot_dim;
  __device__ void operator()(int64_t t, int64_t p, float* c, float* s) const {
    const float* row = rows + (pos[t] - first) * rot_dim;
    *c = row[p];
    *s = row[rot_dim / 2 + p];
  }
};
// ... or computed (MultiAxisRope): pair p belongs to axis axis[p], frequency freq[p].
struct AxisAngle {
  const int32_t* pos;
  int64_t n_axes;
  const int64_t* axis;
  const double* freq;
  __device__ void operator()(int64_t t, int64_t p, float* c, float* s) const {
    const double angle = static_cast<double>(pos[t * n_axes + axis[p]]) * freq[p];
    *c = static_cast<float>(cos(angle));
    *s = static_cast<float>(sin(angle));
  }
};

// Rotates pair p (entries ia[p], ib[p] of a head) of every (token, head) of
// y [tokens, heads, D] in place, one thread per (token, head, pair): both
// members read before either is written, and no other thread touches them,
// so rotating in place is safe; a * c - b * s, a * s + b * c in float, as the
// oracle's rotate_pair (--fmad=false keeps the products apart). Elements of
// f16 or bf16 are widened exactly and each member rounded once (Format).
template <class Format, class Elem, class Angle>
__global__ void rotate_pairs(Elem* y, int64_t tokens, int64_t heads, int64_t D, const int64_t* ia, const int64_t* ib,
                             int64_t pairs, Angle angle) {
  const int64_t total = tokens * heads * pairs;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const int64_t p = k % pairs, th = k / pairs, t = th / heads;
    float c, s;
    angle(t, p, &c, &s);
    Elem* head = y + th * D;
    const float a = Format::widen(head[ia[p]]), b = Format::widen(head[ib[p]]);
    head[ia[p]] = Format::narrow(a * c - b * s);
    head[ib[p]] = Format::narrow(a * s + b * c);
  }
}

// cache[q, j] = cos(q f_j), cache[q, half + j] = sin(q f_j), angle in double,
// one thread per (position, pair); f16 and bf16 (Format) caches hold the
// float values rounded once more.
template <class Format, class Elem>
__global__ void rope_cache(Elem* cache, int64_t max_seq, int64_t half, const double* freq) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < max_seq * half; k += stride) {
    const int64_t q = k / half, j = k % half;
    const double angle = static_cast<double>(q) * freq[j];
    cache[q * 2 * half + j] = Format::narrow(static_cast<float>(cos(angle)));
    cache[q * 2 * half + half + j] = Format::narrow(static_cast<float>(sin(angle)));
  }
}

// y[i] of SinusoidalEmbed, one thread per (timestep, frequency): sin and cos
// of t f_j in double, each rounded once, placed by the layout; f16 and bf16
// (Format) timesteps widened exactly, sin and cos rounded once more.
template <class Format, class Elem>
__global__ void sinusoidal(const Elem* t, Elem* y, int64_t n, int64_t half, const double* freq, int layout) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n * half; k += stride) {
    const int64_t i = k / half, j = k % half;
    const double angle = static_cast<double>(Format::widen(t[i])) * freq[j];
    const Elem s = Format::narrow(static_cast<float>(sin(angle))), c = Format::narrow(static_cast<float>(cos(angle)));
    const bool interleaved = layout == TL_SINUSOIDAL_INTERLEAVED, sin_first = layout == TL_SINUSOIDAL_SIN_COS;
    const int64_t is = interleaved ? 2 * j : sin_first ? j : half + j;
    const int64_t ic = interleaved ? 2 * j + 1 : sin_first ? half + j : j;
    y[i * 2 * half + is] = s;
    y[i * 2 * half + ic] = c;
  }
}

// bias[h, i, j] = table[bucket[i, j], h] as bits, one thread per (i, j)
// for every head: its bucket read once, and H times fewer blocks (each costs
// the emulation a barrier).
template <class Word>
__global__ void relative_bias(const Word* table, const int32_t* bucket, Word* bias, int64_t pairs, int64_t heads) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t ij = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; ij < pairs; ij += stride) {
    const Word* row = table + static_cast<int64_t>(bucket[ij]) * heads;
    for (int64_t h = 0; h < heads; ++h) bias[h * pairs + ij] = row[h];
  }
}

// The pairs of a rotary range of `width` entries from `offset` (a head's
// entries), appended to ia, ib: NeoX (j, j + width/2), interleaved (2j, 2j+1).
void append_pairs(int layout, int64_t offset, int64_t width, std::vector<int64_t>& ia, std::vector<int64_t>& ib) {
  for (int64_t j = 0; j < width / 2; ++j) {
    ia.push_back(offset + (layout == TL_ROPE_NEOX ? j : 2 * j));
    ib.push_back(offset + (layout == TL_ROPE_NEOX ? j + width / 2 : 2 * j + 1));
  }
}

// f_j = base^(-2j / width), j < width / 2, in double on the host (the oracle's rope_frequency).
void append_frequencies(float base, int64_t width, std::vector<double>& freq) {
  for (int64_t j = 0; j < width / 2; ++j)
    freq.push_back(std::pow(static_cast<double>(base), -static_cast<double>(2 * j) / static_cast<double>(width)));
}

// y = x [tokens, heads, D] with its pairs rotated by `angle` (whose device
// arrays the caller holds until `stream` is done): x's words to y unless
// y == x, then the pairs rotated in y. Waits for `stream` (the pair tables are scratch).
template <class Format, class Elem, class Angle>
void run_rotation(const Elem* x, Elem* y, int64_t tokens, int64_t heads, int64_t D, const std::vector<int64_t>& ia,
                  const std::vector<int64_t>& ib, Angle angle, const char* where, tl_cuda_stream stream) {
  const size_t n = static_cast<size_t>(tokens * heads * D), pairs = ia.size();
  if (y != x) copy_on_device(y, x, n, stream, where);
  DeviceBuffer<int64_t> dia(ia.data(), pairs, where, stream), dib(ib.data(), pairs, where, stream);
  const int64_t count = static_cast<int64_t>(pairs);
  launch(rotate_pairs<Format, Elem, Angle>, grid_for(tokens * heads * count, kThreads), kThreads, stream, y, tokens,
         heads, D, dia.get(), dib.get(), count, angle);
  check_launch(where);
}

// Runs check(ints, n) on a host copy of n device ints. The checks read them
// after every size check, so a call refused on its sizes (checked with
// n = 0 first), or with n <= 0, reads nothing. Waits for `stream`.
template <class Check>
tl_status check_device_ints(const int32_t* ints, int64_t n, Check check, tl_cuda_stream stream, const char* where) {
  if (n <= 0 || check(ints, 0) != TL_OK) return check(ints, n);
  const std::vector<int32_t> host = fetch(ints, static_cast<size_t>(n), stream, where);
  return check(host.data(), n);
}

// out[t, :] = rows[ids[t] - first, :] for f16 and bf16 tables (16-bit words).
void embed_half_rows(const uint16_t* rows, const int32_t* ids, int64_t first, uint16_t* out, int64_t n, int64_t d,
                     tl_cuda_stream stream) {
  launch(gather_rows<uint16_t>, grid_for(n * d, kThreads), kThreads, stream, rows, ids, first, out, n, d);
  check_launch("the f16 and bf16 embeddings");
}

// The host call on checked ids: only the table's rows from the smallest to
// the largest id go to the device.
void embed_half_on_device(const char* where, const uint16_t* table, const int32_t* ids, uint16_t* y, int64_t n,
                          int64_t d) {
  if (n <= 0) return;
  int64_t first = ids[0], last = ids[0];
  for (int64_t t = 1; t < n; ++t) {
    first = ids[t] < first ? ids[t] : first;
    last = ids[t] > last ? ids[t] : last;
  }
  on_device(where, embed_half_rows, in(table + first * d, (last - first + 1) * d), in(ids, n), first, out(y, n * d), n,
            d);
}

// Rope on checked arguments: the cache's rows from position `first` on;
// f32 (AsFloat) or the 16-bit words of f16 and bf16 (F16, BF16).
template <class Format, class Elem>
void rope_apply(const Elem* x, Elem* y, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot_dim,
                const float* rows, int64_t first, int layout, tl_cuda_stream stream) {
  std::vector<int64_t> ia, ib;
  append_pairs(layout, 0, rot_dim, ia, ib);
  run_rotation<Format>(x, y, T, H, D, ia, ib, CacheAngle{rows, pos, first, rot_dim}, "tl_rope_apply", stream);
}

// The host call of Rope on checked arguments, T * H > 0: only the cache
// rows from the smallest to the largest position go to the device.
template <class Format, class Elem>
void rope_on_device(const char* where, const Elem* x, Elem* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                    int64_t rot_dim, const float* cache, int layout) {
  int64_t first = pos[0], last = pos[0];
  for (int64_t t = 1; t < T; ++t) {
    first = pos[t] < first ? pos[t] : first;
    last = pos[t] > last ? pos[t] : last;
  }
  const int64_t n = T * H * D;
  on_device(where, rope_apply<Format, Elem>, in(x, n), out(y, n), in(pos, T), T, H, D, rot_dim,
            in(cache + first * rot_dim, (last - first + 1) * rot_dim), first, layout);
}

// RelativePosEmbedding on checked arguments, positions in host memory: the
// buckets are libtl_kernels' exact rule (impl/common/pos_buckets.hpp),
// decided on the host per (query, key); the device gathers the table's
// words (Word: uint32_t for f32, uint16_t for f16 and bf16).
template <class Word>
void gather_relative_bias(const Word* table, const int32_t* q_pos, const int32_t* k_pos, Word* bias, int64_t Lq,
                          int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance, int bidirectional,
                          const char* where, tl_cuda_stream stream) {
  const impl::T5Buckets buckets(num_buckets, max_distance, bidirectional != 0);
  std::vector<int32_t> bucket(static_cast<size_t>(Lq * Lk));
  for (int64_t i = 0; i < Lq; ++i)
    for (int64_t j = 0; j < Lk; ++j)
      bucket[static_cast<size_t>(i * Lk + j)] = buckets(static_cast<int64_t>(k_pos[j]) - q_pos[i]);
  DeviceBuffer<int32_t> dbucket(bucket.data(), bucket.size(), where, stream);
  launch(relative_bias<Word>, grid_for(Lq * Lk, kThreads), kThreads, stream, table, dbucket.get(), bias, Lq * Lk, H);
  check_launch(where);
}

}  // namespace konform::cuda

// The cos/sin cache in f32 (AsFloat), f16 or bf16 (F16, BF16). The _dev
// functions wait for `stream` (the frequency table is scratch).
#define TL_CUDA_ROPE_CACHE(Dtype, Elem, Format)                                                                       \
  TL_CUDA_EXPORT tl_status tl_rope_cache_##Dtype##_dev(Elem* cache, int64_t max_seq, int64_t rot_dim, float base,     \
                                                       tl_cuda_stream stream) {                                       \
    if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;                                            \
    const char* where = "tl_rope_cache_" #Dtype "_dev";                                                               \
    std::vector<double> freq;                                                                                         \
    kc::append_frequencies(base, rot_dim, freq);                                                                      \
    kc::DeviceBuffer<double> dfreq(freq.data(), freq.size(), where, stream);                                          \
    kc::launch(kc::rope_cache<Format, Elem>, kc::grid_for(max_seq*(rot_dim / 2), kc::kThreads), kc::kThreads, stream, \
               cache, max_seq, rot_dim / 2, dfreq.get());                                                             \
    kc::check_launch(where);                                                                                          \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_rope_cache_##Dtype(Elem* cache, int64_t max_seq, int64_t rot_dim, float base) {         \
    if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;                                            \
    return kc::on_device("tl_rope_cache_" #Dtype, tl_rope_cache_##Dtype##_dev, kc::out(cache, max_seq * rot_dim),     \
                         max_seq, rot_dim, base);                                                                     \
  }
TL_CUDA_ROPE_CACHE(f32, float, kc::AsFloat)
TL_CUDA_ROPE_CACHE(f16, uint16_t, kc::F16)
TL_CUDA_ROPE_CACHE(bf16, uint16_t, kc::BF16)
#undef TL_CUDA_ROPE_CACHE

TL_CUDA_EXPORT int tl_rope_base_is_extreme(float base) { return check::base_is_extreme(base); }

// A question about a scalar: no device work, the stream is not used.
TL_CUDA_EXPORT int tl_rope_base_is_extreme_dev(float base, tl_cuda_stream) { return check::base_is_extreme(base); }

// The check reads the positions: they are copied to the host first (waits for `stream`).
TL_CUDA_EXPORT tl_status tl_rope_apply_f32_dev(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H,
                                               int64_t D, int64_t rot_dim, const float* cache, int64_t max_seq,
                                               int layout, tl_cuda_stream stream) {
  const auto check_pos = [&](const int32_t* p, int64_t n) {
    return check::rope_apply(p, n, H, D, rot_dim, max_seq, layout);
  };
  if (tl_status s = kc::check_device_ints(pos, T, check_pos, stream, "tl_rope_apply_f32_dev")) return s;
  if (T * H == 0) return TL_OK;
  kc::rope_apply<kc::AsFloat>(x, y, pos, T, H, D, rot_dim, cache, 0, layout, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H,
                                           int64_t D, int64_t rot_dim, const float* cache, int64_t max_seq,
                                           int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  if (T * H == 0) return TL_OK;
  kc::rope_on_device<kc::AsFloat>("tl_rope_apply_f32", x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}

// f16 and bf16: the same checks and cache rows, the pairs in float, each
// member rounded once; the tail copied as 16-bit words.
#define TL_CUDA_ROPE_HALF(Dtype, Format)                                                                              \
  TL_CUDA_EXPORT tl_status tl_rope_apply_##Dtype##_dev(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, \
                                                       int64_t H, int64_t D, int64_t rot_dim, const float* cache,     \
                                                       int64_t max_seq, int layout, tl_cuda_stream stream) {          \
    const auto check_pos = [&](const int32_t* p, int64_t n) {                                                         \
      return check::rope_apply(p, n, H, D, rot_dim, max_seq, layout);                                                 \
    };                                                                                                                \
    if (tl_status s = kc::check_device_ints(pos, T, check_pos, stream, "tl_rope_apply_" #Dtype "_dev")) return s;     \
    if (T * H == 0) return TL_OK;                                                                                     \
    kc::rope_apply<Format>(x, y, pos, T, H, D, rot_dim, cache, 0, layout, stream);                                    \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_rope_apply_##Dtype(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T,       \
                                                 int64_t H, int64_t D, int64_t rot_dim, const float* cache,           \
                                                 int64_t max_seq, int layout) {                                       \
    if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;                            \
    if (T * H == 0) return TL_OK;                                                                                     \
    kc::rope_on_device<Format>("tl_rope_apply_" #Dtype, x, y, pos, T, H, D, rot_dim, cache, layout);                  \
    return TL_OK;                                                                                                     \
  }
TL_CUDA_ROPE_HALF(f16, kc::F16)
TL_CUDA_ROPE_HALF(bf16, kc::BF16)
#undef TL_CUDA_ROPE_HALF

// MultiAxisRope of f32 (AsFloat) or f16 and bf16 (F16, BF16) x and y. The
// _dev functions wait for `stream` (the pair, axis and frequency tables are
// scratch).
#define TL_CUDA_MULTI_AXIS(Dtype, Elem, Format)                                                                       \
  TL_CUDA_EXPORT tl_status tl_multi_axis_rope_##Dtype##_dev(                                                          \
      const Elem* x, Elem* y, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t n_axes,                    \
      const int64_t* axis_dims, const float* axis_bases, int layout, tl_cuda_stream stream) {                         \
    if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;               \
    if (T * H == 0) return TL_OK;                                                                                     \
    const char* where = "tl_multi_axis_rope_" #Dtype "_dev";                                                          \
    std::vector<int64_t> ia, ib, axis;                                                                                \
    std::vector<double> freq;                                                                                         \
    int64_t offset = 0;                                                                                               \
    for (int64_t a = 0; a < n_axes; ++a) {                                                                            \
      kc::append_pairs(layout, offset, axis_dims[a], ia, ib);                                                         \
      kc::append_frequencies(axis_bases[a], axis_dims[a], freq);                                                      \
      axis.resize(freq.size(), a);                                                                                    \
      offset += axis_dims[a];                                                                                         \
    }                                                                                                                 \
    kc::DeviceBuffer<int64_t> daxis(axis.data(), axis.size(), where, stream);                                         \
    kc::DeviceBuffer<double> dfreq(freq.data(), freq.size(), where, stream);                                          \
    kc::run_rotation<Format>(x, y, T, H, D, ia, ib, kc::AxisAngle{pos, n_axes, daxis.get(), dfreq.get()}, where,      \
                             stream);                                                                                 \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_multi_axis_rope_##Dtype(const Elem* x, Elem* y, const int32_t* pos, int64_t T,          \
                                                      int64_t H, int64_t D, int64_t n_axes, const int64_t* axis_dims, \
                                                      const float* axis_bases, int layout) {                          \
    if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;               \
    if (T * H == 0) return TL_OK;                                                                                     \
    const int64_t n = T * H * D;                                                                                      \
    return kc::on_device("tl_multi_axis_rope_" #Dtype, tl_multi_axis_rope_##Dtype##_dev, kc::in(x, n), kc::out(y, n), \
                         kc::in(pos, T * n_axes), T, H, D, n_axes, axis_dims, axis_bases, layout);                    \
  }
TL_CUDA_MULTI_AXIS(f32, float, kc::AsFloat)
TL_CUDA_MULTI_AXIS(f16, uint16_t, kc::F16)
TL_CUDA_MULTI_AXIS(bf16, uint16_t, kc::BF16)
#undef TL_CUDA_MULTI_AXIS

// SinusoidalEmbed of f32 (AsFloat) or f16 and bf16 (F16, BF16) timesteps and
// y. The _dev functions wait for `stream` (the frequency table is scratch).
#define TL_CUDA_SINUSOIDAL(Dtype, Elem, Format)                                                                        \
  TL_CUDA_EXPORT tl_status tl_sinusoidal_embed_##Dtype##_dev(const Elem* t, Elem* y, int64_t n, int64_t dim,           \
                                                             float max_period, float freq_shift, int layout,           \
                                                             tl_cuda_stream stream) {                                  \
    if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;                       \
    if (n == 0) return TL_OK;                                                                                          \
    const char* where = "tl_sinusoidal_embed_" #Dtype "_dev";                                                          \
    const int64_t half = dim / 2;                                                                                      \
    /* f_j = exp(j * step) on the host, the oracle's double expression. */                                             \
    const double step =                                                                                                \
        -std::log(static_cast<double>(max_period)) / (static_cast<double>(half) - static_cast<double>(freq_shift));    \
    std::vector<double> freq(static_cast<size_t>(half));                                                               \
    for (int64_t j = 0; j < half; ++j) freq[static_cast<size_t>(j)] = std::exp(static_cast<double>(j) * step);         \
    kc::DeviceBuffer<double> dfreq(freq.data(), freq.size(), where, stream);                                           \
    kc::launch(kc::sinusoidal<Format, Elem>, kc::grid_for(n* half, kc::kThreads), kc::kThreads, stream, t, y, n, half, \
               dfreq.get(), layout);                                                                                   \
    kc::check_launch(where);                                                                                           \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_sinusoidal_embed_##Dtype(const Elem* t, Elem* y, int64_t n, int64_t dim,                 \
                                                       float max_period, float freq_shift, int layout) {               \
    if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;                       \
    if (n == 0) return TL_OK;                                                                                          \
    return kc::on_device("tl_sinusoidal_embed_" #Dtype, tl_sinusoidal_embed_##Dtype##_dev, kc::in(t, n),               \
                         kc::out(y, n * dim), n, dim, max_period, freq_shift, layout);                                 \
  }
TL_CUDA_SINUSOIDAL(f32, float, kc::AsFloat)
TL_CUDA_SINUSOIDAL(f16, uint16_t, kc::F16)
TL_CUDA_SINUSOIDAL(bf16, uint16_t, kc::BF16)
#undef TL_CUDA_SINUSOIDAL

// After the checks, a table's rows are tl_embedding_f32's gather (bits).
// The checks read the ids: they are copied to the host first (waits for `stream`).
TL_CUDA_EXPORT tl_status tl_token_embed_f32_dev(const float* table, const int32_t* ids, float* out, int64_t n,
                                                int64_t vocab, int64_t d, tl_cuda_stream stream) {
  const auto check_ids = [&](const int32_t* p, int64_t count) { return check::token_embed(p, count, vocab, d); };
  if (tl_status s = kc::check_device_ints(ids, n, check_ids, stream, "tl_token_embed_f32_dev")) return s;
  tl_embedding_f32_dev(table, ids, out, n, d, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n,
                                            int64_t vocab, int64_t d) {
  if (tl_status s = check::token_embed(ids, n, vocab, d)) return s;
  tl_embedding_f32(table, ids, out, n, d);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_pos_embed_f32_dev(const float* table, const int32_t* pos, float* out, int64_t n,
                                              int64_t max_pos, int64_t d, tl_cuda_stream stream) {
  const auto check_pos = [&](const int32_t* p, int64_t count) { return check::pos_embed(p, count, max_pos, d); };
  if (tl_status s = kc::check_device_ints(pos, n, check_pos, stream, "tl_pos_embed_f32_dev")) return s;
  tl_embedding_f32_dev(table, pos, out, n, d, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n,
                                          int64_t max_pos, int64_t d) {
  if (tl_status s = check::pos_embed(pos, n, max_pos, d)) return s;
  tl_embedding_f32(table, pos, out, n, d);
  return TL_OK;
}

// f16 and bf16 tables: the same checks, rows as 16-bit words.
#define TL_CUDA_EMBED_HALF(kind, Dtype, Check)                                                                         \
  TL_CUDA_EXPORT tl_status tl_##kind##_embed_##Dtype##_dev(const uint16_t* table, const int32_t* ids, uint16_t* out,   \
                                                           int64_t n, int64_t rows, int64_t d,                         \
                                                           tl_cuda_stream stream) {                                    \
    const auto check_ids = [&](const int32_t* p, int64_t count) { return check::Check(p, count, rows, d); };           \
    if (tl_status s = kc::check_device_ints(ids, n, check_ids, stream, "tl_" #kind "_embed_" #Dtype "_dev")) return s; \
    if (n > 0) kc::embed_half_rows(table, ids, 0, out, n, d, stream);                                                  \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_##kind##_embed_##Dtype(const uint16_t* table, const int32_t* ids, uint16_t* out,         \
                                                     int64_t n, int64_t rows, int64_t d) {                             \
    if (tl_status s = check::Check(ids, n, rows, d)) return s;                                                         \
    kc::embed_half_on_device("tl_" #kind "_embed_" #Dtype, table, ids, out, n, d);                                     \
    return TL_OK;                                                                                                      \
  }
TL_CUDA_EMBED_HALF(token, f16, token_embed)
TL_CUDA_EMBED_HALF(token, bf16, token_embed)
TL_CUDA_EMBED_HALF(pos, f16, pos_embed)
TL_CUDA_EMBED_HALF(pos, bf16, pos_embed)
#undef TL_CUDA_EMBED_HALF

// RelativePosEmbedding of f32 (Word uint32_t) or f16 and bf16 (uint16_t)
// tables, copied as words. The _dev functions copy the positions to the host
// for the buckets (they wait for `stream`).
#define TL_CUDA_RELATIVE(Dtype, Elem, Word)                                                                            \
  TL_CUDA_EXPORT tl_status tl_relative_pos_embedding_##Dtype##_dev(                                                    \
      const Elem* table, const int32_t* q_pos, const int32_t* k_pos, Elem* bias, int64_t Lq, int64_t Lk, int64_t H,    \
      int64_t num_buckets, int64_t max_distance, int bidirectional, tl_cuda_stream stream) {                           \
    if (tl_status s = check::relative_pos_embedding(Lq, Lk, H, num_buckets, max_distance, bidirectional)) return s;    \
    if (Lq * Lk == 0) return TL_OK;                                                                                    \
    const char* where = "tl_relative_pos_embedding_" #Dtype "_dev";                                                    \
    const std::vector<int32_t> q = kc::fetch(q_pos, static_cast<size_t>(Lq), stream, where);                           \
    const std::vector<int32_t> k = kc::fetch(k_pos, static_cast<size_t>(Lk), stream, where);                           \
    kc::gather_relative_bias(reinterpret_cast<const Word*>(table), q.data(), k.data(), reinterpret_cast<Word*>(bias),  \
                             Lq, Lk, H, num_buckets, max_distance, bidirectional, where, stream);                      \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_relative_pos_embedding_##Dtype(                                                          \
      const Elem* table, const int32_t* q_pos, const int32_t* k_pos, Elem* bias, int64_t Lq, int64_t Lk, int64_t H,    \
      int64_t num_buckets, int64_t max_distance, int bidirectional) {                                                  \
    if (tl_status s = check::relative_pos_embedding(Lq, Lk, H, num_buckets, max_distance, bidirectional)) return s;    \
    if (Lq * Lk == 0) return TL_OK;                                                                                    \
    const char* where = "tl_relative_pos_embedding_" #Dtype;                                                           \
    kc::on_device(where, kc::gather_relative_bias<Word>, kc::in(reinterpret_cast<const Word*>(table), num_buckets* H), \
                  q_pos, k_pos, kc::out(reinterpret_cast<Word*>(bias), H* Lq* Lk), Lq, Lk, H, num_buckets,             \
                  max_distance, bidirectional, where);                                                                 \
    return TL_OK;                                                                                                      \
  }
TL_CUDA_RELATIVE(f32, float, uint32_t)
TL_CUDA_RELATIVE(f16, uint16_t, uint16_t)
TL_CUDA_RELATIVE(bf16, uint16_t, uint16_t)
#undef TL_CUDA_RELATIVE
