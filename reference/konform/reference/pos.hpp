// The position-encoding ops of spec/operations.txt section 3, written from
// the spec's formulas and tinyllm/pos.h's conventions.
//
// One source on the scalar type T (double: the oracle; a 50-digit float:
// checks the double one; float: the `scalar` backend). Angles and their cos
// and sin are carried out in pos_wide<T>, at least double, because the ABI
// forms them in double and rounds only the result: the float instantiation
// therefore rounds cos and sin once, as the contract says.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace konform::reference {

template <typename T>
using pos_wide = std::conditional_t<std::is_same_v<T, float>, double, T>;

// Pair j of a rotary range of width `width` starting at `offset`: layout 0
// (NeoX) pairs j with j + width/2, layout 1 (interleaved) 2j with 2j + 1.
inline void pos_pair(int layout, int64_t offset, int64_t width, int64_t j, int64_t* a, int64_t* b) {
  *a = offset + (layout == 0 ? j : 2 * j);
  *b = offset + (layout == 0 ? j + width / 2 : 2 * j + 1);
}

// f_j = base^(-2j / width), the frequency of pair j.
template <typename W>
W rope_frequency(float base, int64_t j, int64_t width) {
  using std::pow;
  return pow(W(base), -W(2 * j) / W(width));
}

// cache[p, j] = cos(p f_j), cache[p, rot_dim/2 + j] = sin(p f_j), each
// value of W handed to round(W) -> Elem (the half caches round twice: to
// float, then to the dtype).
template <typename W, typename Elem, class Round>
void rope_cache_rounded(Elem* cache, int64_t max_seq, int64_t rot_dim, float base, const Round& round) {
  using std::cos;
  using std::sin;
  const int64_t half = rot_dim / 2;
  std::vector<W> f(static_cast<size_t>(half));
  for (int64_t j = 0; j < half; ++j) f[j] = rope_frequency<W>(base, j, rot_dim);
  for (int64_t p = 0; p < max_seq; ++p) {
    Elem* row = cache + p * rot_dim;
    for (int64_t j = 0; j < half; ++j) {
      const W angle = W(p) * f[j];
      row[j] = round(cos(angle));
      row[half + j] = round(sin(angle));
    }
  }
}

template <typename T>
void rope_cache(T* cache, int64_t max_seq, int64_t rot_dim, float base) {
  rope_cache_rounded<pos_wide<T>>(cache, max_seq, rot_dim, base, [](pos_wide<T> v) { return T(v); });
}

// One rotation of the pair (a, b) by (c, s), into y; both read before either
// is written, so y == x works.
template <typename T>
void rotate_pair(const float* x, T* y, int64_t ia, int64_t ib, T c, T s) {
  const T a = T(x[ia]), b = T(x[ib]);
  y[ia] = a * c - b * s;
  y[ib] = a * s + b * c;
}

// Rope from the cache: x, y [T, H, D]; the tail rot_dim..D-1 is copied.
template <typename T>
void rope_apply(const float* x, T* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, int64_t rot_dim,
                const float* cache, int layout) {
  const int64_t half = rot_dim / 2;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = cache + int64_t(pos[t]) * rot_dim;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (t * heads + h) * D;
      for (int64_t i = rot_dim; i < D; ++i) y[base + i] = T(x[base + i]);
      for (int64_t j = 0; j < half; ++j) {
        int64_t ia, ib;
        pos_pair(layout, base, rot_dim, j, &ia, &ib);
        rotate_pair(x, y, ia, ib, T(row[j]), T(row[half + j]));
      }
    }
  }
}

// Rope of f16 or bf16 bit patterns: each pair widened exactly, rotated in
// float as rotate_pair does, each member rounded once by Narrow; the tail
// copied as bits. Both members are read before either is written: y == x.
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void rope_apply_half(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D,
                     int64_t rot_dim, const float* cache, int layout) {
  const int64_t half = rot_dim / 2;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = cache + int64_t(pos[t]) * rot_dim;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (t * heads + h) * D;
      for (int64_t i = rot_dim; i < D; ++i) y[base + i] = x[base + i];
      for (int64_t j = 0; j < half; ++j) {
        int64_t ia, ib;
        pos_pair(layout, base, rot_dim, j, &ia, &ib);
        const float a = Widen(x[ia]), b = Widen(x[ib]), c = row[j], s = row[half + j];
        y[ia] = Narrow(a * c - b * s);
        y[ib] = Narrow(a * s + b * c);
      }
    }
  }
}

// Rope straight from the spec's formula (no cache): what the cache must
// reproduce. cos and sin in pos_wide<T>, rounded to T.
template <typename T>
void rope_direct(const float* x, T* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, int64_t rot_dim,
                 float base, int layout) {
  using W = pos_wide<T>;
  using std::cos;
  using std::sin;
  const int64_t half = rot_dim / 2;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t o = (t * heads + h) * D;
      for (int64_t i = rot_dim; i < D; ++i) y[o + i] = T(x[o + i]);
      for (int64_t j = 0; j < half; ++j) {
        const W angle = W(pos[t]) * rope_frequency<W>(base, j, rot_dim);
        int64_t ia, ib;
        pos_pair(layout, o, rot_dim, j, &ia, &ib);
        rotate_pair(x, y, ia, ib, T(cos(angle)), T(sin(angle)));
      }
    }
}

// MultiAxisRope: sub-range a of every head is a Rope of width dims[a] with
// position pos[t * n_axes + a] and base bases[a] (spec section 3,
// "Multi-axis RoPE"). y == x works.
template <typename T>
void multi_axis_rope(const float* x, T* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, int64_t n_axes,
                     const int64_t* dims, const float* bases, int layout) {
  using W = pos_wide<T>;
  using std::cos;
  using std::sin;
  for (int64_t t = 0; t < tokens; ++t) {
    int64_t offset = 0;
    for (int64_t a = 0; a < n_axes; ++a) {
      const W p = W(pos[t * n_axes + a]);
      for (int64_t j = 0; j < dims[a] / 2; ++j) {
        const W angle = p * rope_frequency<W>(bases[a], j, dims[a]);
        const T c = T(cos(angle)), s = T(sin(angle));
        for (int64_t h = 0; h < heads; ++h) {
          int64_t ia, ib;
          pos_pair(layout, (t * heads + h) * D + offset, dims[a], j, &ia, &ib);
          rotate_pair(x, y, ia, ib, c, s);
        }
      }
      offset += dims[a];
    }
  }
}

// SinusoidalEmbed: f_j = exp(-j ln(max_period) / (half - freq_shift)); layout
// 0 interleaves (sin, cos), 1 puts the sines first, 2 the cosines.
template <typename T>
void sinusoidal_embed(const float* t, T* y, int64_t n, int64_t dim, float max_period, float freq_shift, int layout) {
  using W = pos_wide<T>;
  using std::cos;
  using std::exp;
  using std::log;
  using std::sin;
  const int64_t half = dim / 2;
  const W step = -log(W(max_period)) / (W(half) - W(freq_shift));
  for (int64_t i = 0; i < n; ++i) {
    T* row = y + i * dim;
    for (int64_t j = 0; j < half; ++j) {
      const W angle = W(t[i]) * exp(W(j) * step);
      const T s = T(sin(angle)), c = T(cos(angle));
      if (layout == 0) {
        row[2 * j] = s;
        row[2 * j + 1] = c;
      } else {
        row[j] = layout == 1 ? s : c;
        row[half + j] = layout == 1 ? c : s;
      }
    }
  }
}

// A learned table's rows, gathered: out[i] = table[index[i]] (TokenEmbed,
// PosEmbed). A copy: the same bits in every instantiation.
template <typename T>
void gather_rows(const float* table, const int32_t* index, T* out, int64_t n, int64_t d) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) out[i * d + k] = T(table[int64_t(index[i]) * d + k]);
}

// ---- T5 buckets, exactly -------------------------------------------------

// n^m >= me^(m-k) * md^k (n < 2^32; me, md < 2^31), decided exactly: logs settle it when they differ by
// more than their own error, products of 32-bit limbs when they do not (the
// sides are equal at every bucket boundary that is an integer distance).
inline bool t5_reaches(uint64_t n, int64_t k, int64_t m, int64_t me, int64_t md) {
  const double l =
      double(m) * std::log(double(n)) - double(m - k) * std::log(double(me)) - double(k) * std::log(double(md));
  if (l > 1e-9) return true;
  if (l < -1e-9) return false;
  using Big = std::vector<uint32_t>;           // little-endian base 2^32
  const auto times = [](Big& v, uint64_t f) {  // f < 2^32: w * f + carry fits 64 bits
    uint64_t carry = 0;
    for (uint32_t& w : v) {
      const uint64_t p = uint64_t(w) * f + carry;
      w = static_cast<uint32_t>(p);
      carry = p >> 32;
    }
    if (carry) v.push_back(static_cast<uint32_t>(carry));
  };
  Big lhs{1}, rhs{1};
  for (int64_t i = 0; i < m; ++i) times(lhs, n);
  for (int64_t i = 0; i < m - k; ++i) times(rhs, uint64_t(me));
  for (int64_t i = 0; i < k; ++i) times(rhs, uint64_t(md));
  if (lhs.size() != rhs.size()) return lhs.size() > rhs.size();
  for (size_t i = lhs.size(); i-- > 0;)
    if (lhs[i] != rhs[i]) return lhs[i] > rhs[i];
  return true;
}

// The bucket of relative position r = key - query (tinyllm/pos.h).
inline int64_t t5_bucket(int64_t r, int64_t num_buckets, int64_t max_distance, bool bidirectional) {
  int64_t nb = num_buckets, offset = 0;
  uint64_t n;
  if (bidirectional) {
    nb = num_buckets / 2;
    offset = r > 0 ? nb : 0;
    n = static_cast<uint64_t>(r < 0 ? -r : r);
  } else {
    n = static_cast<uint64_t>(r < 0 ? -r : 0);
  }
  const int64_t me = nb / 2, m = nb - me;
  if (n < uint64_t(me)) return offset + int64_t(n);
  // The spec's real number, then corrected to the exact floor.
  const double v = double(m) * std::log(double(n) / double(me)) / std::log(double(max_distance) / double(me));
  int64_t k = v >= double(m - 1) ? m - 1 : int64_t(v);
  while (k + 1 <= m - 1 && t5_reaches(n, k + 1, m, me, max_distance)) ++k;
  while (k > 0 && !t5_reaches(n, k, m, me, max_distance)) --k;
  return offset + me + k;
}

// bias[h, i, j] = table[bucket(k_pos[j] - q_pos[i]), h]; Table = T =
// uint16_t copies f16 or bf16 bit patterns.
template <typename T, typename Table = float>
void relative_pos_embedding(const Table* table, const int32_t* q_pos, const int32_t* k_pos, T* bias, int64_t Lq,
                            int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance, bool bidirectional) {
  for (int64_t i = 0; i < Lq; ++i)
    for (int64_t j = 0; j < Lk; ++j) {
      const int64_t b = t5_bucket(int64_t(k_pos[j]) - q_pos[i], num_buckets, max_distance, bidirectional);
      for (int64_t h = 0; h < H; ++h) bias[(h * Lq + i) * Lk + j] = T(table[b * H + h]);
    }
}

}  // namespace konform::reference
