// What the declarations of the norm ops share (norm_rows.cpp,
// norm_channels.cpp, norm_adaptive.cpp): shapes passed as parameters, the
// harness's own reading of the validation rules of tinyllm/norm.h, the
// generators of rows worth normalizing, and the error scale of a normalized
// element.
#pragma once

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "konform/dtype.hpp"
#include "konform/op.hpp"
#include "half_support.hpp"
#include "konform/reference/norm.hpp"
#include "konform/values.hpp"
#include "tinyllm/norm.h"

namespace konform::ops::norm {

// ---------------------------------------------------------------- shapes

// The shape handed to the kernel: "ndim" and "s0", "s1", ... in the params.
// It is the data's shape, except in the invalid cases that change it.
inline void set_shape(Case& c, const std::vector<int64_t>& shape) {
  for (auto it = c.params.begin(); it != c.params.end();)
    it = it->first.size() > 1 && it->first[0] == 's' && std::isdigit(static_cast<unsigned char>(it->first[1]))
             ? c.params.erase(it)
             : std::next(it);
  c.params["ndim"] = static_cast<double>(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) c.params["s" + std::to_string(k)] = static_cast<double>(shape[k]);
}

inline std::vector<int64_t> shape_of(const Case& c) {
  const int64_t ndim = c.iparam("ndim");
  std::vector<int64_t> shape;
  for (int64_t k = 0; k < ndim; ++k) shape.push_back(c.iparam("s" + std::to_string(k)));
  return shape;
}

inline int64_t product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end; ++k) p *= shape[k];
  return p;
}

// OpSpec::sum_length of the ops that normalize rows: the last dimension.
inline int64_t row_length(const Case& c) {
  const auto shape = shape_of(c);
  return shape.empty() ? 0 : std::max<int64_t>(shape.back(), 0);
}

// OpSpec::sum_length of GroupNorm (C / groups * spatial) and InstanceNorm
// (spatial): the range each statistic sums; 0 for shapes the op refuses.
inline int64_t group_length(const Case& c, int64_t groups) {
  const auto shape = shape_of(c);
  if (shape.size() < 2 || groups < 1 || shape[1] < 0 || shape[1] % groups != 0) return 0;
  for (int64_t s : shape)
    if (s < 0) return 0;
  return shape[1] / groups * product(shape, 2, shape.size());
}

// Which layout an op reads its shape as (tinyllm/norm.h).
enum class Layout {
  rows,      // [..., D], 1 <= ndim
  channels,  // [N, C, spatial...], 2 <= ndim, no reduction (BatchNorm)
  spatial,   // [N, C, spatial...], 2 <= ndim, reduced over spatial (InstanceNorm)
  groups,    // as spatial, and num_groups dividing C >= 1 (GroupNorm)
  samples,   // [B, ..., D], 2 <= ndim
};

// The status the header promises for these arguments, checked in the order it
// lists them: written here from the header, independently of impl/.
inline tl_status expected_status(Layout layout, const std::vector<int64_t>& shape, float eps, int64_t groups = 1) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  const int64_t min_ndim = layout == Layout::rows ? 1 : 2;
  if (ndim < min_ndim || ndim > TL_NORM_MAX_DIMS) return TL_ERR_INVALID_ARGUMENT;
  for (int64_t s : shape)
    if (s < 0) return TL_ERR_INVALID_ARGUMENT;
  double elements = 1;  // of the non-zero dimensions; exact enough to compare with 2^61
  for (int64_t s : shape)
    if (s > 0) elements *= static_cast<double>(s);
  if (elements > static_cast<double>(INT64_MAX / 4)) return TL_ERR_INVALID_ARGUMENT;
  if (!(eps >= 0.0f) || std::isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
  if ((layout == Layout::rows || layout == Layout::samples) && shape.back() == 0) return TL_ERR_SHAPE;
  if ((layout == Layout::spatial || layout == Layout::groups) && product(shape, 2, shape.size()) == 0)
    return TL_ERR_SHAPE;
  if (layout == Layout::groups) {
    if (groups < 1) return TL_ERR_INVALID_ARGUMENT;
    if (shape[1] == 0 || shape[1] % groups != 0) return TL_ERR_SHAPE;
  }
  return TL_OK;
}

// The status output every norm op declares.
inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }

inline Expected status_expected(tl_status s) { return {{static_cast<double>(s)}, {0.0}}; }

// Turns a valid case into one with a single bad argument, keeping the data
// (the kernel must refuse before touching it). Returns the label suffix.
inline std::string make_invalid(Rng& rng, Case& c, Layout layout) {
  std::vector<int64_t> shape = shape_of(c);
  const int64_t min_ndim = layout == Layout::rows ? 1 : 2;
  // BatchNorm reduces over nothing: an empty extent is valid there.
  const bool has_reduction = layout != Layout::channels;
  const int64_t kinds = layout == Layout::groups ? 8 : 6;
  int64_t kind = rng.range(0, kinds - 1);
  if (kind == 5 && !has_reduction) kind = 2;
  switch (kind) {
    case 0:
      shape.resize(static_cast<size_t>(min_ndim - 1));
      set_shape(c, shape);
      return "bad: ndim = " + std::to_string(min_ndim - 1);
    case 1:
      while (shape.size() <= TL_NORM_MAX_DIMS) shape.insert(shape.begin(), 1);
      set_shape(c, shape);
      return "bad: ndim = " + std::to_string(shape.size());
    case 2: {
      const size_t k = static_cast<size_t>(rng.range(0, static_cast<int64_t>(shape.size()) - 1));
      shape[k] = -rng.range(1, 3);
      set_shape(c, shape);
      return "bad: shape[" + std::to_string(k) + "] = " + std::to_string(shape[k]);
    }
    case 3: {
      const float bad[] = {-1e-5f, -1e-12f, std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity()};
      c.params["eps"] = static_cast<double>(rng.pick(bad));
      return "bad: eps = " + std::to_string(c.param("eps"));
    }
    case 4:  // dimensions whose product overflows the byte count
      shape.assign(static_cast<size_t>(std::max<int64_t>(min_ndim, 2)), int64_t{1} << 31);
      set_shape(c, shape);
      return "bad: 2^62 elements";
    case 5:  // the reduced extent empty
      if (layout == Layout::rows || layout == Layout::samples) shape.back() = 0;
      else if (shape.size() > 2) shape.back() = 0;
      else shape.push_back(0);
      set_shape(c, shape);
      return "bad: an empty reduction, shape " + shape_string(shape);
    case 6:
      c.params["groups"] = static_cast<double>(-rng.range(0, 2));
      return "bad: num_groups = " + std::to_string(c.iparam("groups"));
    default: {
      const int64_t channels = shape[1];
      int64_t g = channels + 1;
      for (int64_t k = 2; k <= channels; ++k)
        if (channels % k != 0) {
          g = k;
          break;
        }
      c.params["groups"] = static_cast<double>(g);
      return "bad: num_groups = " + std::to_string(g) + " does not divide C = " + std::to_string(channels);
    }
  }
}

// ---------------------------------------------------------------- values

// The row classes: every value class of values.hpp, plus rows far from zero
// (mean / std up to 2^14), where a variance that is not mean-centred loses
// everything to cancellation.
struct Row {
  std::vector<float> values;
  std::string label;
  bool eps_zero_ok = false;  // the range's variance is a normal float: eps may be 0
};

// |x| <= 1e15 keeps every float sum of squares finite for up to 2^17 terms.
constexpr double kMaxAbs = 1e15;

inline Row make_row(Rng& rng, int64_t n, bool allow_offset = true) {
  Row r;
  if (allow_offset && rng.chance(0.15)) {
    const float offset =
        static_cast<float>(std::ldexp(rng.chance(0.5) ? 1.0 : -1.0, static_cast<int>(rng.range(2, 12))));
    const float spread = static_cast<float>(std::ldexp(1.0, static_cast<int>(rng.range(-2, 2))));
    r.values = make_values(rng, ValueClass::normal, n);
    for (float& v : r.values) v = offset + spread * v;
    r.label = "offset " + std::to_string(offset) + " spread " + std::to_string(spread);
    r.eps_zero_ok = true;
    return r;
  }
  const ValueClass vc = rng.pick(kAllValueClasses);
  r.values = make_values(rng, vc, n, kMaxAbs);
  r.label = std::string(value_class_name(vc));
  r.eps_zero_ok = vc == ValueClass::normal || vc == ValueClass::wide;
  return r;
}

// eps from the values models use; 0 only where the caller says it is safe.
inline float pick_eps(Rng& rng, bool zero_ok) {
  const float options[] = {1e-5f, 1e-6f, 1e-12f, 0.0f};
  const float eps = rng.pick(options);
  return eps == 0.0f && !zero_ok ? 1e-6f : eps;
}

// Gains near 1 and biases near 0 as trained models have them, now and then
// small integers (zeros and repeats included).
inline std::vector<float> make_gain(Rng& rng, int64_t n) {
  std::vector<float> g = make_values(rng, rng.chance(0.85) ? ValueClass::normal : ValueClass::ties, n);
  if (rng.chance(0.5))
    for (float& v : g) v = 1.0f + 0.25f * v;
  return g;
}

// A few leading dimensions whose product is at most `most` (0 now and then).
inline std::vector<int64_t> leading_dims(Rng& rng, int64_t most) {
  std::vector<int64_t> dims;
  const int64_t count = rng.range(0, 2);
  int64_t left = most;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t d = rng.range(1, std::max<int64_t>(1, left));
    dims.push_back(d);
    left = std::max<int64_t>(1, left / d);
  }
  return dims;
}

// The sizes of the edge cases of a normalized dimension: every vector-width
// edge of values.hpp, and the widths of real models' hidden states.
inline const std::vector<int64_t>& edge_widths() {
  static const std::vector<int64_t> widths = [] {
    std::vector<int64_t> w = edge_sizes();
    w.push_back(11008);
    return w;
  }();
  return widths;
}

// ---------------------------------------------------------------- f16 and bf16

// Values for the dtype t: in f16 each finite |v| >= 2^15 folded below 2^15
// by a power of two (the largest finite f16 is 65504); bf16 holds the f32
// range.
inline void fold_for(DType t, std::vector<float>& values) {
  if (t == DType::f16)
    for (float& v : values)
      if (std::isfinite(v) && std::fabs(v) >= 0x1p15f) v = std::ldexp(v, -(std::ilogb(v) - 14) - 1);
}

// The rows of an f16 or bf16 case: the f32 op's rows, in f16 folded below
// 2^15 (the largest finite f16 is 65504), and a fifth of the time rows of
// 256 <= |x| <= 65504 (2^8 .. 2^40 in bf16), whose squares overflow f16;
// rounded to the dtype. eps may be 0 where the mean square (about the mean,
// for `centred`) of every range of `range` consecutive elements (the row,
// the group, the instance) is a normal float.
struct HalfRows {
  Tensor x;
  std::string label;
  bool eps_zero_ok = true;
};
inline HalfRows half_rows(DType t, Rng& rng, const std::vector<int64_t>& shape, int64_t range, bool centred) {
  const int64_t d = range, n = product(shape, 0, shape.size());
  Row row;
  if (rng.chance(0.2)) {
    const double top = t == DType::f16 ? std::log2(65504.0) : 40.0;
    row.values.resize(static_cast<size_t>(n));
    for (float& v : row.values) v = static_cast<float>((rng.chance(0.5) ? 1 : -1) * std::exp2(rng.uniform(8.0, top)));
    row.label = "large";
  } else {
    row = make_row(rng, n);
    fold_for(t, row.values);
  }
  HalfRows h{Tensor::of_half(t, shape, row.values), row.label, d > (centred ? 1 : 0)};
  for (int64_t r = 0; h.eps_zero_ok && d > 0 && r < n / d; ++r) {
    double mean = 0, sum = 0;
    if (centred)
      for (int64_t i = 0; i < d; ++i) mean += h.x.at(r * d + i) / static_cast<double>(d);
    for (int64_t i = 0; i < d; ++i) sum += (h.x.at(r * d + i) - mean) * (h.x.at(r * d + i) - mean);
    h.eps_zero_ok = std::isfinite(sum) && sum / static_cast<double>(d) >= 0x1p-126;
  }
  return h;
}

// One value rounded to the dtype t as a kernel stores it (f32: as it is).
inline double stored(DType t, float v) { return t == DType::f32 ? v : Tensor::of_half(t, {1}, {v}).at(0); }

// x as floats: exact for f32 and the half dtypes.
inline std::vector<float> floats_of(const Tensor& x) {
  std::vector<float> v(static_cast<size_t>(x.elements()));
  for (int64_t k = 0; k < x.elements(); ++k) v[static_cast<size_t>(k)] = static_cast<float>(x.at(k));
  return v;
}

// The f16 and bf16 twin of an f32 op's declaration (no-op for f32): name
// and symbol with the dtype, the arguments `f32_args` kept f32 (a mixed
// signature), the f32 rule carried by half_rule, `what` added to the
// summary, the domain told of the half rows.
inline void half_twin(OpSpec& op, DType t, const std::vector<std::string>& f32_args, const std::string& what) {
  if (t == DType::f32) return;
  const std::string dtype(dtype_name(t));
  op.dtype = t;
  op.name += "_" + dtype;
  op.symbol = op.symbol.substr(0, op.symbol.size() - 3) + dtype;
  for (auto& a : op.args)
    for (const auto& name : f32_args)
      if (a.name == name) a.dtype = "f32";
  op.tolerances = {half_rule(t, op.tolerances.front())};
  op.summary += "; " + what;
  op.domain = "the f32 op's values rounded to " + dtype + (t == DType::f16 ? " (folded below 2^15)" : std::string()) +
              ", and a fifth of the cases x from 256 up (" + (t == DType::f16 ? "65504" : "2^40") +
              "), whose squares overflow f16; " + op.domain;
}

// ---------------------------------------------------------------- scale

// The statistics of one normalized range, in double, for the error scale.
struct RangeStats {
  double mean = 0, inv = 0, mean_abs = 0;
};

inline RangeStats range_stats(const float* x, int64_t n, float eps) {
  const auto m = reference::moments<double>(x, n);
  RangeStats s;
  s.mean = m.mean;
  s.inv = reference::inverse_std<double>(m.var, eps);
  s.mean_abs = reference::pairwise_sum<double>(0, n, [&](int64_t i) { return std::fabs(double(x[i])); }) / double(n);
  return s;
}

// The scale of y = (x - mean) * inv * gain + bias computed in float (see
// docs/ops-norm.md, "Error model"): the mean carries an absolute error of a
// few u of mean|x| (and of the smallest normal, where its sum underflows),
// which x - mean passes on whole when |mean| >> std; the centred value, the
// root and the gain add a few u of |x - mean| * inv * |gain|; the bias adds
// one rounding of the result, at most |gain| (...) + |bias|.
inline double centred_scale(double x, const RangeStats& s, double gain_abs, double bias_abs) {
  return gain_abs * (std::fabs(x - s.mean) + s.mean_abs + FLT_MIN) * s.inv + bias_abs;
}

}  // namespace konform::ops::norm
