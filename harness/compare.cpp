#include "konform/compare.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace konform {

void Metrics::merge(const Metrics& m) {
  elements += m.elements;
  max_abs = std::fmax(max_abs, m.max_abs);
  max_rel = std::fmax(max_rel, m.max_rel);
  max_ulp = std::fmax(max_ulp, m.max_ulp);
  max_r = std::fmax(max_r, m.max_r);
  sq_err += m.sq_err;
  sq_ref += m.sq_ref;
  nan_mismatches += m.nan_mismatches;
  inf_mismatches += m.inf_mismatches;
  flushed += m.flushed;
}

const char* cause_name(Cause c) {
  switch (c) {
    case Cause::nan: return "nan";
    case Cause::inf: return "inf";
    case Cause::flushed: return "flushed";
    case Cause::subnormal: return "subnormal";
    case Cause::tail: return "tail";
    case Cause::magnitude: return "magnitude";
  }
  return "magnitude";
}

namespace {

// The worst element: a failure beats a pass, then the larger error.
bool worse(const ElementVerdict& v, const ElementVerdict& current) {
  return current.index < 0 || (!v.ok && current.ok) || (v.ok == current.ok && v.error > current.error);
}

}  // namespace

void Comparison::add(const ElementVerdict& v) {
  if (!v.ok) {
    ++mismatches;
    CauseTally& t = causes[v.cause];
    ++t.mismatches;
    if (worse(v, t.worst)) t.worst = v;
  }
  if (worse(v, worst)) worst = v;
}

namespace {

// The bits of v rounded to the float dtype t.
uint32_t bits_in(DType t, double v) {
  if (t != DType::f32) return half_bits(t, v);
  const float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Values of the dtype t mapped to integers that order like the values: the
// ULP distance is the difference (+0 and -0 map to the same integer, zero
// apart).
int64_t ordered(DType t, double v) {
  const int width = 8 * static_cast<int>(dtype_size(t));
  const int64_t sign_bit = int64_t{1} << (width - 1);
  const int64_t b = bits_in(t, v);
  return (b & sign_bit) ? -(b - sign_bit) : b;
}

double ulp_distance(DType t, double a, double b) { return std::fabs(double(ordered(t, a) - ordered(t, b))); }

bool subnormal(DType t, double v) { return v != 0 && std::fabs(v) < smallest_normal(t); }

// The tolerance rule for one element of dtype t.
ElementVerdict judge(DType t, double y, double e, double s, double limit) {
  ElementVerdict v;
  v.expected = e;
  v.got = y;
  v.limit = limit;
  if (std::isnan(e) || std::isnan(y)) {
    v.ok = std::isnan(e) && std::isnan(y);  // any NaN matches any NaN: sign and payload are no finding
    v.error = v.ok ? 0 : INFINITY;
    v.cause = Cause::nan;
    if (!v.ok) v.why = std::isnan(y) ? "NaN where the oracle has a number" : "a number where the oracle has NaN";
    return v;
  }
  const double rounded = round_to(t, e);  // the oracle in the dtype
  if (std::isinf(e) || std::isinf(y)) {
    v.ok = std::isinf(rounded) && y == rounded;
    v.error = v.ok ? 0 : INFINITY;
    v.cause = Cause::inf;
    if (!v.ok)
      v.why = std::isinf(y) ? "infinite where the oracle is finite in range" : "finite where the oracle is infinite";
    if (v.ok || !std::isinf(rounded) || std::isinf(y) || std::isinf(e)) return v;
    // y* beyond the largest finite value, y finite: judged by r like any other element.
    v.cause = Cause::magnitude;
  }
  const double scale = std::fmax(s, smallest_normal(t));
  v.error = std::fabs(y - e) / (unit_roundoff(t) * scale);
  v.ok = v.error <= limit;
  if (!v.ok) v.why = "error above the limit";
  return v;
}

// The same value in the dtype: a NaN for a NaN (any sign and payload), else
// the bits of `want` rounded to the dtype (an integer output: the same value).
bool same_value(const Tensor& got, int64_t k, double want) {
  if (!is_float(got.dtype)) return got.at(k) == want;
  if (std::isnan(want)) return std::isnan(got.at(k));
  return got.bits(k) == bits_in(got.dtype, want);
}

// The class of a failing element, from its values (the precedence of Cause).
Cause classify(DType t, double y, double e, double s, double tail_below) {
  if (std::isnan(y) || std::isnan(e)) return Cause::nan;
  if (std::isinf(y) || std::isinf(e)) return Cause::inf;
  if (subnormal(t, y) || subnormal(t, round_to(t, e)) || subnormal(t, e)) return Cause::subnormal;
  if (std::fabs(s) < tail_below) return Cause::tail;
  return Cause::magnitude;
}

// u of the largest finite scale of an output (2^-24 in f32): below it, the tail.
double tail_threshold(DType t, const std::vector<double>& scale) {
  double top = 0;
  for (double s : scale)
    if (std::isfinite(s)) top = std::fmax(top, std::fabs(s));
  return top * unit_roundoff(t);
}

// Whether y passes once subnormals may be flushed: each of the limit's
// roundings (at least one) may also lose the smallest normal N (FLT_MIN in
// f32), a flushed operation's loss, where a gradual underflow loses half the
// subnormal spacing, at the output or at an intermediate the oracle names,
// which carries it times the factor it multiplies (Expected::flush_factor,
// f): |y - y*| <= limit u max(s, N) + max(limit, 1) N (1 + f), against the
// oracle or its DAZ twin. NaN and infinities as in the strict rule.
bool passes_flushed(DType t, double y, int64_t k, const Expected& expected, double limit, const Subnormals& sub) {
  const double normal = smallest_normal(t);
  auto within = [&](double want, double s, double factor) {
    if (!std::isfinite(want) || !std::isfinite(y)) return judge(t, y, want, s, limit).ok;
    const double strict = limit * unit_roundoff(t) * std::fmax(s, normal);
    return std::fabs(y - want) <= strict + std::fmax(limit, 1.0) * normal * (1 + factor);
  };
  auto against = [&](const Expected& e) {
    const double factor = e.flush_factor.empty() ? 0.0 : e.flush_factor[k];
    return within(e.value[k], e.scale[k], factor) ||
           (!e.alternative.empty() && within(e.alternative[k], e.scale[k], factor));
  };
  return against(expected) || (sub.daz != nullptr && k < static_cast<int64_t>(sub.daz->value.size()) &&
                               !sub.daz->scale.empty() && against(*sub.daz));
}

// A subnormal of the dtype as the zero of its sign.
double flushed(DType t, double v) { return subnormal(t, v) ? std::copysign(0.0, v) : v; }

// Whether an exact element passes once subnormals may be flushed: it equals
// the oracle's value (or alternative), or the DAZ oracle's, once the
// subnormals of both sides are read as zeros (a result flushed on the way
// out; a subnormal input copied by a kernel that compared it as zero).
bool exact_passes_flushed(const Tensor& got, int64_t k, const Expected& expected, const Subnormals& sub) {
  if (!is_float(got.dtype)) return sub.daz != nullptr && same_value(got, k, sub.daz->value[k]);
  std::vector<double> admitted = {expected.value[k]};
  if (!expected.alternative.empty()) admitted.push_back(expected.alternative[k]);
  if (sub.daz != nullptr && k < static_cast<int64_t>(sub.daz->value.size())) {
    admitted.push_back(sub.daz->value[k]);
    if (!sub.daz->alternative.empty()) admitted.push_back(sub.daz->alternative[k]);
  }
  const DType t = got.dtype;
  const double y = flushed(t, got.at(k));
  for (double a : admitted) {
    const double want = flushed(t, round_to(t, a));
    if ((std::isnan(want) && std::isnan(y)) || (!std::isnan(want) && bits_in(t, want) == bits_in(t, y))) return true;
  }
  return false;
}

// A failing element that passes with flushing: passes in flush mode
// (counted), else fails with cause `flushed`.
void apply_flush(ElementVerdict& v, bool flushable, const Subnormals& sub, Metrics& m) {
  if (v.ok || !sub.judge || !flushable) return;
  if (sub.flush) {
    v.ok = true;
    ++m.flushed;
    return;
  }
  v.cause = Cause::flushed;
  v.why += "; only because a subnormal was flushed to zero (passes with --flush-subnormals)";
}

void count_special(const ElementVerdict& v, Metrics& m) {
  if (v.ok) return;
  if (v.cause == Cause::nan) ++m.nan_mismatches;
  if (v.cause == Cause::inf) ++m.inf_mismatches;
}

void add_finite_metrics(Metrics& m, double y, double e) {
  const double abs_err = std::fabs(y - e);
  m.max_abs = std::fmax(m.max_abs, abs_err);
  if (e != 0) m.max_rel = std::fmax(m.max_rel, abs_err / std::fabs(e));
  m.sq_err += abs_err * abs_err;
  m.sq_ref += e * e;
}

}  // namespace

Comparison compare_tolerance(const Tensor& got, const Expected& expected, double limit, const Subnormals& sub) {
  Comparison c;
  const int64_t n = got.elements();
  const DType t = got.dtype;
  const double tail_below = tail_threshold(t, expected.scale);
  for (int64_t k = 0; k < n; ++k) {
    const double y = got.at(k), e = expected.value[k];
    ElementVerdict v;
    bool flushable = false;
    if (!expected.copied.empty() && expected.copied[k]) {
      v.expected = e;
      v.got = y;
      v.limit = limit;
      v.ok = same_value(got, k, e);
      v.error = v.ok ? 0 : INFINITY;
      if (!v.ok) {
        v.why = "a copied element's bits differ from the input's";
        v.cause = classify(t, y, e, std::fabs(e), 0);
      }
    } else {
      v = judge(t, y, e, expected.scale[k], limit);
      if (!v.ok && !expected.alternative.empty()) {
        const ElementVerdict other = judge(t, y, expected.alternative[k], expected.scale[k], limit);
        if (other.ok) v = other;
      }
      if (!v.ok) {
        v.cause = classify(t, y, e, expected.scale[k], tail_below);
        if (sub.judge) flushable = passes_flushed(t, y, k, expected, limit, sub);
      }
    }
    v.index = k;
    apply_flush(v, flushable, sub, c.metrics);
    count_special(v, c.metrics);
    if (std::isfinite(y) && std::isfinite(e)) {
      add_finite_metrics(c.metrics, y, e);
      c.metrics.max_ulp = std::fmax(c.metrics.max_ulp, ulp_distance(t, y, e));
    }
    if (std::isfinite(v.error)) c.metrics.max_r = std::fmax(c.metrics.max_r, v.error);
    c.add(v);
  }
  c.metrics.elements = n;
  return c;
}

Comparison compare_values(const std::vector<double>& got, const Expected& expected, double limit, DType t) {
  Comparison c;
  const int64_t n = static_cast<int64_t>(got.size());
  const double tail_below = tail_threshold(t, expected.scale);
  for (int64_t k = 0; k < n; ++k) {
    const double y = got[k], e = expected.value[k];
    ElementVerdict v = judge(t, y, e, expected.scale[k], limit);
    v.index = k;
    if (!v.ok) v.cause = classify(t, y, e, expected.scale[k], tail_below);
    count_special(v, c.metrics);
    if (std::isfinite(y) && std::isfinite(e)) add_finite_metrics(c.metrics, y, e);
    if (std::isfinite(v.error)) c.metrics.max_r = std::fmax(c.metrics.max_r, v.error);
    c.add(v);
  }
  c.metrics.elements = n;
  return c;
}

Comparison compare_exact(const Tensor& got, const Expected& expected, const Subnormals& sub) {
  Comparison c;
  const int64_t n = got.elements();
  const bool two = !expected.alternative.empty();
  std::vector<double> magnitudes;
  const bool floats = is_float(got.dtype);
  if (floats)
    for (double e : expected.value) magnitudes.push_back(std::fabs(e));
  const double tail_below = floats ? tail_threshold(got.dtype, magnitudes) : 0.0;
  for (int64_t k = 0; k < n; ++k) {
    ElementVerdict v;
    v.index = k;
    v.expected = expected.value[k];
    v.got = got.at(k);
    const bool by_bits = !expected.bits.empty();
    v.ok = by_bits ? got.bits(k) == expected.bits[k]
                   : same_value(got, k, expected.value[k]) || (two && same_value(got, k, expected.alternative[k]));
    v.error = v.ok ? 0 : 1;
    if (!v.ok && by_bits) {
      v.why = "a copied element's bits differ from the input's";
      v.cause = floats ? classify(got.dtype, v.got, v.expected, std::fabs(v.expected), tail_below) : Cause::magnitude;
      if (v.cause == Cause::nan && std::isnan(v.got) && std::isnan(v.expected))
        v.why = "a NaN whose bits differ from the input's (payload, sign or signalling bit)";
      apply_flush(v, sub.judge && exact_passes_flushed(got, k, expected, sub), sub, c.metrics);
    } else if (!v.ok) {
      v.why = two ? "bits differ from both roundings the oracle allows" : "bits differ from the oracle";
      v.cause = floats ? classify(got.dtype, v.got, v.expected, std::fabs(v.expected), tail_below) : Cause::magnitude;
      if (v.cause == Cause::nan)
        v.why = std::isnan(v.got) ? "NaN where the oracle has a number" : "a number where the oracle has NaN";
      apply_flush(v, sub.judge && exact_passes_flushed(got, k, expected, sub), sub, c.metrics);
    }
    count_special(v, c.metrics);
    c.add(v);
  }
  c.metrics.elements = n;
  return c;
}

int64_t first_value_difference(const Tensor& a, const Tensor& b) {
  const int64_t n = std::min(a.elements(), b.elements());
  const bool floats = is_float(a.dtype) && a.dtype == b.dtype;
  for (int64_t k = 0; k < n; ++k) {
    if (a.bits(k) == b.bits(k)) continue;
    if (floats && std::isnan(a.at(k)) && std::isnan(b.at(k))) continue;
    return k;
  }
  return -1;
}

}  // namespace konform
