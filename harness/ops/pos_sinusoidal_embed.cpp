// SinusoidalEmbed (spec §3): the diffusion timestep embedding, sin and cos of
// t * exp(-j ln(max_period) / (half - freq_shift)), interleaved as the spec
// writes it or in halves as diffusers and DiT lay it out.
#include <algorithm>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "konform/reference/pos.hpp"
#include "half_support.hpp"
#include "pos_support.hpp"
#include "tinyllm/pos.h"

namespace konform::ops {

std::vector<OpSpec> pos_sinusoidal_embed();

namespace {

using namespace pos;

tl_status expected_status(const Case& c) {
  const int64_t n = c.iparam("n"), dim = c.iparam("dim"), layout = c.iparam("layout");
  const float period = static_cast<float>(c.param("max_period")), shift = static_cast<float>(c.param("freq_shift"));
  if (n < 0 || dim < 2 || dim % 2 != 0) return TL_ERR_INVALID_ARGUMENT;
  if (!(period > 0.0f) || std::isinf(period)) return TL_ERR_INVALID_ARGUMENT;
  if (!std::isfinite(shift) || !(double(shift) < double(dim / 2))) return TL_ERR_INVALID_ARGUMENT;
  if (layout < 0 || layout > TL_SINUSOIDAL_COS_SIN) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

// The largest frequency, max over j of exp(j step): 1 unless max_period < 1.
double period_largest_frequency(int64_t dim, float period, float shift) {
  const double step = -std::log(double(period)) / (double(dim / 2) - double(shift));
  return std::max(1.0, std::exp(double(dim / 2 - 1) * step));
}

// Timesteps as samplers make them: DDPM's integers 0..999, flow matching's
// [0, 1) (and scaled by 1000), negative and large ones, and now and then NaN
// or Inf (which give NaN); |t| f_max <= 2^24.
float timestep(Rng& rng, double limit) {
  const double u = rng.unit();
  double t;
  if (u < 0.3) t = double(rng.range(0, 999));
  else if (u < 0.5) t = rng.unit();
  else if (u < 0.65) t = 1000.0 * rng.unit();
  else if (u < 0.75) t = -double(rng.range(0, 999)) - rng.unit();
  else if (u < 0.9) t = std::ldexp(1.0 + rng.unit(), static_cast<int>(rng.range(-30, 23))) * (rng.chance(0.5) ? -1 : 1);
  else if (u < 0.95) t = rng.chance(0.5) ? 0.0 : -0.0;
  else {
    const float specials[] = {kNaN, kInf, -kInf};
    return rng.pick(specials);
  }
  return static_cast<float>(std::clamp(t, -limit, limit));
}

// In f16 and bf16: the timesteps rounded to the dtype (f16's folded to
// |t| <= 65504; its NaN and infinities stay), y of the dtype.
Case make(DType dt, Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  int64_t dim = 2 * (index < edges ? sizes[static_cast<size_t>(index)] : rng.range(1, 160));
  if (dim > 2048) dim = 2 * rng.range(64, 640);
  const float periods[] = {10000.0f, 10000.0f, 10000.0f, 1000.0f, 100.0f, 1.0f, 0.5f, 1e6f};
  const float period = rng.pick(periods);
  const float shifts[] = {0.0f, 0.0f, 1.0f, 0.5f};
  float shift = rng.pick(shifts);
  if (!(double(shift) < double(dim / 2))) shift = 0.0f;
  const int layout = static_cast<int>(rng.range(0, 2));
  const int64_t n = rng.chance(0.05) ? 0 : rng.range(1, 8);
  const double limit = kMaxAngle / period_largest_frequency(dim, period, shift);
  std::vector<float> t(static_cast<size_t>(n));
  for (auto& v : t) v = timestep(rng, limit);

  Case c;
  c.params = {{"n", double(n)},
              {"dim", double(dim)},
              {"max_period", double(period)},
              {"freq_shift", double(shift)},
              {"layout", double(layout)}};
  if (dt == DType::f16)
    for (auto& v : t)
      if (std::isfinite(v)) v = std::clamp(v, -65504.0f, 65504.0f);
  c.args.push_back({"t", Access::in, dt == DType::f32 ? Tensor::of_f32({n}, t) : Tensor::of_half(dt, {n}, t)});
  c.args.push_back({"y", Access::out, Tensor::zeros(dt, {n, dim})});
  c.args.push_back(status_arg());
  const char* layouts[] = {"interleaved", "sin|cos", "cos|sin"};
  c.label = "n=" + std::to_string(n) + " dim=" + std::to_string(dim) + " max_period=" + str(period) +
            " freq_shift=" + str(shift) + " " + layouts[layout];
  if (index >= edges && rng.chance(0.1)) {
    switch (rng.range(0, 4)) {
      case 0: c.params["dim"] = double(dim - 1); break;
      case 1: c.params["dim"] = 0; break;
      case 2: c.params["max_period"] = double(bad_positive(rng)); break;
      case 3: c.params["freq_shift"] = rng.chance(0.5) ? double(dim / 2) : double(kNaN); break;
      default: c.params["layout"] = 3; break;
    }
    c.label += " bad: dim=" + std::to_string(c.iparam("dim")) + " max_period=" + str(c.param("max_period")) +
               " freq_shift=" + str(c.param("freq_shift")) + " layout=" + std::to_string(c.iparam("layout"));
  }
  return c;
}

Oracle oracle(const Case& c) {
  if (tl_status s = expected_status(c)) return refused(s);
  const int64_t n = c.iparam("n"), dim = c.iparam("dim");
  Expected e;
  e.value.resize(static_cast<size_t>(n * dim));
  std::vector<float> t(static_cast<size_t>(n));  // exact for f32 and the half dtypes
  for (int64_t i = 0; i < n; ++i) t[static_cast<size_t>(i)] = static_cast<float>(c.in("t").at(i));
  reference::sinusoidal_embed<double>(t.data(), e.value.data(), n, dim, static_cast<float>(c.param("max_period")),
                                      static_cast<float>(c.param("freq_shift")), c.iparam32("layout"));
  // sin and cos of an angle that a double forms to 2^-29 radians: judged
  // absolutely, against 1 (they feed a linear layer); in half, pos_support.hpp.
  scale_of_angles(e, c.arg("y").value.dtype);
  return {{"status", status_expected(TL_OK)}, {"y", e}};
}

// In f16 and bf16: t and y of the dtype, the angles in double as the f32
// op forms them, sin and cos rounded once more (half_rule).
OpSpec sinusoidal_embed(DType dt) {
  const bool half = dt != DType::f32;
  const std::string dtype(dtype_name(dt));
  OpSpec op;
  op.name = half ? "SinusoidalEmbed_" + dtype : "SinusoidalEmbed";
  op.dtype = dt;
  op.args = {{"t", Access::in, "T", "n"}, {"y", Access::out, "T", "n, dim"}, status_output()};
  const ToleranceRule f32{DType::f32, "1", "-",
                          "sin and cos of the double angle t f_j rounded once to f32: <= u/2 absolute, plus the "
                          "double angle's own error (|t f_j| <= 2^24 in the domain: <= 2^-28 rad = 0.06 u, measured "
                          "<= 0.04 u against 50 digits); judged against 1"};
  op.tolerances = {half ? half_rule(dt, f32) : f32};
  op.group = "pos";
  op.symbol = "tl_sinusoidal_embed_" + dtype;
  op.summary =
      "timestep embedding y[i] = sin/cos(t[i] exp(-j ln(max_period) / (half - freq_shift))), interleaved "
      "(the spec) or in halves (diffusers, DiT)";
  if (half)
    op.summary += "; t and y " + dtype + ", angles in double, sin and cos rounded once to " + dtype +
                  " (judged against |y| + 2 u_f32 / u)";
  op.spec = "operations.txt 3. Position encoding: SinusoidalEmbed";
  op.params = {{"n", ParamType::i64, ">= 0"},
               {"dim", ParamType::i64, "even, >= 2"},
               {"max_period", ParamType::f32, "finite, > 0 (the spec: 10000)", "10000"},
               {"freq_shift", ParamType::f32, "finite, < dim/2 (the spec: 0; diffusers: 1)", "0"},
               {"layout", ParamType::i32,
                "0 interleaved (TL_SINUSOIDAL_INTERLEAVED) | 1 sin|cos (TL_SINUSOIDAL_SIN_COS) | 2 cos|sin "
                "(TL_SINUSOIDAL_COS_SIN)",
                "0 (TL_SINUSOIDAL_INTERLEAVED)"}};
  op.domain =
      "timesteps of DDPM, flow matching, negative and large ones with |t| f_max <= 2^24, +-0, NaN and Inf "
      "(NaN out); 1 case in 10 has a bad argument";
  if (half)
    op.domain = "SinusoidalEmbed's timesteps rounded to " + dtype +
                (dt == DType::f16 ? " (|t| <= 65504; DDPM's integers exact)" : " (integers exact up to 256)") + "; " +
                op.domain;
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [dt, edges = op.edge_cases](Rng& rng, int64_t i) { return make(dt, rng, i, edges); };
  if (half)  // bf16 alike
    declare_c_call<decltype(tl_sinusoidal_embed_f16)>(op, {"t", "y", "n", "dim", "max_period", "freq_shift", "layout"});
  else
    declare_c_call<decltype(tl_sinusoidal_embed_f32)>(op, {"t", "y", "n", "dim", "max_period", "freq_shift", "layout"});
  op.oracle = oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> pos_sinusoidal_embed() {
  return {sinusoidal_embed(DType::f32), sinusoidal_embed(DType::f16), sinusoidal_embed(DType::bf16)};
}

}  // namespace konform::ops
