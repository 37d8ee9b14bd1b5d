// SiLU-mul (the middle of SwiGLU): y = g / (1 + e^-g) * u (spec §2.3).
#include <cfloat>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "activation_support.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "tinyllm/elementwise.h"

namespace konform::ops {

std::vector<OpSpec> silu_mul();

namespace {

// Gate and up stay below 1e18, so g * u is finite in f32 whichever order a
// correct kernel multiplies and divides in.
constexpr double kMaxAbs = 1e18;

// The points where SiLU's form matters: e^-g saturating near +-88.7, the
// spec's +-100 and -1e4, and the smallest magnitudes.
float saturation_point(Rng& rng) {
  const float points[] = {88.72f, -88.72f, 87.0f, -87.0f, 89.0f,   -89.0f,   -103.9f, 100.0f, -100.0f,
                          -1e4f,  1e4f,    0.0f,  -0.0f,  FLT_MIN, -FLT_MIN, 1e-30f,  -1e18f, 1e18f};
  float v = rng.pick(points);
  return rng.chance(0.5) ? v : std::nextafter(v, rng.chance(0.5) ? 1e30f : -1e30f);
}

Case make(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  const int64_t n =
      index < edges ? sizes[static_cast<size_t>(index)] : (rng.chance(0.3) ? rng.pick(sizes) : rng.range(0, 400));
  const int gate_kind = static_cast<int>(rng.range(0, 3));
  std::vector<float> gate(static_cast<size_t>(n));
  for (auto& g : gate) {
    switch (gate_kind) {
      case 0: g = 20.0f * make_values(rng, ValueClass::normal, 1)[0]; break;
      case 1: g = make_values(rng, ValueClass::wide, 1)[0]; break;
      case 2: g = saturation_point(rng); break;
      default: g = rng.chance(0.5) ? saturation_point(rng) : make_values(rng, ValueClass::subnormal, 1)[0];
    }
  }
  const ValueClass up_classes[] = {ValueClass::normal, ValueClass::wide, ValueClass::specials, ValueClass::ties,
                                   ValueClass::huge};
  const ValueClass up_class = rng.pick(up_classes);
  const char* gate_names[] = {"normal*20", "wide", "saturation", "saturation+subnormal"};

  // up stays finite: Inf * silu(g) is NaN or Inf depending on whether silu(g)
  // underflows in f32, which the spec does not fix.
  std::vector<float> up = make_values(rng, up_class, n, kMaxAbs);
  for (float& u : up)
    if (std::isinf(u)) u = std::copysign(static_cast<float>(kMaxAbs), u);

  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"gate", Access::in, Tensor::of_f32({n}, gate)});
  c.args.push_back({"up", Access::in, Tensor::of_f32({n}, up)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n})});
  c.label =
      "n=" + std::to_string(n) + " gate=" + gate_names[gate_kind] + " up=" + std::string(value_class_name(up_class));
  return c;
}

Oracle oracle(const Case& c) {
  const int64_t n = c.iparam("n");
  const float* up = c.in("up").f32();
  Expected e;
  e.value.resize(static_cast<size_t>(n));
  reference::silu_mul<double>(c.in("gate").f32(), up, e.value.data(), n);
  // SwiGlu's scale (the same function): for g <= -88.7228 the f32 form's e^-g
  // is +Inf and gives -0 where |silu(g)| < |g| 2^-128 (< 2^-121.5), the
  // contract's own behaviour, which |g u| 2^-104 admits there and only there;
  // elsewhere |g u| FLT_MIN and |u| FLT_MIN admit sigmoid(g) and silu(g)
  // rounded into the subnormals (activation_support.hpp).
  const float* gate = c.in("gate").f32();
  e.scale.resize(e.value.size());
  e.flush_factor.resize(e.value.size());
  for (int64_t i = 0; i < n; ++i) {
    e.scale[i] = act::silu_times_scale(gate[i], up[i], e.value[i]);
    e.flush_factor[i] = act::silu_flush_factor(gate[i], up[i]);
  }
  return {{"y", e}};
}

}  // namespace

std::vector<OpSpec> silu_mul() {
  OpSpec op;
  op.name = "elementwise_silu_mul";  // the contract tinyllm/elementwise.h
  op.args = {{"gate", Access::in, "T", "n"}, {"up", Access::in, "T", "n"}, {"y", Access::out, "T", "n"}};
  op.tolerances = {{DType::f32, "17", "-",
                    "SwiGlu's (the same function): silu(g) <= 16 u (see Silu), times up 1 u: <= 17 u of |u "
                    "silu(g)|; the scale is SwiGlu's: where the f32 e^-g overflows (g <= -88.72283935546875) "
                    "the f32 form gives -0 for |silu(g)| < |g| 2^-128, which |g u| 2^-104 admits there and only"
                    " there (u 2^-104 = 2^-128); above, |g u| FLT_MIN and |u| FLT_MIN admit sigmoid(g) and "
                    "silu(g) rounded into the subnormals (2^-150 each, carried by the products)"}};
  op.former_name = "silu_mul";
  op.group = "elementwise";
  op.symbol = "tl_silu_mul_f32";
  op.summary = "y = g / (1 + exp(-g)) * u elementwise (SwiGLU's gate)";
  op.spec = "elementwise-kernels.txt 2. Principles: 2.3 SiLU-mul (SwiGLU)";
  op.params = {{"n", ParamType::i64, ">= 0"}};
  op.domain =
      "finite gate and up (silu(-Inf) and Inf * an underflowed silu(g) are NaN by the formula, which the spec leaves "
      "open); |g|, |u| <= 1e18";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  declare_c_call<decltype(tl_silu_mul_f32)>(op, {"gate", "up", "y", "n"});
  op.oracle = oracle;
  return {op};
}

}  // namespace konform::ops
