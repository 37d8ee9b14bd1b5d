// RoPE: rotate pairs of each head in place by pos * inv_freq (spec §2.2).
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "tinyllm/elementwise.h"

namespace konform::ops {

std::vector<OpSpec> rope();

namespace {

// Keeps mu * (|a cos| + |b sin|) finite, so no correct order of the two
// products and the scaling overflows where the result does not.
constexpr double kMaxAbs = 1e37;

std::vector<float> inverse_frequencies(Rng& rng, int64_t half) {
  std::vector<float> f(static_cast<size_t>(half));
  if (rng.chance(0.8)) {  // base^(-2i/d_rot), the models' schedule
    const double bases[] = {10000.0, 500000.0, 1e6, 100.0};
    const double base = rng.pick(bases);
    for (int64_t i = 0; i < half; ++i) f[i] = static_cast<float>(std::pow(base, -2.0 * double(i) / double(2 * half)));
  } else {
    fill_values(rng, ValueClass::normal, f.data(), half);
  }
  return f;
}

int32_t position(Rng& rng) {
  switch (rng.range(0, 3)) {
    case 0: return 0;
    case 1: return static_cast<int32_t>(rng.range(1, 64));
    case 2: return static_cast<int32_t>(rng.range(0, 1 << 20));
    default: return static_cast<int32_t>(rng.range(0, (1 << 24) - 1));
  }
}

Case make(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  // Edge cases walk the rotated width over the vector widths; D adds a tail.
  int64_t d_rot = 2 * (index < edges ? sizes[static_cast<size_t>(index)] : rng.range(1, 80));
  if (d_rot > 512) d_rot = 2 * rng.range(1, 256);
  const int64_t D = rng.chance(0.6) ? d_rot : d_rot + rng.range(1, 9);
  const int64_t T = rng.range(1, 5), H = rng.range(1, 4);
  const int layout = static_cast<int>(rng.range(0, 1));
  const float scalings[] = {1.0f, 1.0f, 2.0f, 0.5f, 1.0973f};
  const float mu = rng.pick(scalings);
  const ValueClass classes[] = {ValueClass::normal, ValueClass::wide,      ValueClass::huge,     ValueClass::ties,
                                ValueClass::zeros,  ValueClass::subnormal, ValueClass::specials, ValueClass::tiny};
  const ValueClass vc = rng.pick(classes);

  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = position(rng);

  Case c;
  c.params = {{"T", double(T)},
              {"H", double(H)},
              {"D", double(D)},
              {"d_rot", double(d_rot)},
              {"attn_scaling", double(mu)},
              {"layout", double(layout)}};
  c.args.push_back({"x", Access::inout, Tensor::of_f32({T, H, D}, make_values(rng, vc, T * H * D, kMaxAbs))});
  c.args.push_back({"pos", Access::in, Tensor::of_i32({T}, pos)});
  c.args.push_back({"inv_freq", Access::in, Tensor::of_f32({d_rot / 2}, inverse_frequencies(rng, d_rot / 2))});
  c.label = "T=" + std::to_string(T) + " H=" + std::to_string(H) + " D=" + std::to_string(D) +
            " d_rot=" + std::to_string(d_rot) + " layout=" + std::to_string(layout) + " mu=" + std::to_string(mu) +
            " x=" + std::string(value_class_name(vc));
  return c;
}

Oracle oracle(const Case& c) {
  const int64_t T = c.iparam("T"), H = c.iparam("H"), D = c.iparam("D"), d_rot = c.iparam("d_rot");
  const int layout = c.iparam32("layout");
  const float mu = static_cast<float>(c.param("attn_scaling"));
  const float* x = c.in("x").f32();
  const int32_t* pos = c.in("pos").i32();
  const float* inv_freq = c.in("inv_freq").f32();
  Expected e;
  e.value.resize(static_cast<size_t>(T * H * D));
  reference::rope<double>(x, e.value.data(), pos, T, H, D, d_rot, inv_freq, mu, layout);
  // A rotated member's error is bounded against the pair's length: cos and sin
  // rounded to f32 err by u in absolute terms, whatever the angle, so the
  // scale is mu * (|a| + |b|). The pass-through tail past d_rot is a copy of
  // x, compared bit for bit.
  e.scale.resize(e.value.size());
  e.copied.resize(e.value.size());
  for (size_t k = 0; k < e.value.size(); ++k) {
    e.scale[k] = std::fabs(double(x[k]));
    e.copied[k] = static_cast<int64_t>(k) % D >= d_rot;
  }
  for (int64_t k = 0; k < T * H; ++k)
    for (int64_t i = 0; i < d_rot / 2; ++i) {
      int64_t ia, ib;
      reference::rope_pair(layout, d_rot, i, &ia, &ib);
      const double len = std::fabs(double(mu)) * (std::fabs(double(x[k * D + ia])) + std::fabs(double(x[k * D + ib])));
      e.scale[k * D + ia] = e.scale[k * D + ib] = len;
    }
  return {{"x", e}};
}

}  // namespace

std::vector<OpSpec> rope() {
  OpSpec op;
  op.name = "elementwise_rope";  // the contract tinyllm/elementwise.h
  op.args = {{"x", Access::inout, "T", "T, H, D"},
             {"pos", Access::in, "i32", "T"},
             {"inv_freq", Access::in, "T", "d_rot / 2"}};
  op.tolerances = {{DType::f32, "8", "-",
                    "cos and sin of the f32 angle <= 2 u absolute each, two products and a difference <= 3 u, "
                    "times mu 1 u: <= 8 u of mu * (|a| + |b|); the tail past d_rot is a copy, compared bit for "
                    "bit"}};
  op.former_name = "rope";
  op.group = "elementwise";
  op.symbol = "tl_rope_f32";
  op.summary =
      "rotate pairs of x[T, H, D] in place by pos * inv_freq; layouts half and interleaved, partial rotary, "
      "attn_scaling";
  op.spec = "elementwise-kernels.txt 2. Principles: 2.2 RoPE";
  op.params = {{"T", ParamType::i64, ">= 1"},
               {"H", ParamType::i64, ">= 1"},
               {"D", ParamType::i64, ">= d_rot"},
               {"d_rot", ParamType::i64, "even, 2 .. D"},
               {"attn_scaling", ParamType::f32, "finite"},
               {"layout", ParamType::i32, "0 half | 1 interleaved"}};
  op.domain = "pos[t] 0 .. 2^24 - 1; |x| <= 1e37 so no product of the rotation overflows where the result does not";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  declare_c_call<decltype(tl_rope_f32)>(op, {"x", "pos", "T", "H", "D", "d_rot", "inv_freq", "attn_scaling", "layout"});
  op.oracle = oracle;
  return {op};
}

}  // namespace konform::ops
