// Rope (spec §3) as two ops: Rope_cache builds the cos/sin cache from base and
// the rotary width, Rope rotates x[T, H, D] from such a cache, refusing
// positions past it (ContextOverflowError) and odd head_dims.
#include <algorithm>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "konform/reference/pos.hpp"
#include "konform/values.hpp"
#include "half_support.hpp"
#include "pos_support.hpp"
#include "tinyllm/pos.h"

namespace konform::ops {

std::vector<OpSpec> pos_rope();

namespace {

using namespace pos;

// An even rotary width: the edge sizes doubled first (tails of every vector
// width), then at random.
int64_t pick_width(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  int64_t w = 2 * (index < edges ? sizes[static_cast<size_t>(index)] : rng.range(1, 80));
  if (w > 512) w = 2 * rng.range(1, 256);
  return w;
}

// ---------------------------------------------------------------- Rope_cache

// The header's rules, written here independently of impl/.
tl_status cache_status(int64_t max_seq, int64_t rot_dim, float base) {
  if (rot_dim < 2 || rot_dim % 2 != 0) return TL_ERR_INVALID_ARGUMENT;
  if (max_seq < 1 || max_seq > TL_ROPE_MAX_POSITIONS) return TL_ERR_INVALID_ARGUMENT;
  if (!(base > 0.0f) || std::isinf(base)) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

Case make_cache(DType t, Rng& rng, int64_t index, int64_t edges) {
  int64_t rot = pick_width(rng, index, edges);
  const float base = pick_base(rng);
  int64_t max_seq;
  const double kind = rng.unit();
  if (kind < 0.6) max_seq = rng.range(1, 64);
  else if (kind < 0.92) max_seq = std::min<int64_t>(rng.range(65, 3000), std::max<int64_t>(64, (1 << 15) / rot));
  else {  // deep positions, one pair: where an f32 angle is far off
    max_seq = rng.range(1 << 14, 1 << 16);
    rot = 2;
  }
  // The half caches' cases smaller (their sweep within the default check's
  // time): up to 2048 entries, deep positions 2^11 .. 2^13 (past f16's
  // exact integers, 2048).
  if (t != DType::f32)
    max_seq = kind < 0.92 ? std::min<int64_t>(max_seq, std::max<int64_t>(1, 2048 / rot)) : max_seq / 8;
  // Small bases: keep every angle <= 2^24 (pos_support.hpp).
  const double fmax = largest_frequency(base, rot);
  max_seq = std::min<int64_t>(max_seq, static_cast<int64_t>(kMaxAngle / fmax) + 1);

  Case c;
  c.params = {{"max_seq", double(max_seq)}, {"rot_dim", double(rot)}, {"base", double(base)}};
  c.args.push_back({"cache", Access::out, Tensor::zeros(t, {max_seq, rot})});
  c.args.push_back(status_arg());
  c.label = "max_seq=" + std::to_string(max_seq) + " rot_dim=" + std::to_string(rot) + " base=" + str(base);
  if (index >= edges && rng.chance(0.1)) {
    switch (rng.range(0, 4)) {
      case 0: c.params["rot_dim"] = double(rot - 1); break;
      case 1: c.params["rot_dim"] = 0; break;
      case 2: c.params["max_seq"] = 0; break;
      case 3: c.params["max_seq"] = double(TL_ROPE_MAX_POSITIONS + 1); break;
      default: c.params["base"] = double(bad_positive(rng)); break;
    }
    c.label += " bad: rot_dim=" + std::to_string(c.iparam("rot_dim")) +
               " max_seq=" + std::to_string(c.iparam("max_seq")) + " base=" + str(c.param("base"));
  }
  return c;
}

Oracle cache_oracle(const Case& c) {
  const int64_t max_seq = c.iparam("max_seq"), rot = c.iparam("rot_dim");
  const float base = static_cast<float>(c.param("base"));
  if (tl_status s = cache_status(max_seq, rot, base)) return refused(s);
  Expected e;
  e.value.resize(static_cast<size_t>(max_seq * rot));
  reference::rope_cache<double>(e.value.data(), max_seq, rot, base);
  // cos and sin feed a rotation whose error is |c - c*| (|a| + |b|): they are
  // judged absolutely, against 1; in half, against |y| + 2 u_f32 / u
  // (pos_support.hpp).
  scale_of_angles(e, c.arg("cache").value.dtype);
  return {{"status", status_expected(TL_OK)}, {"cache", e}};
}

// In f16 and bf16: the cache of the dtype, each entry the f32 op's rounded
// once more (half_rule), judged against |y| + 2 u_f32 / u.
OpSpec rope_cache_op(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "Rope_cache_" + dtype : "Rope_cache";
  op.dtype = t;
  op.args = {{"cache", Access::out, "T", "max_seq, rot_dim"}, status_output()};
  const ToleranceRule f32{DType::f32, "1", "-",
                          "cos and sin of the double angle rounded once to f32: <= u/2 absolute, plus the double "
                          "angle's own error (the frequency's half-ulp times p plus the product's half-ulp, p f <= "
                          "2^24 in the domain: <= 2^-28 rad = 0.06 u, measured <= 0.04 u against 50 digits); judged "
                          "against 1, the rotation's scale"};
  op.tolerances = {half ? half_rule(t, f32) : f32};
  op.group = "pos";
  op.symbol = "tl_rope_cache_" + dtype;
  op.summary = "Rope's cos/sin cache [max_seq, rot_dim]: row p = cos(p f_j) then sin(p f_j), f_j = base^(-2j/rot_dim)";
  if (half)
    op.summary += "; the cache " + dtype + ": the f32 entries rounded once more (judged against |y| + 2 u_f32 / u)";
  op.spec = "operations.txt 3. Position encoding: Rope (Rotary Position Embedding)";
  op.params = {{"max_seq", ParamType::i64, "1 .. 2^24 (TL_ROPE_MAX_POSITIONS)"},
               {"rot_dim", ParamType::i64, "even, >= 2"},
               {"base", ParamType::f32, "finite, > 0 (< 1 or > 1e9 permitted; tl_rope_base_is_extreme warns)"}};
  op.domain =
      "every angle p f_j <= 2^24 (small bases get fewer positions): past it a double angle's own rounding "
      "exceeds f32 resolution; 1 case in 10 has a bad argument";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_cache(t, rng, i, edges); };
  if (half) declare_c_call<decltype(tl_rope_cache_f16)>(op, {"cache", "max_seq", "rot_dim", "base"});  // bf16 alike
  else declare_c_call<decltype(tl_rope_cache_f32)>(op, {"cache", "max_seq", "rot_dim", "base"});
  op.oracle = cache_oracle;
  return op;
}

// ---------------------------------------------------------------- Rope

tl_status apply_status(const Case& c) {
  const int64_t T = c.iparam("T"), H = c.iparam("H"), D = c.iparam("D"), rot = c.iparam("rot_dim");
  const int64_t max_seq = c.iparam("max_seq"), layout = c.iparam("layout");
  if (T < 0 || H < 0 || D < 0) return TL_ERR_INVALID_ARGUMENT;
  if (D % 2 != 0 || rot < 2 || rot % 2 != 0 || rot > D) return TL_ERR_INVALID_ARGUMENT;
  if (layout != TL_ROPE_NEOX && layout != TL_ROPE_INTERLEAVED) return TL_ERR_INVALID_ARGUMENT;
  if (max_seq < 1) return TL_ERR_INVALID_ARGUMENT;
  const int32_t* pos = c.in("pos").i32();
  for (int64_t t = 0; t < T; ++t) {
    if (pos[t] < 0) return TL_ERR_INVALID_ARGUMENT;
    if (pos[t] >= max_seq) return TL_ERR_CONTEXT_OVERFLOW;
  }
  return TL_OK;
}

// Turns a valid case into one the header refuses; the data stays.
std::string make_invalid_apply(Rng& rng, Case& c) {
  const int64_t T = c.iparam("T"), max_seq = c.iparam("max_seq");
  auto& pos = c.arg("pos").value;
  const int64_t kind = rng.range(0, 9);
  if (kind <= 3 && T > 0) {  // a position past the cache, often at the last token
    const int64_t t = rng.chance(0.5) ? T - 1 : rng.range(0, T - 1);
    const int64_t over[] = {max_seq, max_seq + 1, int64_t{INT32_MAX}, 2 * max_seq + 7};
    pos.i32()[t] = static_cast<int32_t>(std::min<int64_t>(rng.pick(over), INT32_MAX));
    return "bad: pos[" + std::to_string(t) + "]=" + std::to_string(pos.i32()[t]) + " past max_seq";
  }
  if (kind == 4 && T > 0) {
    const int64_t t = rng.range(0, T - 1);
    pos.i32()[t] = rng.chance(0.5) ? -1 : INT32_MIN;
    return "bad: pos[" + std::to_string(t) + "] negative";
  }
  switch (kind) {
    case 5: c.params["D"] = c.param("D") - 1; return "bad: odd head_dim";
    case 6: c.params["rot_dim"] = c.param("rot_dim") - 1; return "bad: odd rot_dim";
    case 7: c.params["rot_dim"] = c.param("D") + 2; return "bad: rot_dim > D";
    case 8: c.params["layout"] = rng.chance(0.5) ? 2 : -1; return "bad: layout";
    default: c.params["max_seq"] = 0; return "bad: max_seq = 0";
  }
}

Case make_apply(DType t, Rng& rng, int64_t index, int64_t edges) {
  const int64_t D = pick_width(rng, index, edges);
  const int64_t rot = rng.chance(0.6) ? D : 2 * rng.range(1, D / 2);
  const int64_t T = rng.chance(0.04) ? 0 : rng.range(1, 5), H = rng.range(1, 4);
  const int layout = static_cast<int>(rng.range(0, 1));
  const float base = pick_base(rng);
  int64_t max_seq = rng.chance(0.5) ? rng.range(1, 64) : rng.range(65, 8192);
  max_seq = std::min<int64_t>(max_seq, std::max<int64_t>(1, (int64_t{1} << 15) / rot));  // the cache is input
  max_seq = std::min<int64_t>(max_seq, static_cast<int64_t>(kMaxAngle / largest_frequency(base, rot)) + 1);
  std::vector<float> cache(static_cast<size_t>(max_seq * rot));
  reference::rope_cache<float>(cache.data(), max_seq, rot, base);  // the contract's cache
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) {
    const double u = rng.unit();
    p = static_cast<int32_t>(u < 0.15 ? 0 : u < 0.3 ? max_seq - 1 : rng.range(0, max_seq - 1));
  }
  const ValueClass vc = rotated_class(rng);
  const bool in_place = rng.chance(0.3);

  Case c;
  c.params = {{"T", double(T)},
              {"H", double(H)},
              {"D", double(D)},
              {"rot_dim", double(rot)},
              {"max_seq", double(max_seq)},
              {"layout", double(layout)}};
  std::string x_label;
  c.args.push_back({"x", Access::in, rotated_x(t, rng, vc, {T, H, D}, &x_label)});
  c.args.push_back({"pos", Access::in, Tensor::of_i32({T}, pos)});
  c.args.push_back({"cache", Access::in, Tensor::of_f32({max_seq, rot}, cache)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {T, H, D}), Match::tolerance, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  c.label = "T=" + std::to_string(T) + " H=" + std::to_string(H) + " D=" + std::to_string(D) +
            " rot_dim=" + std::to_string(rot) + " max_seq=" + std::to_string(max_seq) + " base=" + str(base) +
            (layout ? " interleaved" : " neox") + " x=" + x_label + (in_place ? " y==x" : "");
  if (index >= edges && rng.chance(0.12)) c.label += " " + make_invalid_apply(rng, c);
  return c;
}

Oracle apply_oracle(const Case& c) {
  if (tl_status s = apply_status(c)) return refused(s);
  const int64_t T = c.iparam("T"), H = c.iparam("H"), D = c.iparam("D"), rot = c.iparam("rot_dim");
  const int layout = c.iparam32("layout");
  std::vector<float> xs(static_cast<size_t>(T * H * D));  // exact for f32 and the half dtypes
  for (int64_t k = 0; k < T * H * D; ++k) xs[static_cast<size_t>(k)] = static_cast<float>(c.in("x").at(k));
  const float* x = xs.data();
  const float* cache = c.in("cache").f32();
  const int32_t* pos = c.in("pos").i32();
  Expected e;
  e.value.resize(static_cast<size_t>(T * H * D));
  reference::rope_apply<double>(x, e.value.data(), pos, T, H, D, rot, cache, layout);
  // A rotated member a*c - b*s (or a*s + b*c) is two products and a sum:
  // its scale is |a c| + |b s| with the cache's own c and s. The tail past
  // rot_dim is a copy of x, compared bit for bit (-0, NaN payloads included).
  e.scale.resize(e.value.size());
  e.copied.resize(e.value.size());
  for (int64_t k = 0; k < T * H * D; ++k) {
    e.scale[k] = std::fabs(double(x[k]));
    e.copied[k] = k % D >= rot;
  }
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t j = 0; j < rot / 2; ++j) {
        const int64_t o = (t * H + h) * D;
        int64_t ia, ib;
        reference::pos_pair(layout, o, rot, j, &ia, &ib);
        const double cs = cache[pos[t] * rot + j], sn = cache[pos[t] * rot + rot / 2 + j];
        const double a = std::fabs(double(x[ia])), b = std::fabs(double(x[ib]));
        e.scale[ia] = a * std::fabs(cs) + b * std::fabs(sn);
        e.scale[ib] = a * std::fabs(sn) + b * std::fabs(cs);
      }
  return {{"status", status_expected(TL_OK)}, {"y", e}};
}

// In f16 and bf16: x and y of the dtype, the cache f32, the f32 rotation
// rounded once (half_rule).
OpSpec rope_op(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "Rope_" + dtype : "Rope";
  op.dtype = t;
  op.args = {{"x", Access::in, "T", "T, H, D"},
             {"pos", Access::in, "i32", "T"},
             {"cache", Access::in, half ? "f32" : "T", "max_seq, rot_dim"},
             {"y", Access::out, "T", "T, H, D", {Match::tolerance}, {"x"}},
             status_output()};
  const ToleranceRule f32{DType::f32, "4", "-",
                          "from the cache's own c, s: two products and a difference (or sum), each rounding <= u "
                          "relative (u = 2^-24): <= u |a c| + u |b s| + u |y| <= 2 u (|a c| + |b s|), the scale s; a "
                          "rounding into the subnormals errs by <= 2^-150 = u FLT_MIN instead, so in all <= u (2 s + "
                          "FLT_MIN): r <= 3 against max(s, FLT_MIN); the tail past rot_dim is a copy, compared bit "
                          "for bit"};
  op.tolerances = {half ? half_rule(t, f32) : f32};
  op.group = "pos";
  op.symbol = "tl_rope_apply_" + dtype;
  op.summary =
      "rotate x[T, H, D] by the cos/sin cache at pos[t]: NeoX or interleaved pairs, partial rotary; "
      "past the cache is ContextOverflowError; y == x allowed";
  if (half) op.summary += "; x and y " + dtype + ", the cache f32, each pair rotated in f32";
  op.spec = "operations.txt 3. Position encoding: Rope (Rotary Position Embedding)";
  op.params = {
      {"T", ParamType::i64, ">= 0"},
      {"H", ParamType::i64, ">= 0"},
      {"D", ParamType::i64, "head_dim: even, >= 2"},
      {"rot_dim", ParamType::i64, "even, 2 .. D"},
      {"max_seq", ParamType::i64, ">= 1 (cache rows)"},
      {"layout", ParamType::i32, "0 NeoX (TL_ROPE_NEOX) | 1 interleaved (TL_ROPE_INTERLEAVED)", "0 (TL_ROPE_NEOX)"}};
  op.domain =
      "pos[t] 0 .. max_seq - 1 (negative: TL_ERR_INVALID_ARGUMENT, past the cache: ContextOverflowError); "
      "caches built by the oracle's convention from real and extreme bases; |x| <= 1e37 so no product or sum "
      "of the rotation overflows where the exact result does not; 1 case in 8 has a bad argument, most often "
      "a position past the cache";
  if (half)
    op.domain = "as Rope's, x the f32 value classes rounded to " + dtype +
                (t == DType::f16 ? " (|x| <= 65504: a rotated pair may overflow to an infinity)" : std::string()) +
                " or, a third of the time, random bit patterns (infinities and NaNs among them)";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_apply(t, rng, i, edges); };
  if (half)  // bf16 alike
    declare_c_call<decltype(tl_rope_apply_f16)>(
        op, {"x", "y", "pos", "T", "H", "D", "rot_dim", "cache", "max_seq", "layout"});
  else
    declare_c_call<decltype(tl_rope_apply_f32)>(
        op, {"x", "y", "pos", "T", "H", "D", "rot_dim", "cache", "max_seq", "layout"});
  op.oracle = apply_oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> pos_rope() {
  return {rope_op(DType::f32),  rope_cache_op(DType::f32), rope_op(DType::f16),
          rope_op(DType::bf16), rope_cache_op(DType::f16), rope_cache_op(DType::bf16)};
}

}  // namespace konform::ops
