// PixelShuffle, PixelUnshuffle and Unpatchify for the small factors of real
// models, where Permute's Move (tensor_move-inl.h) would tile over an axis
// of only r or p = 2..4 floats. Each is written in whole output rows:
//
// - PixelShuffle, r = 2..4: output row (b, c, h r + i) interleaves the r
//   input rows (b, c r^2 + i r + j, h), j < r (Highway's StoreInterleavedR);
//   from kStreamBytes on, streamed through a stack buffer.
// - PixelUnshuffle, r = 2..4: the inverse, an input row deinterleaved into
//   r output rows (LoadInterleavedR).
// - Unpatchify, p = 2..4, C >= L (8, or 4): image row (b, h) of channel c takes
//   feature c of W rows of C features, row w at token w / p, sub-pixel
//   (h % p, w % p): an L x L tile transpose (transpose-inl.h) over those
//   rows; the channels and columns past the last whole tile one at a time.
//
// Row tails go through partial loads and stores (LoadHead, StoreHead) and a
// stack buffer: nothing past an array's end is read or written. Copies move bits: NaN payloads survive.

#if defined(KONFORM_SIMD_SPATIAL_LAYOUT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_SPATIAL_LAYOUT_INL_H_
#undef KONFORM_SIMD_SPATIAL_LAYOUT_INL_H_
#else
#define KONFORM_SIMD_SPATIAL_LAYOUT_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "hwy/cache_control.h"
#include "impl/simd/stream-inl.h"
#include "impl/simd/tail-inl.h"
#include "impl/simd/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE::spatial {
namespace hn = hwy::HWY_NAMESPACE;

using RowTag = hn::ScalableTag<float>;
using RowVec = hn::Vec<RowTag>;
// Room for R vectors of the widest target, for the tails.
constexpr size_t kTailFloats = 4 * HWY_MAX_BYTES / sizeof(float);

// out[k R + j] = v[j][k]
template <int R>
HWY_INLINE void StoreInterleavedR(RowTag d, const RowVec* v, float* HWY_RESTRICT out) {
  if constexpr (R == 2) {
    hn::StoreInterleaved2(v[0], v[1], d, out);
  } else if constexpr (R == 3) {
    hn::StoreInterleaved3(v[0], v[1], v[2], d, out);
  } else {
    hn::StoreInterleaved4(v[0], v[1], v[2], v[3], d, out);
  }
}

// v[j][k] = in[k R + j]
template <int R>
HWY_INLINE void LoadInterleavedR(RowTag d, const float* HWY_RESTRICT in, RowVec* v) {
  if constexpr (R == 2) {
    hn::LoadInterleaved2(d, in, v[0], v[1]);
  } else if constexpr (R == 3) {
    hn::LoadInterleaved3(d, in, v[0], v[1], v[2]);
  } else {
    hn::LoadInterleaved4(d, in, v[0], v[1], v[2], v[3]);
  }
}

// out[w R + j] = x[j s + w] for w < n, j < R.
template <int R>
void InterleaveRows(const float* HWY_RESTRICT x, int64_t s, float* HWY_RESTRICT out, size_t n) {
  const RowTag d;
  const size_t N = hn::Lanes(d);
  RowVec v[R];
  size_t w = 0;
  for (; w + N <= n; w += N) {
    for (int j = 0; j < R; ++j) v[j] = hn::LoadU(d, x + j * s + w);
    StoreInterleavedR<R>(d, v, out + w * R);
  }
  if (w == n) return;
  for (int j = 0; j < R; ++j) v[j] = LoadHead(d, x + j * s + w, n - w);
  HWY_ALIGN float buf[kTailFloats];
  StoreInterleavedR<R>(d, v, buf);
  std::memcpy(out + w * R, buf, (n - w) * R * sizeof(float));
}

// out[j s + w] = in[w R + j] for w < n, j < R.
template <int R>
void DeinterleaveRow(const float* HWY_RESTRICT in, float* HWY_RESTRICT out, int64_t s, size_t n) {
  const RowTag d;
  const size_t N = hn::Lanes(d);
  RowVec v[R];
  size_t w = 0;
  for (; w + N <= n; w += N) {
    LoadInterleavedR<R>(d, in + w * R, v);
    for (int j = 0; j < R; ++j) hn::StoreU(v[j], d, out + j * s + w);
  }
  if (w == n) return;
  HWY_ALIGN float buf[kTailFloats] = {};
  std::memcpy(buf, in + w * R, (n - w) * R * sizeof(float));
  LoadInterleavedR<R>(d, buf, v);
  for (int j = 0; j < R; ++j) StoreHead(v[j], d, out + j * s + w, n - w);
}

// Input columns per chunk of a streamed row, interleaved in a stack buffer.
constexpr int64_t kChunk = 512;

// x [planes r^2, H, W] -> y [planes, H r, W r]. y is written in order; from
// kStreamBytes on, through a stack buffer and streamed past the caches.
template <int R>
void Shuffle(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t planes, int64_t H, int64_t W) {
  const int64_t plane = H * W;
  const bool stream = planes * plane * R * R * int64_t{sizeof(float)} >= kStreamBytes;
  HWY_ALIGN float buf[kChunk * R];
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < R; ++i) {
        const float* in = x + (p * R + i) * R * plane + h * W;
        float* out = y + ((p * H + h) * R + i) * W * R;
        if (!stream) {
          InterleaveRows<R>(in, plane, out, static_cast<size_t>(W));
          continue;
        }
        for (int64_t w = 0; w < W; w += kChunk) {
          const auto n = static_cast<size_t>(HWY_MIN(kChunk, W - w));
          InterleaveRows<R>(in + w, plane, buf, n);
          StreamCopy(buf, out + w * R, n * R);
        }
      }
  if (stream) hwy::FlushStream();
}

// x [planes, H, W] -> y [planes r^2, H / r, W / r]. Not streamed: its r^2
// output planes are written a row at a time each, and streaming them
// measured no faster at 64 MiB (docs/ops-spatial.md).
template <int R>
void Unshuffle(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t planes, int64_t H, int64_t W) {
  const int64_t Ho = H / R, Wo = W / R, plane = Ho * Wo;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t h = 0; h < Ho; ++h)
      for (int64_t i = 0; i < R; ++i)
        DeinterleaveRow<R>(x + (p * H + h * R + i) * W, y + (p * R + i) * R * plane + h * Wo, plane,
                           static_cast<size_t>(Wo));
}

// Whether PixelShuffle (unshuffle false) or PixelUnshuffle ran for this r;
// B, C, H, W describe x, already checked.
inline bool ShuffleSmall(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t B, int64_t C, int64_t H, int64_t W,
                         int64_t r, bool unshuffle) {
  const int64_t planes = unshuffle ? B * C : B * (C / (r * r));
  switch (r) {
    case 2: unshuffle ? Unshuffle<2>(x, y, planes, H, W) : Shuffle<2>(x, y, planes, H, W); return true;
    case 3: unshuffle ? Unshuffle<3>(x, y, planes, H, W) : Shuffle<3>(x, y, planes, H, W); return true;
    case 4: unshuffle ? Unshuffle<4>(x, y, planes, H, W) : Shuffle<4>(x, y, planes, H, W); return true;
    default: return false;
  }
}

// Unpatchify, x [B, (H/P)(W/P), P P C] -> y [B, C, H, W], C and W at least
// a tile's L (the lanes of D). P is a constant: the row offsets divide by it.
template <int64_t P, class D>
void Unpatchify(D d, const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t B, int64_t C, int64_t H, int64_t W) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t plane = H * W, W_full = W / L * L, C_full = C / L * L;
  // Feature row w of an image row, from that row's first (token w / P, column w % P).
  auto row_at = [=](int64_t w) { return (w / P * P * P + w % P) * C; };
  hn::Vec<D> r[8], c[8];
  // Patch rows of image row h; channel c of image row h at out(b, h) + c plane.
  auto patches = [=](int64_t b, int64_t h) { return x + (b * (H / P) + h / P) * W * P * C + h % P * P * C; };
  auto out = [=](int64_t b, int64_t h) { return y + b * C * plane + h * W; };
  for (int64_t b = 0; b < B; ++b) {
    // L channels at a time through every row: their planes are written in order.
    for (int64_t c0 = 0; c0 < C_full; c0 += L)
      for (int64_t h = 0; h < H; ++h) {
        const float* in = patches(b, h) + c0;
        float* o = out(b, h) + c0 * plane;
        for (int64_t w0 = 0; w0 < W_full; w0 += L) {
          for (int64_t k = 0; k < L; ++k) r[k] = hn::LoadU(d, in + row_at(w0 + k));
          Transpose(d, r, c);
          for (int64_t k = 0; k < L; ++k) hn::StoreU(c[k], d, o + k * plane + w0);
        }
      }
    for (int64_t h = 0; h < H; ++h) {
      const float* in = patches(b, h);
      float* o = out(b, h);
      for (int64_t ch = C_full; ch < C; ++ch)
        for (int64_t w = 0; w < W_full; ++w) o[ch * plane + w] = in[row_at(w) + ch];
      for (int64_t w = W_full; w < W; ++w)
        for (int64_t ch = 0; ch < C; ++ch) o[ch * plane + w] = in[row_at(w) + ch];
    }
  }
}

template <class D>
bool UnpatchifyTiles(D d, const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t B, int64_t C, int64_t H,
                     int64_t W, int64_t p) {
  switch (p) {
    case 2: Unpatchify<2>(d, x, y, B, C, H, W); return true;
    case 3: Unpatchify<3>(d, x, y, B, C, H, W); return true;
    case 4: Unpatchify<4>(d, x, y, B, C, H, W); return true;
    default: return false;
  }
}

// Whether Unpatchify ran: p = 2..4 and C, W of at least a tile (8 x 8 on
// AVX2 and AVX3, else 4 x 4: DiT's C = 4); else nothing is written. B, C,
// H, W describe y, already checked.
inline bool UnpatchifySmall(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t B, int64_t C, int64_t H,
                            int64_t W, int64_t p) {
  const SquareTag d;
  const hn::CappedTag<float, 4> d4;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d)), L4 = static_cast<int64_t>(hn::Lanes(d4));
  if (C >= L && W >= L) return UnpatchifyTiles(d, x, y, B, C, H, W, p);
  if (C >= L4 && W >= L4) return UnpatchifyTiles(d4, x, y, B, C, H, W, p);
  return false;
}

}  // namespace konform::simd::HWY_NAMESPACE::spatial
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_SPATIAL_LAYOUT_INL_H_
