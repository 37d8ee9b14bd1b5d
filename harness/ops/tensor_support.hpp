// What the declarations of the tensor ops share (tensor_arith.cpp,
// tensor_select.cpp, tensor_argmax.cpp, tensor_move.cpp, tensor_cut.cpp):
// shapes handed to the kernel as parameters, random shapes of bounded size,
// values, the status output, and the bad shapes every op must refuse.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "konform/dtype.hpp"
#include "konform/op.hpp"
#include "konform/reference/tensor_shape.hpp"
#include "konform/values.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops::tensor {

using reference::Shape;

// ---------------------------------------------------------------- shapes

// The shape the kernel is told for argument `name`: "<name>.rank" and
// "<name>.0", "<name>.1", ... in the params. It is the data's shape, except
// in the invalid cases that change it.
inline void set_shape(Case& c, const std::string& name, const Shape& s) {
  c.params[name + ".rank"] = static_cast<double>(s.size());
  for (size_t k = 0; k < s.size(); ++k) c.params[name + "." + std::to_string(k)] = static_cast<double>(s[k]);
}

inline Shape get_shape(const Case& c, const std::string& name) {
  Shape s(static_cast<size_t>(c.iparam(name + ".rank")));
  for (size_t k = 0; k < s.size(); ++k) s[k] = c.iparam(name + "." + std::to_string(k));
  return s;
}

// A shape that may hold negative dimensions (a bad case) made safe for a
// buffer: negative dimensions count as 0, so no element is allocated.
inline Shape buffer_shape(Shape s) {
  for (int64_t& d : s) d = std::max<int64_t>(d, 0);
  if (reference::element_count(s) > (int64_t{1} << 24)) s.assign(1, 0);  // an overflow case: never allocated
  return s;
}

// One dimension: 1 and small ones often, SIMD edges and odd primes now and
// then, 0 rarely.
inline int64_t random_dim(Rng& rng) {
  const int64_t pick = rng.range(0, 99);
  if (pick < 4) return 0;
  if (pick < 24) return 1;
  if (pick < 70) return rng.range(2, 9);
  if (pick < 90) return rng.pick(edge_sizes()) % 130 + 1;  // edge sizes up to 129
  return rng.range(10, 300);
}

// A random shape of `rank` dimensions whose nonzero dimensions multiply to at
// most `most`: the dimensions are drawn, then the largest halved until they
// fit. The zeros are left out of the product because an op's output may drop
// them: Argmax along the empty axis of [168, 167, 67, 34, 0, 105] has
// 6.7e9 indices to write.
inline Shape random_shape(Rng& rng, int64_t rank, int64_t most) {
  Shape s(static_cast<size_t>(rank));
  for (int64_t& d : s) d = random_dim(rng);
  auto nonzero_count = [&] {
    int64_t n = 1;
    for (int64_t d : s) n *= std::max<int64_t>(d, 1);
    return n;
  };
  while (nonzero_count() > most) {
    auto it = std::max_element(s.begin(), s.end());
    *it = *it / 2;
  }
  return s;
}

// Rank 0..4 mostly, 5 and 6 now and then (never above `max_rank`).
inline int64_t random_rank(Rng& rng, int64_t min_rank, int64_t max_rank = TL_TENSOR_MAX_RANK) {
  const int64_t r = rng.chance(0.1) ? rng.range(5, 6) : rng.range(min_rank, 4);
  return std::clamp<int64_t>(r, min_rank, max_rank);
}

inline const int64_t* dims_or_null(const Shape& s) { return s.empty() ? nullptr : s.data(); }

// ---------------------------------------------------------------- values

// n values of one random class, the class's name in *label.
inline std::vector<float> random_values(Rng& rng, int64_t n, std::string* label) {
  const ValueClass vc = rng.pick(kAllValueClasses);
  *label = std::string(value_class_name(vc));
  return make_values(rng, vc, n);
}

// Values that are all different (and finite), so a misplaced copy cannot
// land on an equal value by chance: k * 2^-10 plus a sign.
inline std::vector<float> distinct_values(Rng& rng, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  const float sign = rng.chance(0.5) ? 1.0f : -1.0f;
  for (int64_t k = 0; k < n; ++k) v[k] = sign * static_cast<float>(k + 1) * 0x1p-10f;
  return v;
}

// Values for a layout op: distinct numbers mostly, every value class (NaN
// payloads and signed zeros, which a copy must keep) otherwise.
inline std::vector<float> layout_values(Rng& rng, int64_t n, std::string* label) {
  if (rng.chance(0.6)) {
    *label = "distinct";
    return distinct_values(rng, n);
  }
  return random_values(rng, n, label);
}

// ---------------------------------------------------------------- status

inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }

inline Expected status_expected(tl_status s) { return {{static_cast<double>(s)}, {0.0}}; }

// Values compared bit for bit: the scale is never read.
inline Expected exact_expected(std::vector<double> values) {
  Expected e;
  e.scale.assign(values.size(), 0.0);
  e.value = std::move(values);
  return e;
}

// ---------------------------------------------------------------- half twins

// The bit patterns of the f16 and bf16 layout twins' inputs: what a copy
// must keep and a trip through float loses. Per element: a random pattern
// (every class at its frequency among the patterns), or, as often, a NaN
// (signalling or quiet, a random payload, either sign), +-0, a subnormal or
// +-Inf.
inline Tensor half_layout_values(Rng& rng, DType t, const Shape& shape) {
  const int64_t n = reference::element_count(shape);
  Tensor x = random_half_bits(rng, t, n);
  x.shape = shape;
  const int man = t == DType::f16 ? 10 : 7;  // mantissa bits
  const uint16_t exp_all = t == DType::f16 ? 0x7c00 : 0x7f80, quiet = static_cast<uint16_t>(1u << (man - 1));
  const uint16_t payload = static_cast<uint16_t>(quiet - 1);
  for (int64_t k = 0; k < n; ++k) {
    uint16_t h;
    std::memcpy(&h, x.bytes.data() + 2 * k, 2);
    const uint16_t sign = rng.chance(0.5) ? 0x8000 : 0;
    switch (rng.range(0, 9)) {
      case 0:  // a signalling NaN: quiet bit clear, payload not 0
        h = sign | exp_all | static_cast<uint16_t>(rng.range(1, payload));
        break;
      case 1:  // a quiet NaN of a random payload (0: the canonical one)
        h = sign | exp_all | quiet | static_cast<uint16_t>(rng.range(0, payload));
        break;
      case 2: h = sign; break;                                                       // +-0
      case 3: h = sign | static_cast<uint16_t>(rng.range(1, 2 * quiet - 1)); break;  // a subnormal
      case 4: h = sign | exp_all; break;                                             // +-Inf
      default: break;                                                                // the random pattern
    }
    std::memcpy(x.bytes.data() + 2 * k, &h, 2);
  }
  return x;
}

// A half twin's copied output: the patterns a reference template moved
// (held in uint32_t), compared as every exact output is: bit for bit, but a
// NaN matches any NaN (a copy through float that quiets a signalling NaN, or
// one that canonicalizes NaN, is correct, as in the f32 ops).
inline Expected half_exact_expected(DType t, const std::vector<uint32_t>& bits) {
  std::vector<double> y(bits.size());
  for (size_t k = 0; k < bits.size(); ++k) y[k] = half_value(t, static_cast<uint16_t>(bits[k]));
  return exact_expected(std::move(y));
}

// y's patterns are x's moved by `move` (a reference template on the patterns).
template <class Move>
Oracle half_copy_oracle(const reference::Verdict& v, DType t, int64_t n, Move move) {
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  std::vector<uint32_t> bits(static_cast<size_t>(n));
  move(bits.data());
  return {{"y", half_exact_expected(t, bits)}, {"status", status_expected(TL_OK)}};
}

inline const uint16_t* half_data(const Case& c, const std::string& name) {
  return reinterpret_cast<const uint16_t*>(c.in(name).u8());
}

// What the f16 and bf16 twins add to an f32 layout op's declaration.
inline void declare_half(OpSpec& op, DType t) {
  const std::string name(dtype_name(t));
  op.dtype = t;
  op.name += "_" + name;
  op.symbol = op.symbol.substr(0, op.symbol.size() - 3) + name;
  op.summary += "; " + name + " bit patterns moved as they are (-0 and subnormals kept; a NaN may be quieted)";
  op.domain = "small shapes of random " + name +
              " patterns, signalling and quiet NaNs of random payloads, +-0, subnormals and +-Inf, compared bit "
              "for bit with a NaN matching any NaN; the f32 op's refusals";
}

// A bad shape for an argument whose valid ranks are [min_rank, max]: a rank
// outside them, a negative dimension, or dimensions whose product overflows
// the byte count. Returns the label.
inline std::string break_shape(Rng& rng, Shape* s, int64_t min_rank) {
  switch (rng.range(min_rank > 0 ? 0 : 1, 3)) {
    case 0: s->resize(static_cast<size_t>(min_rank - 1), 2); return "rank " + std::to_string(s->size());
    case 1:
      while (s->size() <= TL_TENSOR_MAX_RANK) s->insert(s->begin(), 1);
      return "rank " + std::to_string(s->size());
    case 2: {
      if (s->empty()) s->push_back(1);
      const size_t k = static_cast<size_t>(rng.range(0, static_cast<int64_t>(s->size()) - 1));
      (*s)[k] = -rng.range(1, 3);
      return "shape[" + std::to_string(k) + "] = " + std::to_string((*s)[k]);
    }
    default: s->assign(static_cast<size_t>(std::max<int64_t>(min_rank, 2)), int64_t{1} << 31); return "2^62 elements";
  }
}

}  // namespace konform::ops::tensor
