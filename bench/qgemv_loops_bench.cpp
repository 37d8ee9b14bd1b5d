// konform_qgemv_loops_bench: what the quantized GEMV's decode alone costs
// (issue 32). Bare AVX-512 loops (intrinsics, no Highway) over W laid out as
// the library's blocks (tinyllm/quant.h), one row of x (K = 4096), with the
// fewest operations each format's decode needs in the library's structure:
// four rows of W at a time (QTile's), per group of 256 columns a chain of
// multiply-adds per row with k along the 16 lanes, the group chains added in
// order, the next tile prefetched a line at a time as QTile does:
//   q4_0_min       per group and row the 8 f16 scales converted at once (the
//                  kernel's way); per block and row the scale times the
//                  table (i - 8) (a vmulps); one vpmovzxbd of the
//                  16 quant bytes, one vpsrld 4, two vpermps, two FMAs
//   q4_0_nolookup  the same without the vpermps: FMAs on the widened bytes
//                  as they are (timing only; denormals read as zero)
//   q4_0_min_...   q4_0_min prefetching otherwise (one thread, from memory):
//                  nopf none, ahead2 / ahead4 two or four tiles ahead, t1
//                  into L2 (prefetcht1) one tile ahead
//   q8_0_min       the scales as above; per 16 weights a
//                  vpmovsxbd, a vcvtdq2ps, a vmulps by the scale, an FMA
//   q4_k_min       per pair of sub-blocks two vpmovzxbd, two vpsrld, two
//                  tables (a vmulps of the sub-block scale d sc, from
//                  memory), four vpermps, four FMAs; per super-block the
//                  mins' FMA over the sub-block sums of x. The scales d sc
//                  and dmin m are given as floats (from a table of 1 KiB
//                  that stays in L1, the same for every row, where the
//                  kernel unpacks each super-block's 12 bytes): a bound, not
//                  a kernel
//   read_only      the same bytes, tile after tile, a vpaddd per 64 bytes
//                  (the same prefetch)
// each timed from memory (W copies cycled past the L3, as BM_QGemv) and with
// W in L2 (128 rows), beside the library's tl_qmatmul_*_f32 (one thread; the
// decode loops from memory also on two, the rows in halves) in
// the same rounds, against the read limit over the same bytes (peaks.hpp's
// read candidates, as BM_QGemv's). Counters: loop_pct and kernel_pct (% of
// the limit), kernel_of_loop, limit_GBps, loop_GBps, loop_Gw and kernel_Gw
// (G weights/s). Before timing, every decode loop's y is checked against the
// kernel's (else the bench stops).
// docs/benchmarks.md, "What the quantized decode alone costs (bare loops)".
// AVX-512 (F, BW, DQ) and F16C only.
//
//   konform_qgemv_loops_bench [Google Benchmark flags]

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/half_limit.hpp"
#include "bench/peaks.hpp"
#include "tinyllm/quant.h"
#include "tinyllm/threads.h"

namespace {

using konform::bench::Candidate;

constexpr size_t kK = 4096;           // x: one row of 4096 floats
constexpr size_t kGroups = kK / 256;  // the chains of a row
constexpr size_t kRows = 4;           // rows of W a tile (QTile's)

#define KONFORM_QLOOPS_TARGET "avx512f,avx512bw,avx512dq,avx512vl,f16c,fma"
#define QLOOP __attribute__((target(KONFORM_QLOOPS_TARGET), noinline))
#define QINLINE __attribute__((target(KONFORM_QLOOPS_TARGET), always_inline)) inline

// The eight f16 scales of a group of Q4_0 (18 bytes apart) or Q8_0 (34)
// blocks from b, as floats into sc: the kernel's group-at-a-time scales
// (qmatmul-inl.h's Q4_0GroupScales, Q8_0GroupScales), two or four loads, one
// or two word permutes, one conversion; each block then takes its scale as
// the broadcast operand of one vmulps.
template <size_t kBlockBytes>
QINLINE void GroupScales(const uint8_t* b, float* sc) {
  __m512i words;
  if constexpr (kBlockBytes == 18) {
    const __m512i idx =
        _mm512_setr_epi32(0x00090000, 0x001b0012, 0x002d0024, 0x003f0036, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    words = _mm512_permutex2var_epi16(_mm512_loadu_si512(b), idx, _mm512_loadu_si512(b + 64));
  } else {
    const __m512i idx0 = _mm512_setr_epi32(0x00110000, 0x00330022, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i idx1 = _mm512_setr_epi32(0, 0, 0x00150004, 0x00370026, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i w0 = _mm512_permutex2var_epi16(_mm512_loadu_si512(b), idx0, _mm512_loadu_si512(b + 64));
    const __m512i w1 = _mm512_permutex2var_epi16(_mm512_loadu_si512(b + 128), idx1, _mm512_loadu_si512(b + 192));
    words = _mm512_mask_blend_epi16(0xF0, w0, w1);
  }
  _mm256_store_ps(sc, _mm256_cvtph_ps(_mm512_castsi512_si128(words)));
}

// The tile kAhead tiles on (its bytes follow): its share for one group, a
// line at a time (QTile's prefetch: kAhead 1, kLocality 3, prefetcht0; 2 is
// prefetcht1).
template <size_t kGroupBytes, int kAhead = 1, int kLocality = 3>
QINLINE void PrefetchGroup(const uint8_t* ahead) {
  if constexpr (kAhead > 0)
    for (size_t i = 0; i < kRows * kGroupBytes; i += 64) __builtin_prefetch(ahead + i, 0, kLocality);
}

// Sets DAZ and FTZ for the scope (q4_0_nolookup multiplies by integers read
// as floats: denormals, which some cores take slowly).
class NoDenormals {
 public:
  NoDenormals() : old_(_mm_getcsr()) { _mm_setcsr(old_ | 0x8040); }
  ~NoDenormals() { _mm_setcsr(old_); }

 private:
  unsigned old_;
};

// The tiles of Q4_0 and Q8_0 (kBlockBytes: 18 or 34, f16 d first): per group
// and row the scales at once, then per block and row block(b, d, x0, x1,
// acc): the block's 32 weights at b + 2, its scale d, multiplied into acc
// with x0, x1 (x of the block's columns). The prefetch: PrefetchGroup's.
template <size_t kBlockBytes, class Block, int kAhead = 1, int kLocality = 3>
QINLINE void BlockTiles(const uint8_t* w, const float* x, float* y, size_t N, const Block& block) {
  constexpr size_t kRow = kK / 32 * kBlockBytes, kGroupBytes = 8 * kBlockBytes;
  for (size_t n = 0; n < N; n += kRows) {
    const uint8_t* r = w + n * kRow;
    const uint8_t* ahead = r + kAhead * kRows * kRow;
    __m512 total[kRows];
    for (auto& t : total) t = _mm512_setzero_ps();
    for (size_t g = 0; g < kGroups; ++g, ahead += kRows * kGroupBytes) {
      PrefetchGroup<kGroupBytes, kAhead, kLocality>(ahead);
      __m512 acc[kRows];
      for (auto& a : acc) a = _mm512_setzero_ps();
      alignas(32) float sc[kRows][8];
      for (size_t k = 0; k < kRows; ++k) GroupScales<kBlockBytes>(r + k * kRow + g * kGroupBytes, sc[k]);
      for (size_t b = 0; b < 8; ++b) {
        const size_t off = (g * 8 + b) * kBlockBytes;
        const __m512 x0 = _mm512_loadu_ps(x + g * 256 + b * 32), x1 = _mm512_loadu_ps(x + g * 256 + b * 32 + 16);
        for (size_t k = 0; k < kRows; ++k) block(r + k * kRow + off + 2, sc[k][b], x0, x1, acc[k]);
      }
      for (size_t k = 0; k < kRows; ++k) total[k] = _mm512_add_ps(total[k], acc[k]);
    }
    for (size_t k = 0; k < kRows; ++k) y[n + k] = _mm512_reduce_add_ps(total[k]);
  }
}

// Q4_0: 16 bytes of nibbles (weights j and j + 16) after the f16 d.
template <bool kLookup>
struct Q4_0Block {
  QINLINE void operator()(const uint8_t* q, float d, __m512 x0, __m512 x1, __m512& acc) const {
    const __m512 iota = _mm512_setr_ps(-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7);
    const __m512 table = _mm512_mul_ps(_mm512_set1_ps(d), iota);
    const __m512i lo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
    const __m512i hi = _mm512_srli_epi32(lo, 4);
    __m512 w0, w1;
    if constexpr (kLookup) {
      w0 = _mm512_permutexvar_ps(lo, table);  // vpermps reads the index's low 4 bits
      w1 = _mm512_permutexvar_ps(hi, table);
    } else {
      asm("" : : "v"(table));  // keep the scale's operations
      w0 = _mm512_castsi512_ps(lo);
      w1 = _mm512_castsi512_ps(hi);
    }
    acc = _mm512_fmadd_ps(x1, w1, _mm512_fmadd_ps(x0, w0, acc));
  }
};

template <bool kLookup, int kAhead = 1, int kLocality = 3>
QLOOP void Q4_0Loop(const uint8_t* w, const float* x, const float*, size_t, float* y, size_t N) {
  NoDenormals daz;
  BlockTiles<18, Q4_0Block<kLookup>, kAhead, kLocality>(w, x, y, N, Q4_0Block<kLookup>());
}

// Q8_0: 32 int8 after the f16 d.
struct Q8_0Block {
  QINLINE void operator()(const uint8_t* q, float d, __m512 x0, __m512 x1, __m512& acc) const {
    const __m512 dv = _mm512_set1_ps(d);
    const __m128i* p = reinterpret_cast<const __m128i*>(q);
    const __m512 w0 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(p))), dv);
    const __m512 w1 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(p + 1))), dv);
    acc = _mm512_fmadd_ps(x1, w1, _mm512_fmadd_ps(x0, w0, acc));
  }
};

QLOOP void Q8_0Loop(const uint8_t* w, const float* x, const float*, size_t, float* y, size_t N) {
  BlockTiles<34>(w, x, y, N, Q8_0Block());
}

// Q4_K: 144-byte super-blocks (f16 d, dmin, scales[12], qs[128]). sd: per
// super-block 16 floats, d sc of the 8 sub-blocks then dmin m, a row's
// super-blocks after each other, rows sd_stride floats apart (0: one table
// for every row, the timed case).
QLOOP void Q4KLoop(const uint8_t* w, const float* x, const float* sd, size_t sd_stride, float* y, size_t N) {
  constexpr size_t kRow = kK / 256 * 144, kGroupBytes = 144;
  alignas(64) float sx[kK / 32];  // the sub-block sums of x (the kernel's, once per call)
  for (size_t s = 0; s < kK / 32; ++s)
    sx[s] = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_loadu_ps(x + 32 * s), _mm512_loadu_ps(x + 32 * s + 16)));
  const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (size_t n = 0; n < N; n += kRows) {
    const uint8_t* r = w + n * kRow;
    const uint8_t* ahead = r + kRows * kRow;
    __m512 total[kRows];
    __m256 mins[kRows];
    for (auto& t : total) t = _mm512_setzero_ps();
    for (auto& m : mins) m = _mm256_setzero_ps();
    for (size_t g = 0; g < kGroups; ++g, ahead += kRows * kGroupBytes) {
      PrefetchGroup<kGroupBytes>(ahead);
      __m512 acc[kRows];
      for (auto& a : acc) a = _mm512_setzero_ps();
      for (size_t p = 0; p < 4; ++p) {
        const float* xp = x + g * 256 + p * 64;
        const __m512 x0 = _mm512_loadu_ps(xp), x1 = _mm512_loadu_ps(xp + 16), x2 = _mm512_loadu_ps(xp + 32),
                     x3 = _mm512_loadu_ps(xp + 48);
        for (size_t k = 0; k < kRows; ++k) {
          const uint8_t* qs = r + k * kRow + g * 144 + 16 + 32 * p;
          const float* s = sd + (n + k) * sd_stride + g * 16;
          const __m512 t_lo = _mm512_mul_ps(_mm512_set1_ps(s[2 * p]), iota);
          const __m512 t_hi = _mm512_mul_ps(_mm512_set1_ps(s[2 * p + 1]), iota);
          const __m512i b0 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)));
          const __m512i b1 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + 16)));
          acc[k] = _mm512_fmadd_ps(x0, _mm512_permutexvar_ps(b0, t_lo), acc[k]);
          acc[k] = _mm512_fmadd_ps(x1, _mm512_permutexvar_ps(b1, t_lo), acc[k]);
          acc[k] = _mm512_fmadd_ps(x2, _mm512_permutexvar_ps(_mm512_srli_epi32(b0, 4), t_hi), acc[k]);
          acc[k] = _mm512_fmadd_ps(x3, _mm512_permutexvar_ps(_mm512_srli_epi32(b1, 4), t_hi), acc[k]);
        }
      }
      for (size_t k = 0; k < kRows; ++k) {
        total[k] = _mm512_add_ps(total[k], acc[k]);
        const float* s = sd + (n + k) * sd_stride + g * 16;
        mins[k] = _mm256_fmadd_ps(_mm256_loadu_ps(s + 8), _mm256_load_ps(sx + 8 * g), mins[k]);
      }
    }
    for (size_t k = 0; k < kRows; ++k) {
      const __m256 m = mins[k];
      const __m128 m4 = _mm_add_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
      const __m128 m2 = _mm_add_ps(m4, _mm_movehl_ps(m4, m4));
      y[n + k] = _mm512_reduce_add_ps(total[k]) - _mm_cvtss_f32(_mm_add_ss(m2, _mm_movehdup_ps(m2)));
    }
  }
}

// The bytes of N rows of row_bytes, tile after tile, a vpaddd per 64 bytes,
// the tile kRows rows on prefetched a line per line read.
template <size_t kRowBytes>
QLOOP void ReadOnly(const uint8_t* w, const float*, const float*, size_t, float* y, size_t N) {
  constexpr size_t kTile = kRows * kRowBytes;
  static_assert(kTile % 256 == 0, "whole steps of four lines");
  __m512i s[4];
  for (auto& v : s) v = _mm512_setzero_si512();
  for (size_t n = 0; n < N; n += kRows) {
    const uint8_t* t = w + n * kRowBytes;
    for (size_t i = 0; i < kTile; i += 256)
      for (size_t j = 0; j < 4; ++j) {
        _mm_prefetch(reinterpret_cast<const char*>(t + kTile + i + 64 * j), _MM_HINT_T0);
        s[j] = _mm512_add_epi32(s[j], _mm512_loadu_si512(t + i + 64 * j));
      }
  }
  y[0] = float(_mm512_reduce_add_epi32(_mm512_add_epi32(_mm512_add_epi32(s[0], s[1]), _mm512_add_epi32(s[2], s[3]))));
}

using LoopFn = void (*)(const uint8_t* w, const float* x, const float* sd, size_t sd_stride, float* y, size_t N);

struct Format {
  const char* name;
  size_t qk, block_bytes;
  tl_status (*quantize)(const float*, void*, int64_t, int64_t);
  tl_status (*qmatmul)(const float*, const void*, float*, int64_t, int64_t, int64_t);
  size_t RowBytes() const { return kK / qk * block_bytes; }
};
const Format kQ4_0{"q4_0", TL_QK4_0, TL_Q4_0_BLOCK_BYTES, tl_quantize_q4_0_f32, tl_qmatmul_q4_0_f32};
const Format kQ8_0{"q8_0", TL_QK8_0, TL_Q8_0_BLOCK_BYTES, tl_quantize_q8_0_f32, tl_qmatmul_q8_0_f32};
const Format kQ4K{"q4_k", TL_QK_K, TL_Q4_K_BLOCK_BYTES, tl_quantize_q4_k_f32, tl_qmatmul_q4_k_f32};

// N x kK weights (filled(), as BM_QGemv's) as f's blocks.
std::vector<uint8_t> Quantized(const Format& f, size_t N) {
  const auto wf = konform::bench::filled(N * kK, 1.0f);
  std::vector<uint8_t> w(N * f.RowBytes());
  f.quantize(wf.data(), w.data(), int64_t(N), int64_t(kK));
  return w;
}

// q4_k_min's scales of N rows of super-blocks (tinyllm/quant.h's unpacking;
// the products d sc and dmin m in float, exact as the kernel's).
__attribute__((target(KONFORM_QLOOPS_TARGET))) std::vector<float> Q4KScales(const uint8_t* w, size_t N) {
  std::vector<float> sd(N * kGroups * 16);
  for (size_t i = 0; i < N * kGroups; ++i) {
    const uint8_t* b = w + 144 * i;
    const uint8_t* q = b + 4;
    uint16_t h[2];
    std::memcpy(h, b, 4);
    const float d = _cvtsh_ss(h[0]), dmin = _cvtsh_ss(h[1]);
    for (size_t j = 0; j < 8; ++j) {
      const int sc = j < 4 ? q[j] & 63 : (q[j + 4] & 15) | (q[j - 4] >> 6) << 4;
      const int m = j < 4 ? q[j + 4] & 63 : (q[j + 4] >> 4) | (q[j] >> 6) << 4;
      sd[16 * i + j] = d * float(sc);
      sd[16 * i + 8 + j] = dmin * float(m);
    }
  }
  return sd;
}

// Each decode loop's y beside the kernel's over 16 rows: within 1e-5 of
// max |y| (the chains are the kernel's; the lane sums may differ in order).
bool Agrees(const Format& f, LoopFn loop) {
  const size_t N = 16;
  const auto w = Quantized(f, N);
  const auto x = konform::bench::filled(kK, 1.0f);
  const auto sd = Q4KScales(w.data(), N);  // read by q4_k_min only
  std::vector<float> y(N), ref(N);
  loop(w.data(), x.data(), sd.data(), kGroups * 16, y.data(), N);
  f.qmatmul(x.data(), w.data(), ref.data(), 1, int64_t(N), int64_t(kK));
  double top = 0, diff = 0;
  for (size_t i = 0; i < N; ++i) {
    top = std::max(top, double(std::fabs(ref[i])));
    diff = std::max(diff, double(std::fabs(y[i] - ref[i])));
  }
  if (diff > 1e-5 * top) std::fprintf(stderr, "%s: |y - kernel| %g, max |y| %g\n", f.name, diff, top);
  return diff <= 1e-5 * top;
}

// W's copies, quantized once per format and height.
const std::vector<std::vector<uint8_t>>& Copies(const Format& f, size_t N, size_t copies) {
  static std::map<std::string, std::vector<std::vector<uint8_t>>> cache;
  auto& c = cache[std::string(f.name) + "/" + std::to_string(N)];
  if (c.empty()) c.push_back(Quantized(f, N));
  while (c.size() < copies) c.push_back(c.front());
  return c;
}

// The loop (timed under Google Benchmark's loop) and the kernel on one
// thread, each cycling through W's copies, against the read limit over as
// many bytes (float copies of them; from L2: one copy).
void LoopBench(benchmark::State& state, const Format& f, LoopFn loop, size_t N, bool from_memory, bool with_kernel,
               int threads) {
  const size_t bytes = N * f.RowBytes();
  const size_t copies = from_memory ? konform::bench::copies_past_cache(double(bytes)) : 1;
  const auto& w = Copies(f, N, copies);
  const auto x = konform::bench::filled(kK, 1.0f);
  const auto sd = Q4KScales(w[0].data(), 1);  // row 0's, for every row (q4_k_min only)
  std::vector<float> y(N), yk(N);
  const size_t floats = (bytes / 4 + 4095) / 4096 * 4096;  // whole rows of 4096 for sgemv
  const std::vector<std::vector<float>> plain(copies, konform::bench::filled(floats, 1.0f));
  tl_set_num_threads(threads);
  size_t next = 0, next_k = 0;
  // Two threads: the rows in halves, the second half on a thread started
  // per call (as the limit's candidates start theirs).
  const size_t half = threads == 2 ? N / 2 : N;
  const auto run = [&] {
    const uint8_t* wc = w[next++ % copies].data();
    std::thread t;
    if (threads == 2)
      t = std::thread(loop, wc + half * f.RowBytes(), x.data(), sd.data(), 0, y.data() + half, N - half);
    loop(wc, x.data(), sd.data(), 0, y.data(), half);
    if (threads == 2) t.join();
  };
  const auto r = konform::bench::LoopBeside(
      state, double(bytes), run,
      with_kernel ? std::function<void()>([&] {
        f.qmatmul(x.data(), w[next_k++ % copies].data(), yk.data(), 1, int64_t(N), int64_t(kK));
      })
                  : nullptr,
      from_memory ? konform::bench::cycled_read_candidates(plain, floats, threads)
                  : konform::bench::read_candidates(plain[0].data(), floats, threads));
  const double weights = double(N * kK) / double(bytes);  // per byte
  state.counters["copies"] = double(copies);
  state.counters["loop_GBps"] = r.kernels[0] / 1e9;
  state.counters["loop_Gw"] = r.kernels[0] * weights / 1e9;
  state.counters["kernel_Gw"] = r.kernels[1] * weights / 1e9;
  tl_set_num_threads(0);
}

void RegisterAll() {
  struct Row {
    const char* loop;
    const Format* f;
    LoopFn fn;
    bool kernel;
  };
  const Row rows[] = {
      {"q4_0_min", &kQ4_0, &Q4_0Loop<true>, true},
      {"q4_0_nolookup", &kQ4_0, &Q4_0Loop<false>, true},
      {"q4_0_min_nopf", &kQ4_0, &Q4_0Loop<true, 0>, true},
      {"q4_0_min_ahead2", &kQ4_0, &Q4_0Loop<true, 2>, true},
      {"q4_0_min_ahead4", &kQ4_0, &Q4_0Loop<true, 4>, true},
      {"q4_0_min_t1", &kQ4_0, &Q4_0Loop<true, 1, 2>, true},
      {"read_only", &kQ4_0, &ReadOnly<kK / 32 * 18>, false},
      {"q8_0_min", &kQ8_0, &Q8_0Loop, true},
      {"read_only", &kQ8_0, &ReadOnly<kK / 32 * 34>, false},
      {"q4_k_min", &kQ4K, &Q4KLoop, true},
      {"read_only", &kQ4K, &ReadOnly<kK / 256 * 144>, false},
  };
  for (const bool mem : {true, false})
    for (const int threads : {1, 2})
      for (const Row& r : rows) {
        if (threads == 2 && (!mem || !r.kernel)) continue;  // two threads: the decode loops from memory
        const bool prefetch_variant = std::string(r.loop).find("_min_") != std::string::npos;
        if (prefetch_variant && (!mem || threads == 2)) continue;  // one thread from memory
        const size_t N = mem ? 11008 : 128;
        const std::string name = std::string("QLoop/") + r.loop + "/" + r.f->name + "/" + std::to_string(N) + "x4096" +
                                 (mem ? "/memory" : "/L2") + "/threads:" + std::to_string(threads);
        konform::bench::RegisterHalf(name, LoopBench, *r.f, r.fn, N, mem, r.kernel, threads);
      }
}

}  // namespace

int main(int argc, char** argv) {
  if (!konform::bench::RunsAvx512Loops("konform_qgemv_loops_bench")) return 0;
  if (!Agrees(kQ4_0, &Q4_0Loop<true>) || !Agrees(kQ8_0, &Q8_0Loop) || !Agrees(kQ4K, &Q4KLoop)) {
    std::fprintf(stderr, "konform_qgemv_loops_bench: a decode loop's y differs from the kernel's\n");
    return 1;
  }
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
