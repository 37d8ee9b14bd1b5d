// Add, Sub, Mul, Div with NumPy broadcasting, over a BroadcastPlan
// (impl/common/tensor_checks.hpp): an odometer over the outer loops, and one of four row
// kernels for the innermost one, chosen by its strides:
//
//   a and b contiguous   the same-shape path, and each row of a bias add
//   b or a a scalar      a row times a per-row (or global) scalar
//   both scalars         a fill
//
// Every element is one IEEE operation on the two floats it sees, so every
// path rounds exactly as the oracle's float expression. y may be an operand
// of y's own shape: each vector is loaded before its lanes are stored.

#if defined(KONFORM_SIMD_TENSOR_ARITH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TENSOR_ARITH_INL_H_
#undef KONFORM_SIMD_TENSOR_ARITH_INL_H_
#else
#define KONFORM_SIMD_TENSOR_ARITH_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/divide-inl.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/tail-inl.h"
#include "impl/common/tensor_checks.hpp"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each op also as Other: the hot loops compute every other vector with it,
// so an op with a second way to the same bits runs both at once. Div's is
// Quotient (divide-inl.h), which leaves the divider to the other vectors.
struct AddOp {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Add(a, b);
  }
  template <class V>
  HWY_INLINE V Other(V a, V b) const {
    return hn::Add(a, b);
  }
};
struct SubOp {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Sub(a, b);
  }
  template <class V>
  HWY_INLINE V Other(V a, V b) const {
    return hn::Sub(a, b);
  }
};
struct MulOp {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Mul(a, b);
  }
  template <class V>
  HWY_INLINE V Other(V a, V b) const {
    return hn::Mul(a, b);
  }
};
struct DivOp {
  template <class V>
  HWY_INLINE V operator()(V a, V b) const {
    return hn::Div(a, b);
  }
  template <class V>
  HWY_INLINE V Other(V a, V b) const {
    return Quotient(a, b);
  }
};

// y[i] = a[i * sa] OP b[i * sb] for i < n, with sa, sb in {0, 1}: a stride of
// 0 reads one value for the whole row. Four vectors per step (two through
// op.Other), then one, then a partial vector that touches nothing past n.
template <class Op>
HWY_INLINE void ArithRow(Op op, const float* a, int64_t sa, const float* b, int64_t sb, float* y, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  // A broadcast operand is a vector of its one value; otherwise it is loaded.
  const auto va0 = hn::Set(d, sa == 0 ? a[0] : 0.0f), vb0 = hn::Set(d, sb == 0 ? b[0] : 0.0f);
  auto load_a = [&](size_t i) { return sa == 0 ? va0 : hn::LoadU(d, a + i); };
  auto load_b = [&](size_t i) { return sb == 0 ? vb0 : hn::LoadU(d, b + i); };
  size_t i = 0;
  if (sa != 0 && sb != 0) {  // the hot path: no per-vector stride tests
    for (; i + 4 * N <= n; i += 4 * N) {
      const auto y0 = op(hn::LoadU(d, a + i), hn::LoadU(d, b + i));
      const auto y1 = op.Other(hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N));
      const auto y2 = op(hn::LoadU(d, a + i + 2 * N), hn::LoadU(d, b + i + 2 * N));
      const auto y3 = op.Other(hn::LoadU(d, a + i + 3 * N), hn::LoadU(d, b + i + 3 * N));
      hn::StoreU(y0, d, y + i);
      hn::StoreU(y1, d, y + i + N);
      hn::StoreU(y2, d, y + i + 2 * N);
      hn::StoreU(y3, d, y + i + 3 * N);
    }
  } else if (sb == 0 && sa != 0) {
    for (; i + 4 * N <= n; i += 4 * N) {
      const auto y0 = op(hn::LoadU(d, a + i), vb0), y1 = op.Other(hn::LoadU(d, a + i + N), vb0);
      const auto y2 = op(hn::LoadU(d, a + i + 2 * N), vb0), y3 = op.Other(hn::LoadU(d, a + i + 3 * N), vb0);
      hn::StoreU(y0, d, y + i);
      hn::StoreU(y1, d, y + i + N);
      hn::StoreU(y2, d, y + i + 2 * N);
      hn::StoreU(y3, d, y + i + 3 * N);
    }
  } else if (sa == 0 && sb != 0) {
    for (; i + 4 * N <= n; i += 4 * N) {
      const auto y0 = op(va0, hn::LoadU(d, b + i)), y1 = op.Other(va0, hn::LoadU(d, b + i + N));
      const auto y2 = op(va0, hn::LoadU(d, b + i + 2 * N)), y3 = op.Other(va0, hn::LoadU(d, b + i + 3 * N));
      hn::StoreU(y0, d, y + i);
      hn::StoreU(y1, d, y + i + N);
      hn::StoreU(y2, d, y + i + 2 * N);
      hn::StoreU(y3, d, y + i + 3 * N);
    }
  } else {
    const auto v = op(va0, vb0);
    for (; i + N <= n; i += N) hn::StoreU(v, d, y + i);
  }
  for (; i + N <= n; i += N) hn::StoreU(op(load_a(i), load_b(i)), d, y + i);
  if (i < n) {
    const size_t m = n - i;
    const auto ta = sa == 0 ? va0 : LoadHead(d, a + i, m);
    const auto tb = sb == 0 ? vb0 : LoadHead(d, b + i, m);
    StoreHead(op(ta, tb), d, y + i, m);
  }
}

// The odometer over the plan's outer loops; y is contiguous.
template <class Op>
HWY_INLINE void ArithPlan(Op op, const impl::tensor::BroadcastPlan& p, const float* a, const float* b, float* y) {
  if (p.count == 0) return;
  const int last = p.rank - 1;
  const size_t row = static_cast<size_t>(p.n[last]);
  int64_t idx[impl::tensor::kMaxRank] = {};
  int64_t oa = 0, ob = 0;
  for (int64_t oy = 0; oy < p.count; oy += p.n[last]) {
    ArithRow(op, a + oa, p.sa[last], b + ob, p.sb[last], y + oy, row);
    for (int k = last - 1; k >= 0; --k) {  // next outer index
      oa += p.sa[k];
      ob += p.sb[k];
      if (++idx[k] < p.n[k]) break;
      oa -= p.sa[k] * p.n[k];
      ob -= p.sb[k] * p.n[k];
      idx[k] = 0;
    }
  }
}

// The flat plan (impl::tensor::PlanFlatBroadcast): `rows` rows of a, each against
// b's row (sb 1) or its one value (sb 0). Scalars, not the plan: nothing on
// the stack.
template <class Op>
HWY_INLINE void ArithFlat(Op op, const float* a, const float* b, float* y, int64_t rows, int64_t cols, int64_t sb) {
  for (int64_t r = 0; r < rows; ++r) ArithRow(op, a + r * cols, 1, b, sb, y + r * cols, static_cast<size_t>(cols));
}

inline void AddFlat(const float* a, const float* b, float* y, int64_t rows, int64_t cols, int64_t sb) {
  ArithFlat(AddOp(), a, b, y, rows, cols, sb);
}
inline void SubFlat(const float* a, const float* b, float* y, int64_t rows, int64_t cols, int64_t sb) {
  ArithFlat(SubOp(), a, b, y, rows, cols, sb);
}
inline void MulFlat(const float* a, const float* b, float* y, int64_t rows, int64_t cols, int64_t sb) {
  ArithFlat(MulOp(), a, b, y, rows, cols, sb);
}
inline void DivFlat(const float* a, const float* b, float* y, int64_t rows, int64_t cols, int64_t sb) {
  ArithFlat(DivOp(), a, b, y, rows, cols, sb);
}

// The half twins' flat plan (f16 or bf16 bit patterns): each vector of a and
// b widened, the f32 op, y rounded to nearest even, all in registers; the
// f32 op's bits on the widened values, rounded once. The tail (and every
// value where the format has no vector conversion here) through a padded
// vector of the same conversions.
template <class Format, class Op>
HWY_INLINE void ArithFlatHalf(Op op, const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t rows, int64_t cols,
                              int64_t sb) {
  if constexpr (half::kToBf16Cvt<Format>)
    if (HasBf16Cvt()) return ArithFlatHalf<half::BF16Cvt>(op, a, b, y, rows, cols, sb);
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto b0 = hn::Set(d, Format::Widen(b[0]));
  auto padded = [&](const uint16_t* p, int64_t m) {
    HWY_ALIGN float v[HWY_MAX_BYTES / sizeof(float)] = {};
    for (int64_t j = 0; j < m; ++j) v[j] = Format::Widen(p[j]);
    return hn::Load(d, v);
  };
  // A bias row under several rows of a: its whole steps widened once,
  // instead of once per row (pairs: each step's even and odd values side by
  // side).
  constexpr int64_t kRowFloats = 4096;
  constexpr bool kRowSteps = Format::kPairs || Format::kVector;
  HWY_ALIGN float b_row[kRowSteps ? kRowFloats : 1];
  const bool b_widened = kRowSteps && sb != 0 && rows > 1 && cols <= kRowFloats;
  if (b_widened) {
    if constexpr (Format::kPairs) {
      for (int64_t i = 0; i + 32 <= cols; i += 32) {
        hn::Vec<decltype(d)> be, bo;
        Format::WidenPair(b + i, be, bo);
        hn::Store(be, d, b_row + i);
        hn::Store(bo, d, b_row + i + 16);
      }
    } else if constexpr (Format::kVector) {
      for (int64_t i = 0; i + N <= cols; i += N) hn::Store(Format::WidenVec(d, b + i), d, b_row + i);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* ar = a + r * cols;
    uint16_t* yr = y + r * cols;
    int64_t i = 0;
    if constexpr (Format::kPairs) {  // 32 values a step, as even and odd positions
      // One loop per kind of b, two steps an iteration: the row's loop ran
      // one step and two branches an iteration.
      const int64_t whole = cols / 32 * 32;
      hn::Vec<decltype(d)> ae, ao, be, bo;
      if (b_widened) {
#pragma GCC unroll 2
        for (; i < whole; i += 32) {
          Format::WidenPair(ar + i, ae, ao);
          Format::NarrowPair(op(ae, hn::Load(d, b_row + i)), op(ao, hn::Load(d, b_row + i + 16)), yr + i);
        }
      } else if (sb != 0) {
#pragma GCC unroll 2
        for (; i < whole; i += 32) {
          Format::WidenPair(ar + i, ae, ao);
          Format::WidenPair(b + i, be, bo);
          Format::NarrowPair(op(ae, be), op(ao, bo), yr + i);
        }
      } else {
#pragma GCC unroll 2
        for (; i < whole; i += 32) {
          Format::WidenPair(ar + i, ae, ao);
          Format::NarrowPair(op(ae, b0), op(ao, b0), yr + i);
        }
      }
    }
    if constexpr (Format::kVector) {
      for (; i + N <= cols; i += N) {
        // Pairs leave here only what follows their last whole step: not in b_row.
        const auto vb = (!Format::kPairs && b_widened) ? hn::Load(d, b_row + i)
                        : sb != 0                      ? Format::WidenVec(d, b + i)
                                                       : b0;
        Format::NarrowVec(d, op(Format::WidenVec(d, ar + i), vb), yr + i);
      }
    }
    for (; i < cols; i += N) {
      const int64_t m = std::min(N, cols - i);
      HWY_ALIGN float out[HWY_MAX_BYTES / sizeof(float)];
      hn::Store(op(padded(ar + i, m), sb != 0 ? padded(b + i, m) : b0), d, out);
      for (int64_t j = 0; j < m; ++j) yr[i + j] = Format::Narrow(out[j]);
    }
  }
}

// Op 0..3: Add, Sub, Mul, Div; bf16 or f16.
inline void HalfFlat(int op, bool bf16, const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t rows, int64_t cols,
                     int64_t sb) {
  auto run = [&](auto o) {
    if (bf16) ArithFlatHalf<half::BF16>(o, a, b, y, rows, cols, sb);
    else ArithFlatHalf<half::F16>(o, a, b, y, rows, cols, sb);
  };
  switch (op) {
    case 0: return run(AddOp());
    case 1: return run(SubOp());
    case 2: return run(MulOp());
    default: return run(DivOp());
  }
}

inline void AddBroadcast(const impl::tensor::BroadcastPlan& p, const float* a, const float* b, float* y) {
  ArithPlan(AddOp(), p, a, b, y);
}
inline void SubBroadcast(const impl::tensor::BroadcastPlan& p, const float* a, const float* b, float* y) {
  ArithPlan(SubOp(), p, a, b, y);
}
inline void MulBroadcast(const impl::tensor::BroadcastPlan& p, const float* a, const float* b, float* y) {
  ArithPlan(MulOp(), p, a, b, y);
}
inline void DivBroadcast(const impl::tensor::BroadcastPlan& p, const float* a, const float* b, float* y) {
  ArithPlan(DivOp(), p, a, b, y);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TENSOR_ARITH_INL_H_
