#include "konform/compare.hpp"

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
}

namespace {

// Floats mapped to integers that order like the values: the ULP distance is
// the difference (+0 and -0 map to the same integer, zero apart).
int64_t ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? int64_t(INT32_MIN) - i : i;
}

double ulp_distance(float a, float b) { return std::fabs(double(ordered(a) - ordered(b))); }

ElementVerdict judge(double y, double e, double s, double limit) {
  ElementVerdict v;
  v.expected = e;
  v.got = y;
  v.limit = limit;
  if (std::isnan(e) || std::isnan(y)) {
    v.ok = std::isnan(e) && std::isnan(y);
    v.error = v.ok ? 0 : INFINITY;
    if (!v.ok) v.why = std::isnan(y) ? "NaN where the oracle has a number" : "a number where the oracle has NaN";
    return v;
  }
  const double rounded = static_cast<float>(e);  // the oracle in the dtype
  if (std::isinf(e) || std::isinf(y)) {
    v.ok = std::isinf(rounded) && y == rounded;
    v.error = v.ok ? 0 : INFINITY;
    if (!v.ok) v.why = std::isinf(y) ? "infinite where the oracle is finite in range" : "finite where the oracle is infinite";
    if (v.ok || !std::isinf(rounded) || std::isinf(y) || std::isinf(e)) return v;
    // y* beyond FLT_MAX, y finite: judged by r like any other element.
  }
  const double scale = std::fmax(s, double(FLT_MIN));
  v.error = std::fabs(y - e) / (unit_roundoff(DType::f32) * scale);
  v.ok = v.error <= limit;
  if (!v.ok) v.why = "error above the limit";
  return v;
}

// Element k of `got` has the bits of `want` rounded to got's dtype (an
// integer output: the same value).
bool same_bits(const Tensor& got, int64_t k, double want) {
  if (got.dtype != DType::f32) return got.at(k) == want;
  const float f = static_cast<float>(want);
  uint32_t want_bits;
  std::memcpy(&want_bits, &f, 4);
  return got.bits(k) == want_bits;
}

}  // namespace

Comparison compare_tolerance(const Tensor& got, const Expected& expected, double limit) {
  Comparison c;
  const int64_t n = got.elements();
  for (int64_t k = 0; k < n; ++k) {
    const float yf = got.f32()[k];
    const double y = yf, e = expected.value[k];
    ElementVerdict v;
    if (!expected.copied.empty() && expected.copied[k]) {
      v.expected = e;
      v.got = y;
      v.limit = limit;
      v.ok = same_bits(got, k, e);
      v.error = v.ok ? 0 : INFINITY;
      if (!v.ok) v.why = "a copied element's bits differ from the input's";
    } else {
      v = judge(y, e, expected.scale[k], limit);
    }
    v.index = k;
    if (std::isfinite(y) && std::isfinite(e)) {
      Metrics& m = c.metrics;
      const double abs_err = std::fabs(y - e);
      m.max_abs = std::fmax(m.max_abs, abs_err);
      if (e != 0) m.max_rel = std::fmax(m.max_rel, abs_err / std::fabs(e));
      m.max_ulp = std::fmax(m.max_ulp, ulp_distance(yf, static_cast<float>(e)));
      m.sq_err += abs_err * abs_err;
      m.sq_ref += e * e;
    }
    if (std::isfinite(v.error)) c.metrics.max_r = std::fmax(c.metrics.max_r, v.error);
    if (!v.ok) ++c.mismatches;
    // The worst element: a failure beats a pass, then the larger error.
    const bool worse = c.worst.index < 0 || (!v.ok && c.worst.ok) || (v.ok == c.worst.ok && v.error > c.worst.error);
    if (worse) c.worst = v;
  }
  c.metrics.elements = n;
  return c;
}

Comparison compare_values(const std::vector<double>& got, const Expected& expected, double limit) {
  Comparison c;
  const int64_t n = static_cast<int64_t>(got.size());
  for (int64_t k = 0; k < n; ++k) {
    const double y = got[k], e = expected.value[k];
    ElementVerdict v = judge(y, e, expected.scale[k], limit);
    v.index = k;
    if (std::isfinite(y) && std::isfinite(e)) {
      Metrics& m = c.metrics;
      const double abs_err = std::fabs(y - e);
      m.max_abs = std::fmax(m.max_abs, abs_err);
      if (e != 0) m.max_rel = std::fmax(m.max_rel, abs_err / std::fabs(e));
      m.sq_err += abs_err * abs_err;
      m.sq_ref += e * e;
    }
    if (std::isfinite(v.error)) c.metrics.max_r = std::fmax(c.metrics.max_r, v.error);
    if (!v.ok) ++c.mismatches;
    const bool worse = c.worst.index < 0 || (!v.ok && c.worst.ok) || (v.ok == c.worst.ok && v.error > c.worst.error);
    if (worse) c.worst = v;
  }
  c.metrics.elements = n;
  return c;
}

Comparison compare_exact(const Tensor& got, const Expected& expected) {
  Comparison c;
  const int64_t n = got.elements();
  for (int64_t k = 0; k < n; ++k) {
    ElementVerdict v;
    v.index = k;
    v.expected = expected.value[k];
    v.got = got.at(k);
    const bool two = !expected.alternative.empty();
    const bool same = same_bits(got, k, expected.value[k]) || (two && same_bits(got, k, expected.alternative[k]));
    v.ok = same;
    v.error = same ? 0 : 1;
    if (!same) {
      v.why = two ? "bits differ from both roundings the oracle allows" : "bits differ from the oracle";
      ++c.mismatches;
      if (c.worst.index < 0 || c.worst.ok) c.worst = v;
    } else if (c.worst.index < 0) {
      c.worst = v;
    }
  }
  c.metrics.elements = n;
  return c;
}

}  // namespace konform
