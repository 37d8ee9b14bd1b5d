// The attention ops of spec/operations.txt section 5 (tinyllm/attention.h):
// Sdpa and FlashAttention (GQA, causal -1e4, additive masks of four shapes),
// SdpaCross, SdpaWindow, and the per-head QK-norm.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "konform/reference/attention.hpp"
#include "konform/values.hpp"
#include "half_support.hpp"
#include "norm_support.hpp"
#include "tinyllm/attention.h"

namespace konform::ops {

std::vector<OpSpec> attention();

namespace {

namespace ref = reference::attn;
using norm::status_arg;
using norm::status_expected;

// ---------------------------------------------------------------- sizes and status

// The header's rules, read independently of impl/ (tinyllm/attention.h).
bool fits(std::initializer_list<int64_t> sizes) {
  long double p = 4;
  for (int64_t s : sizes) p *= static_cast<long double>(s);
  return p <= static_cast<long double>(INT64_MAX);
}

tl_status sdpa_status(const ref::Dims& n, int64_t mask_kind) {
  for (int64_t s : {n.batch, n.heads, n.kv_heads, n.sq, n.sk, n.d})
    if (s < 0) return TL_ERR_INVALID_ARGUMENT;
  if (n.heads < 1 || n.kv_heads < 1) return TL_ERR_INVALID_ARGUMENT;
  if (mask_kind < 0 || mask_kind > 4) return TL_ERR_INVALID_ARGUMENT;
  if (!fits({n.batch, n.heads, n.sq, n.d}) || !fits({n.batch, n.kv_heads, n.sk, n.d}) ||
      (mask_kind != 0 && !fits({n.batch, n.heads, n.sq, n.sk})))
    return TL_ERR_INVALID_ARGUMENT;
  if (n.heads % n.kv_heads != 0) return TL_ERR_SHAPE;
  if (n.d == 0) return TL_ERR_SHAPE;
  if (n.sk == 0 && n.sq > 0) return TL_ERR_SHAPE;
  return TL_OK;
}

ref::Dims dims_of(const Case& c) {
  return {c.iparam("B"), c.iparam("H"), c.iparam("KV"), c.iparam("Sq"), c.iparam("Sk"), c.iparam("D")};
}

// SdpaCross and SdpaWindow store their sizes in the same params (KV = H;
// SdpaWindow: Sq = Sk = S and a "window").
tl_status call_status(const Case& c) {
  const ref::Dims n = dims_of(c);
  const int64_t kind = c.params.count("mask") ? c.iparam("mask") : 0;
  if (tl_status s = sdpa_status(n, kind)) return s;
  if (c.params.count("window")) {
    const int64_t w = c.iparam("window");
    if (w < 1) return TL_ERR_INVALID_ARGUMENT;
    if (n.sq % w != 0) return TL_ERR_SHAPE;
  }
  return TL_OK;
}

struct Shape {
  int64_t B, H, KV, Sq, Sk, D;
};

// Decode (Sq = 1) with GQA as Llama-3 and Qwen run it, prefill around the
// tiles of 32 keys (31, 32, 33, 64, 65), Sq < Sk (a chunk after a cache),
// Sq > Sk (causal rows with every key masked), odd head_dims around the
// vector widths, and the empty batch and query.
const std::vector<Shape>& edge_shapes() {
  static const std::vector<Shape> shapes = {
      {1, 1, 1, 1, 1, 1},      {1, 8, 2, 1, 37, 64},  {1, 4, 4, 1, 1, 8},   {2, 4, 2, 5, 5, 16},
      {1, 2, 1, 17, 17, 33},   {1, 1, 1, 3, 40, 7},   {1, 2, 2, 8, 3, 4},   {1, 6, 3, 33, 65, 128},
      {1, 32, 8, 1, 300, 128}, {2, 4, 1, 31, 32, 17}, {1, 3, 1, 64, 64, 9}, {1, 2, 2, 1, 129, 31},
      {0, 2, 1, 4, 4, 8},      {1, 2, 1, 0, 5, 4},    {1, 4, 2, 65, 70, 2}, {3, 1, 1, 9, 96, 65}};
  return shapes;
}

// ---------------------------------------------------------------- values

// The operands' classes: N(0, 1); q and k scaled so scores reach +-1e3 (a
// softmax that overflows exp without the max subtraction, and a score near
// -1e4 + s where the mask does not win); tiny; zeros (a uniform softmax);
// small integers (tied scores).
enum class Vals { normal, peaky, large, tiny, zeros, ties };
constexpr Vals kAllVals[] = {Vals::normal, Vals::normal, Vals::peaky, Vals::large, Vals::tiny, Vals::zeros, Vals::ties};
const char* vals_name(Vals v) {
  const char* names[] = {"normal", "peaky", "large", "tiny", "zeros", "ties"};
  return names[static_cast<int>(v)];
}

std::vector<float> operand(Rng& rng, Vals v, int64_t n, bool is_value) {
  std::vector<float> x;
  switch (v) {
    case Vals::tiny: x = make_values(rng, ValueClass::tiny, n); break;
    case Vals::zeros:
      x = is_value ? make_values(rng, ValueClass::normal, n) : make_values(rng, ValueClass::zeros, n);
      break;
    case Vals::ties: x = make_values(rng, ValueClass::ties, n); break;
    default: x = make_values(rng, ValueClass::normal, n);
  }
  const float scale = is_value ? 1.0f : v == Vals::peaky ? 4.0f : v == Vals::large ? 30.0f : 1.0f;
  if (scale != 1.0f)
    for (float& e : x) e *= scale;
  return x;
}

// An additive mask: -1e4 for padded or blocked positions (a few rows all
// blocked), N(0, 1) biases now and then (ALiBi-like), 0 elsewhere.
std::vector<float> mask_values(Rng& rng, int64_t n, int64_t sk) {
  std::vector<float> m(static_cast<size_t>(n), 0.0f);
  const double blocked = rng.uniform(0.0, 0.6);
  const bool biases = rng.chance(0.3);
  for (int64_t r = 0; r * sk < n; ++r) {
    const bool all = rng.chance(0.05);
    for (int64_t j = 0; j < sk; ++j) {
      float& e = m[static_cast<size_t>(r * sk + j)];
      if (all || rng.chance(blocked)) e = -1e4f;
      else if (biases) e = make_values(rng, ValueClass::normal, 1)[0];
    }
  }
  return m;
}

const char* mask_name(int64_t kind) {
  const char* names[] = {"none", "padding [B,1,1,Sk]", "full [B,H,Sq,Sk]", "[Sq,Sk]", "[B,1,Sq,Sk]"};
  return kind >= 0 && kind <= 4 ? names[kind] : "bad kind";
}

// ---------------------------------------------------------------- cases

void set_dims(Case& c, const Shape& s) {
  c.params["B"] = double(s.B), c.params["H"] = double(s.H), c.params["KV"] = double(s.KV);
  c.params["Sq"] = double(s.Sq), c.params["Sk"] = double(s.Sk), c.params["D"] = double(s.D);
}

std::string dims_label(const Shape& s) {
  return "B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) + " KV=" + std::to_string(s.KV) +
         " Sq=" + std::to_string(s.Sq) + " Sk=" + std::to_string(s.Sk) + " D=" + std::to_string(s.D);
}

// One argument of a valid shape made bad; returns the label. `gqa` allows
// the KV-head rules (Sdpa, FlashAttention).
std::string make_bad(Rng& rng, Shape& s, int64_t& mask_kind, bool gqa) {
  switch (rng.range(0, gqa ? 6 : 3)) {
    case 0: s.D = 0; return "bad: head_dim = 0";
    case 1: s.Sk = 0, s.Sq = std::max<int64_t>(s.Sq, 1); return "bad: Sk = 0";
    case 2: s.B = -1; return "bad: B = -1";
    case 3: s.Sq = s.Sk = int64_t{1} << 61; return "bad: Sq = Sk = 2^61 (q's byte count overflows)";
    case 4: s.KV = 0; return "bad: kv_heads = 0";
    case 5:  // heads not a multiple of the KV heads
      s.KV = rng.range(2, 4);
      s.H = s.KV * rng.range(1, 3) + rng.range(1, s.KV - 1);
      return "bad: num_heads % kv_heads != 0";
    default: mask_kind = 5 + rng.range(0, 3); return "bad: mask kind " + std::to_string(mask_kind);
  }
}

// Random shapes within ~2^21 multiply-adds of the oracle.
Shape random_shape(Rng& rng, bool gqa) {
  const int64_t dims[] = {1, 2, 3, 4, 7, 8, 16, 17, 31, 32, 33, 64, 65, 128};
  Shape s;
  s.B = rng.range(1, 3);
  s.KV = rng.range(1, 4);
  s.H = gqa ? s.KV * rng.pick(std::vector<int64_t>{1, 1, 2, 3, 4}) : s.KV;
  s.Sk = rng.chance(0.2) ? rng.range(33, 300) : rng.range(1, 40);
  s.Sq = rng.chance(0.3) ? 1 : rng.chance(0.7) ? s.Sk : rng.range(1, 40);
  s.D = rng.chance(0.6) ? rng.pick(dims) : rng.range(1, 96);
  while (s.B * s.H * s.Sq * s.Sk * s.D > (int64_t{1} << 21)) {
    if (s.Sq > 1) s.Sq = (s.Sq + 1) / 2;
    else if (s.B > 1) --s.B;
    else s.Sk = (s.Sk + 1) / 2;
  }
  return s;
}

// Long contexts: every 64th case past the edges (the first of them too, so
// each sweep of more than `edges` cases has one) has Sk in [2048, 16384],
// where a sum over keys that rounds once per key (Sk - 1 deep) leaves the
// limits' derivation and the pairwise summation contract decides
// (docs/tolerances.md, "Reductions"). K and V are kept to 2^17 floats each
// (head_dim <= 8 at Sk = 16384): drawing the values, once per backend, is
// most of a case's cost.
constexpr int64_t kLongEvery = 64;
bool long_context(int64_t index, int64_t edges) { return index >= edges && (index - edges) % kLongEvery == 0; }

Shape long_shape(Rng& rng, bool gqa) {
  Shape s;
  s.B = 1;
  s.KV = rng.range(1, 2);
  s.H = gqa ? s.KV * rng.range(1, 2) : s.KV;
  s.Sk = rng.chance(0.5) ? rng.pick(std::vector<int64_t>{2048, 4096, 8192, 16384}) : rng.range(2048, 16384);
  s.Sq = rng.chance(0.5) ? 1 : rng.range(2, 4);  // decode, or a chunk after a cache
  s.D = rng.pick(std::vector<int64_t>{1, 2, 3, 4, 7, 8, 16, 33, 64});
  while (s.D > 1 && s.KV * s.Sk * s.D > (int64_t{1} << 17)) s.D /= 2;
  while (s.Sq > 1 && s.H * s.Sq * s.Sk * s.D > (int64_t{1} << 19)) --s.Sq;
  return s;
}

// A random shape, neither an edge nor a long context: the only cases that
// get other lengths or a refused argument.
bool random_case(int64_t index, int64_t edges) { return index >= edges && !long_context(index, edges); }

Shape case_shape(Rng& rng, int64_t index, int64_t edges, bool gqa) {
  if (index < edges) return edge_shapes()[static_cast<size_t>(index)];
  return long_context(index, edges) ? long_shape(rng, gqa) : random_shape(rng, gqa);
}

// Tensors of a shape, or 16 floats when the call must be refused (never read).
std::vector<int64_t> shape_or_small(bool valid, std::vector<int64_t> shape) {
  return valid ? shape : std::vector<int64_t>{16};
}
int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The mask's dimensions for its kind (tinyllm/attention.h), as the
// parameters that size them: the shape cases give it, and the count the op
// declares in code (no shape expression gives a count that depends on a kind).
// Kinds 0 (no mask) and beyond 4 (refused) have none.
std::optional<Factors> mask_dims(const Case& c) {
  auto kind = c.params.find("mask");
  if (kind == c.params.end()) return std::nullopt;
  const auto p = [&](const char* name) { return param_factor(c, name); };
  const Factor one{"1", 1};
  if (kind->second == 1) return Factors{p("B"), one, one, p("Sk")};
  if (kind->second == 2) return Factors{p("B"), p("H"), p("Sq"), p("Sk")};
  if (kind->second == 3) return Factors{p("Sq"), p("Sk")};
  if (kind->second == 4) return Factors{p("B"), one, p("Sq"), p("Sk")};
  return std::nullopt;
}

// Whether a case's tensors can have their real shapes: every size >= 0 and
// small. A refused call with real buffers (num_heads % kv_heads != 0, D = 0,
// Sk = 0) tells a kernel that computes anyway by its result, not by a crash.
bool real_buffers(const Shape& s, int64_t mask_kind) {
  for (int64_t d : {s.B, s.H, s.KV, s.Sq, s.Sk, s.D})
    if (d < 0 || d > (int64_t{1} << 20)) return false;
  return mask_kind <= 4 && s.B * s.H * s.Sq * std::max(s.D, s.Sk) <= (int64_t{1} << 22) &&
         s.B * s.KV * s.Sk * s.D <= (int64_t{1} << 22);
}

// q, k, v, (mask), y and status of a case on shape s; KV heads = s.KV.
void add_tensors(Rng& rng, Case& c, const Shape& s, int64_t mask_kind, bool valid) {
  valid = valid || real_buffers(s, mask_kind);
  const Vals qv = rng.pick(kAllVals), kv = rng.chance(0.7) ? qv : rng.pick(kAllVals), vv = rng.pick(kAllVals);
  const auto qs = shape_or_small(valid, {s.B, s.H, s.Sq, s.D}), ks = shape_or_small(valid, {s.B, s.KV, s.Sk, s.D});
  c.args.push_back({"q", Access::in, Tensor::of_f32(qs, operand(rng, qv, count(qs), false))});
  c.args.push_back({"k", Access::in, Tensor::of_f32(ks, operand(rng, kv, count(ks), false))});
  c.args.push_back({"v", Access::in, Tensor::of_f32(ks, operand(rng, vv, count(ks), true))});
  if (mask_kind != 0) {
    const auto dims = mask_dims(c);
    std::vector<int64_t> ms;
    for (const Factor& f : dims.value_or(Factors{})) ms.push_back(static_cast<int64_t>(f.value));
    ms = shape_or_small(valid && dims, ms);
    c.args.push_back(
        {"mask", Access::in, Tensor::of_f32(ms, mask_values(rng, count(ms), valid ? std::max<int64_t>(s.Sk, 1) : 16))});
  }
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, qs)});
  c.args.push_back(status_arg());
  c.label += std::string(" q=") + vals_name(qv) + " k=" + vals_name(kv) + " v=" + vals_name(vv);
}

Case make_sdpa(Rng& rng, int64_t index, int64_t edges) {
  Shape s = case_shape(rng, index, edges, true);
  int64_t mask_kind = rng.chance(0.4) ? 0 : rng.range(1, 4);
  const bool causal = rng.chance(0.5);
  std::string bad;
  if (random_case(index, edges) && rng.chance(0.08)) bad = make_bad(rng, s, mask_kind, true);
  Case c;
  set_dims(c, s);
  c.params["causal"] = causal ? 1.0 : 0.0;
  c.params["mask"] = double(mask_kind);
  const bool valid = call_status(c) == TL_OK;
  c.label =
      dims_label(s) + (causal ? " causal" : "") + " mask=" + mask_name(mask_kind) + (bad.empty() ? "" : " " + bad);
  add_tensors(rng, c, s, mask_kind, valid);
  return c;
}

Case make_cross(Rng& rng, int64_t index, int64_t edges) {
  Shape s = case_shape(rng, index, edges, false);
  s.KV = s.H;
  if (random_case(index, edges) && rng.chance(0.2))
    s.Sq = rng.range(1, 12), s.Sk = rng.range(1, 200);  // decoder vs encoder lengths
  int64_t none = 0;
  std::string bad;
  if (random_case(index, edges) && rng.chance(0.08)) bad = make_bad(rng, s, none, false);
  Case c;
  set_dims(c, s);
  const bool valid = call_status(c) == TL_OK;
  c.label = "B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) + " Sq=" + std::to_string(s.Sq) +
            " Se=" + std::to_string(s.Sk) + " D=" + std::to_string(s.D) + (bad.empty() ? "" : " " + bad);
  add_tensors(rng, c, s, 0, valid);
  return c;
}

const std::vector<int64_t>& edge_windows() {
  static const std::vector<int64_t> w = {1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 49, 64};
  return w;
}

Case make_window(Rng& rng, int64_t index, int64_t edges) {
  const int64_t w = index < edges ? edge_windows()[static_cast<size_t>(index)] : rng.range(1, 40);
  Shape s;
  s.B = rng.range(1, 2);
  s.H = s.KV = rng.range(1, 3);
  s.Sq = s.Sk = w * rng.range(1, std::max<int64_t>(1, 128 / w));
  s.D = rng.chance(0.5) ? rng.pick(std::vector<int64_t>{1, 4, 8, 16, 17, 32, 64}) : rng.range(1, 70);
  int64_t window = w, none = 0;
  std::string bad;
  if (index >= edges && rng.chance(0.1)) {
    if (rng.chance(0.5)) {
      bad = make_bad(rng, s, none, false);
      s.Sk = s.Sq;
    } else if (rng.chance(0.5) && w > 1) {
      s.Sq = s.Sk = s.Sq + 1;
      bad = "bad: S not a multiple of the window";
    } else {
      window = -rng.range(0, 2);
      bad = "bad: window = " + std::to_string(window);
    }
  }
  Case c;
  set_dims(c, s);
  c.params["window"] = double(window);
  const bool valid = call_status(c) == TL_OK;
  c.label = "B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) + " S=" + std::to_string(s.Sq) +
            " D=" + std::to_string(s.D) + " window=" + std::to_string(window) + (bad.empty() ? "" : " " + bad);
  add_tensors(rng, c, s, 0, valid);
  return c;
}

// ---------------------------------------------------------------- oracle

// y* and its scale, per element t of each row:
//   s_t = sum_j p_j (|v_jt| + E_j |v_jt - y_t|),
//   E_j = 1 + (1/sqrt(D)) sum |q k_j| + |s_j| + |s_j - max| + |masks added|.
// The first term is the weighted sum's own rounding (and the normalizer's,
// which scales y whole). The second is the softmax's sensitivity to errors in
// the scores: dy = sum_j p_j ds_j (v_j - y), with ds_j up to a few u of the
// dot product's terms |q||k| (times the scale), of the score itself (the
// scale's product and the mask's additions: -1e4 + s rounds at 1e4 u), of
// s_j - max (the exp's argument) and the exp's own ~1 u.
void row_oracle(const ref::Row& r, const ref::Dims& n, int64_t j0, int64_t j1, double* y, double* scale) {
  const std::vector<double> s = ref::scores<double>(r, n, j0, j1);
  const std::vector<double> p = ref::probabilities<double>(s);
  ref::attend_row<double>(r, n, j0, j1, y);
  double m = s[0];
  for (double x : s) m = std::max(m, x);
  const double inv_root = 1.0 / std::sqrt(double(n.d));
  std::vector<double> e(s.size());
  for (int64_t j = j0; j < j1; ++j) {
    const size_t k = static_cast<size_t>(j - j0);
    double dot_terms = 0;
    for (int64_t t = 0; t < n.d; ++t) dot_terms += std::fabs(double(r.q[t]) * double(r.k[j * n.d + t]));
    double added = 0;
    if (r.causal && ref::causally_masked(n, r.i, j)) added += 1e4;
    if (r.mask != nullptr) added += std::fabs(double(r.mask[j]));
    e[k] = 1.0 + inv_root * dot_terms + std::fabs(s[k]) + std::fabs(s[k] - m) + added;
  }
  for (int64_t t = 0; t < n.d; ++t) {
    double acc = 0;
    for (int64_t j = j0; j < j1; ++j) {
      const size_t k = static_cast<size_t>(j - j0);
      const double vj = r.v[j * n.d + t];
      acc += p[k] * (std::fabs(vj) + e[k] * std::fabs(vj - y[t]));
    }
    scale[t] = acc;
  }
}

const float* mask_ptr(const Case& c) {
  for (const Arg& a : c.args)
    if (a.name == "mask") return a.value.f32();
  return nullptr;
}

// q, k or v as floats: the tensor's own for f32, widened exactly into
// `scratch` for f16 and bf16.
const float* floats_of(const Tensor& t, std::vector<float>& scratch) {
  if (t.dtype == DType::f32) return t.f32();
  scratch.resize(static_cast<size_t>(t.elements()));
  for (int64_t k = 0; k < t.elements(); ++k) scratch[static_cast<size_t>(k)] = static_cast<float>(t.at(k));
  return scratch.data();
}

Oracle sdpa_oracle(const Case& c) {
  if (tl_status st = call_status(c)) return {{"status", status_expected(st)}};
  std::vector<float> qs, ks, vs;
  const float *q = floats_of(c.in("q"), qs), *k = floats_of(c.in("k"), ks), *v = floats_of(c.in("v"), vs);
  const ref::Dims n = dims_of(c);
  const int kind = c.params.count("mask") ? c.iparam32("mask") : 0;
  const bool causal = c.params.count("causal") && c.param("causal") != 0;
  const bool windowed = c.params.count("window") != 0;
  const int64_t w = windowed ? c.iparam("window") : 0;
  Expected y;
  y.value.assign(static_cast<size_t>(n.batch * n.heads * n.sq * n.d), 0.0);
  y.scale.assign(y.value.size(), 0.0);
  for (int64_t b = 0; b < n.batch; ++b)
    for (int64_t h = 0; h < n.heads; ++h)
      for (int64_t i = 0; i < n.sq; ++i) {
        const ref::Row r = ref::row_of(q, k, v, mask_ptr(c), n, kind, causal, b, h, i);
        const int64_t j0 = windowed ? i / w * w : 0, j1 = windowed ? j0 + w : n.sk;
        const size_t at = static_cast<size_t>(((b * n.heads + h) * n.sq + i) * n.d);
        row_oracle(r, n, j0, j1, y.value.data() + at, y.scale.data() + at);
      }
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// ---------------------------------------------------------------- invoke

void invoke_sdpa(const KernelFn& fn, const Case& c, const Pointers& p) {
  const int64_t kind = c.iparam("mask");
  *p.i32("status") = fn.call<decltype(tl_sdpa_f32)>(
      fn.arg(p.f32("q")), fn.arg(p.f32("k")), fn.arg(p.f32("v")), kind == 0 ? nullptr : fn.arg(p.f32("mask")),
      fn.arg(p.f32("y")), c.iparam("B"), c.iparam("H"), c.iparam("KV"), c.iparam("Sq"), c.iparam("Sk"), c.iparam("D"),
      c.iparam32("causal"), static_cast<tl_attn_mask>(kind));
}

// Sdpa or FlashAttention of f16 or bf16 q, k, v and y (their signatures
// are alike); the mask stays f32.
void invoke_sdpa_half(const KernelFn& fn, const Case& c, const Pointers& p) {
  const int64_t kind = c.iparam("mask");
  const auto half = [&](const char* name) { return static_cast<uint16_t*>(p.get(name)); };
  *p.i32("status") = fn.call<decltype(tl_flash_attention_f16)>(  // tl_sdpa_f16 and bf16 alike
      fn.arg(static_cast<const uint16_t*>(half("q"))), fn.arg(static_cast<const uint16_t*>(half("k"))),
      fn.arg(static_cast<const uint16_t*>(half("v"))), kind == 0 ? nullptr : fn.arg(p.f32("mask")), fn.arg(half("y")),
      c.iparam("B"), c.iparam("H"), c.iparam("KV"), c.iparam("Sq"), c.iparam("Sk"), c.iparam("D"), c.iparam32("causal"),
      static_cast<tl_attn_mask>(kind));
}

// A case of an attention op's f16 or bf16 twin: the f32 op's case with q, k
// and v rounded to the dtype (a half KV cache's keys and values: the f32
// values are well inside f16's range) and y of the dtype; a mask stays f32.
Case half_case(DType t, Case c) {
  for (Arg& a : c.args) {
    if (a.name == "y") a.value = Tensor::zeros(t, a.value.shape);
    if (a.name != "q" && a.name != "k" && a.name != "v") continue;
    const std::vector<float> values(a.value.f32(), a.value.f32() + a.value.elements());
    a.value = Tensor::of_half(t, a.value.shape, values);
  }
  return c;
}

// The half twins' random cases stay below kHalfWork multiply-adds of q k^T
// (B H Sq Sk D; redrawn above it, a refused case whatever its sizes): the
// default check's time (docs/tolerances.md) allows a twin a fraction of its
// f32 op's sweep, whose shapes reach 2^21. The classes are the f32 op's
// (causal with Sq < Sk, = Sk, > Sk, the -1e4 masks, scores up to ~1e3, ties,
// long contexts of small heads); the edge shapes are kept whole.
constexpr double kHalfWork = 1 << 16;
double half_work(const Case& c) {
  if (call_status(c) != TL_OK) return 0;
  const ref::Dims n = dims_of(c);
  return double(n.batch) * double(n.heads) * double(n.sq) * double(n.sk) * double(n.d);
}

// The f16 or bf16 twin of an attention op `f32` (Sdpa, FlashAttention,
// SdpaCross, SdpaWindow): its cases rounded (half_case), its rule carried by
// half_rule; q, k, v and y of the dtype, a mask f32. The caller gives its
// invoke.
OpSpec attention_half(const OpSpec& f32, DType t) {
  const std::string dtype(dtype_name(t));
  OpSpec h = f32;
  h.name = f32.name + "_" + dtype;
  h.dtype = t;
  h.symbol = f32.symbol.substr(0, f32.symbol.size() - 3) + dtype;  // tl_..._f32 -> tl_..._f16
  for (ArgSpec& a : h.args)
    if (a.name == "mask") a.dtype = "f32";
  h.tolerances = {half_rule(t, f32.tolerances.front())};
  h.summary +=
      "; q, k, v and y " + dtype + (f32.args.size() > 5 ? ", the mask f32" : "") + ", scores, softmax and sums in f32";
  h.domain = f32.name + "'s cases with q, k and v rounded to " + dtype + "; " + h.domain;
  h.make_case = [t, make = f32.make_case, edges = f32.edge_cases](Rng& rng, int64_t i) {
    Case c = make(rng, i);
    for (int redraw = 0; i >= edges && redraw < 32 && half_work(c) > kHalfWork; ++redraw) c = make(rng, i);
    return half_case(t, std::move(c));
  };
  h.invoke = nullptr;
  h.c_params.clear();
  h.c_result.clear();
  return h;
}

const char* kSdpaDomain =
    "q, k N(0, 1), scaled by 4 or 30 (scores up to ~1e3: exp overflows without the max subtraction), tiny, zeros "
    "(uniform softmax), small integers (ties); v N(0, 1), tiny or integers; masks of -1e4 (some rows all -1e4) and "
    "N(0, 1) biases; causal with Sq < Sk, Sq = Sk and Sq > Sk (rows with every key masked); no NaN or Inf (a NaN "
    "score makes its row NaN, nothing more to check); shapes up to ~2^21 multiply-adds, every 64th case a long context "
    "(Sk 2048-16384, Sq <= 4, small heads); 8% refused arguments";

// OpSpec::sum_length: the sums over keys (a window's, in SdpaWindow) and the
// dot products over head_dim, the longer of the two.
int64_t attention_sum_length(const Case& c) {
  const int64_t keys = c.params.count("window") ? largest_param(c, {"window"}) : largest_param(c, {"Sk"});
  return std::max(keys, largest_param(c, {"D"}));
}

OpSpec sdpa_spec(const char* name, const char* symbol, const char* summary, const char* spec,
                 std::vector<ToleranceRule> tolerances) {
  OpSpec op;
  op.name = name;
  op.tolerances = std::move(tolerances);
  op.args = {{"q", Access::in, "T", "B, H, Sq, D"},
             {"k", Access::in, "T", "B, KV, Sk, D"},
             {"v", Access::in, "T", "B, KV, Sk, D"},
             {"mask", Access::in, "T", kShapeByCode, {Match::tolerance}, {}, true},  // by its kind: mask_dims
             {"y", Access::out, "T", "B, H, Sq, D"},
             status_output()};
  op.group = "attention";
  op.symbol = symbol;
  op.summary = summary;
  op.spec = spec;
  op.params = {{"B", ParamType::i64, "batch: >= 0"},
               {"H", ParamType::i64, "num_heads: >= 1, H % KV == 0 (else TL_ERR_SHAPE)"},
               {"KV", ParamType::i64, "kv_heads: >= 1, divides H"},
               {"Sq", ParamType::i64, ">= 0"},
               {"Sk", ParamType::i64, ">= 0; >= 1 when Sq >= 1 (else TL_ERR_SHAPE)"},
               {"D", ParamType::i64, "head_dim: >= 1 (0: TL_ERR_SHAPE); q's, k's and the mask's bytes within int64_t"},
               {"causal", ParamType::i32, "0 or 1 (any non-zero is 1): -1e4 added where key j > i + Sk - Sq"},
               {"mask", ParamType::i32,
                "mask_kind: 0 none (mask not passed: NULL), 1 [B,1,1,Sk], 2 [B,H,Sq,Sk], 3 [Sq,Sk], 4 [B,1,Sq,Sk]; "
                "others refused"}};
  op.domain = kSdpaDomain;
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_shapes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make_sdpa(rng, i, edges); };
  op.invoke = invoke_sdpa;
  op.oracle = sdpa_oracle;
  op.sum_length = attention_sum_length;
  op.declared_count = [](const std::string& arg, const Case& c) { return arg == "mask" ? mask_dims(c) : std::nullopt; };
  return op;
}

// ---------------------------------------------------------------- QK-norm

// In f16 and bf16: x the half RmsNorm's rows (norm::half_rows), g f32.
Case make_qk_norm(DType t, Rng& rng, int64_t index, int64_t edges) {
  const auto& widths = norm::edge_widths();
  const int64_t d = index < edges ? std::min<int64_t>(widths[static_cast<size_t>(index)], 256)
                                  : rng.pick(std::vector<int64_t>{1, 4, 16, 32, 63, 64, 65, 128, 256});
  const int64_t heads = rng.range(1, 16), tokens = rng.chance(0.05) ? 0 : rng.range(1, 12);
  const std::vector<int64_t> shape = {tokens, heads, d};
  norm::HalfRows x;
  if (t == DType::f32) {
    norm::Row row = norm::make_row(rng, tokens * heads * d);
    x = {Tensor::of_f32(shape, row.values), row.label, row.eps_zero_ok};
  } else {
    x = norm::half_rows(t, rng, shape, shape.back(), false);
  }
  const float eps = norm::pick_eps(rng, x.eps_zero_ok);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.params = {{"tokens", double(tokens)}, {"heads", double(heads)}, {"D", double(d)}, {"eps", double(eps)}};
  std::string bad;
  if (index >= edges && rng.chance(0.1)) {
    switch (rng.range(0, 3)) {
      case 0:
        c.params["D"] = 0;
        bad = "bad: head_dim = 0";
        break;
      case 1:
        c.params["heads"] = -1;
        bad = "bad: num_heads = -1";
        break;
      case 2:
        c.params["eps"] = -1e-5;
        bad = "bad: eps < 0";
        break;
      default: c.params["tokens"] = c.params["heads"] = double(int64_t{1} << 40); bad = "bad: 2^80 elements";
    }
  }
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({d}, norm::make_gain(rng, d))});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape), Match::tolerance, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  c.label = "x [" + std::to_string(tokens) + ", " + std::to_string(heads) + ", " + std::to_string(d) + "] " + x.label +
            " eps=" + std::to_string(eps) + (in_place ? " y==x" : "") + (bad.empty() ? "" : " " + bad);
  return c;
}

tl_status qk_norm_status(const Case& c) {
  const int64_t t = c.iparam("tokens"), h = c.iparam("heads"), d = c.iparam("D");
  const double eps = c.param("eps");
  if (t < 0 || h < 0 || d < 0 || !fits({t, h, d})) return TL_ERR_INVALID_ARGUMENT;
  if (!(eps >= 0) || std::isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
  if (d == 0) return TL_ERR_SHAPE;
  return TL_OK;
}

Oracle qk_norm_oracle(const Case& c) {
  if (tl_status st = qk_norm_status(c)) return {{"status", status_expected(st)}};
  const int64_t t = c.iparam("tokens"), h = c.iparam("heads"), d = c.iparam("D");
  Expected y;
  y.value.resize(static_cast<size_t>(t * h * d));
  std::vector<float> xs;
  ref::qk_norm<double>(floats_of(c.in("x"), xs), c.in("g").f32(), y.value.data(), t, h, d,
                       static_cast<float>(c.param("eps")));
  for (double v : y.value) y.scale.push_back(std::fabs(v));  // as RmsNorm: x_i * inv * g_i
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// In f16 and bf16: x and y of the dtype, g f32, as the half RmsNorm.
OpSpec qk_norm_spec(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "QkNorm_" + dtype : "QkNorm";
  op.dtype = t;
  op.args = {{"x", Access::in, "T", "tokens, heads, D"},
             {"g", Access::in, half ? "f32" : "T", "D"},
             {"y", Access::out, "T", "tokens, heads, D", {Match::tolerance}, {"x"}},
             status_output()};
  const ToleranceRule f32{DType::f32, "16", "1e-6",
                          "RmsNorm of each head's head_dim values (spec: 'Tolerance: same as RmsNorm'): RmsNorm's <= "
                          "13 u of |y|; the spec's 1e-6 = 16.8 u is the ceiling; pairwise-accurate sums are a "
                          "contract requirement, as for RmsNorm (docs/tolerances.md)"};
  op.tolerances = {half ? half_rule(t, f32, t == DType::f16 ? "1e-3" : "-") : f32};  // as RmsNorm's
  op.group = "attention";
  op.symbol = "tl_qk_norm_" + dtype;
  op.summary =
      "QK-norm: RmsNorm of each head of x[tokens, num_heads, head_dim] over head_dim alone, gain [head_dim]; "
      "y == x allowed; validates";
  if (half) op.summary += "; x and y " + dtype + ", g f32, the sum of squares in f32";
  op.spec = "operations.txt 5. Attention: QK-norm (Qwen3, DeepSeek-V3)";
  op.params = {{"tokens", ParamType::i64, ">= 0"},
               {"heads", ParamType::i64, "num_heads: >= 0; x's bytes within int64_t"},
               {"D", ParamType::i64, "head_dim: >= 1 (0: TL_ERR_SHAPE)"},
               {"eps", ParamType::f32, "finite, >= 0"}};
  op.domain =
      "RmsNorm's rows (every value class up to |x| <= 1e15, rows far from zero), one per head; eps = 0 only "
      "where the mean square is a normal float; 10% refused arguments";
  if (half)
    op.domain = "the half RmsNorm's rows rounded to " + dtype + (t == DType::f16 ? " (folded below 2^15)" : "") +
                ", and rows of |x| from 256 up (" + (t == DType::f16 ? "65504" : "2^40") +
                "), whose squares overflow f16; " + op.domain.substr(op.domain.find("eps = 0"));
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(norm::edge_widths().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_qk_norm(t, rng, i, edges); };
  if (half) declare_c_call<decltype(tl_qk_norm_f16)>(op, {"x", "g", "y", "tokens", "heads", "D", "eps"});  // bf16 alike
  else declare_c_call<decltype(tl_qk_norm_f32)>(op, {"x", "g", "y", "tokens", "heads", "D", "eps"});
  op.oracle = qk_norm_oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> attention() {
  OpSpec sdpa = sdpa_spec("Sdpa", "tl_sdpa_f32",
                          "y = Softmax(q k^T / sqrt(D) + causal(-1e4) + mask) v, q [B,H,Sq,D], k, v [B,KV,Sk,D], GQA "
                          "by repeat_interleave; validates",
                          "operations.txt 5. Attention: Sdpa (Scaled Dot-Product Attention)",
                          {{DType::f32, "74+2n; strict 76", "-",
                            "the exp budget (<= 4 ulp, 8 u) in the softmax's e_j and its sum: 12 u above the analysis "
                            "below's 2 u exps, 76 (strict: pairwise-accurate sums); default: the sums over Sk keys (sum"
                            " e_j and sum e_j v_j) in any order, (Sk - 1) u each, and the dot products over D in any "
                            "order, (D - 1) u of their |q||k| terms, in place of the pairwise terms: <= 38 + 2n u, n = "
                            "max(Sk, D), 74 + 2n also covering the strict 76. The analysis: scale sum_j p_j (|v_j| + "
                            "E_j |v_j - y|), E_j = 1 + |q||k_j|/sqrt(D) + |s_j| + |s_j - max| + masks added: the "
                            "weighted sum of p_j v_j (simd: float over <= 32 keys then double, <= 32 u; scalar: "
                            "pairwise, <= 7 + log2(Sk/8): 13 u for Sk <= 300, 18 u for the sweep's long contexts, Sk <="
                            " 16384), each p_j from the softmax (Softmax's <= 23 u) and 1/sum 1 u: <= 56 u of sum p_j "
                            "|v_j|; score errors ds_j move y by sum_j p_j ds_j (v_j - y), ds_j <= ~10 u of the dot "
                            "product's |q||k_j| terms (D <= 128), 1 u of |s_j| per product or mask addition (-1e4 + s "
                            "rounds at 1e4 u), ~2 u of the exp and u |s_j - max|: <= 12 u of the E_j term; a plain "
                            "left-to-right float kernel (chains of up to Sk - 1 roundings, outside this bound) measured"
                            " <= 22 u here and <= 46 u in SdpaCross on the sweep (its long contexts included), but 112 "
                            "u on harder rows at Sk = 16384: the sums over keys are under the pairwise summation "
                            "contract at long contexts (docs/tolerances.md)"}});
  OpSpec flash =
      sdpa_spec("FlashAttention", "tl_flash_attention_f32",
                "Sdpa by tiles of keys with an online softmax (no score matrix); judged against Sdpa's "
                "oracle; validates",
                "operations.txt 5. Attention: FlashAttention",
                {{DType::f32, "106+2n; strict 108", "-",
                  "Sdpa's exp budget (12 u) and default (any-order sums over n = max(Sk, D): 2n in place of "
                  "the pairwise terms) on top of: Sdpa's analysis and scale (judged against Sdpa's oracle) "
                  "plus the online softmax: each of the Sk / 32 tiles folds its own sum and products (<= 32 "
                  "terms, float) into the running ones after a rescale by exp(m_old - m_new): float running "
                  "sums take <= 2 roundings per tile, <= 20 u more of sum p_j |v_j| at Sk <= 300 (10 tiles); "
                  "both backends fold into double running sums, which add nothing per tile at any Sk (the "
                  "scalar kernel: 32-key float tiles; the simd kernel: per 64-key tile its two 32-key float "
                  "chains added in float, <= 33 roundings, 1 u more than Sdpa's blocks); float running sums "
                  "left to right across the tiles measured <= 22 u on the sweep (its long contexts included, "
                  "Sk <= 16384), under the pairwise summation contract at long contexts as Sdpa"}});

  OpSpec cross;
  cross.name = "SdpaCross";
  cross.args = {{"q", Access::in, "T", "B, H, Sq, D"},
                {"k", Access::in, "T", "B, H, Sk, D"},
                {"v", Access::in, "T", "B, H, Sk, D"},
                {"y", Access::out, "T", "B, H, Sq, D"},
                status_output()};
  cross.tolerances = {{DType::f32, "74+2n; strict 76", "-",
                       "Sdpa's limits (exp budget 12 u more, any order 2n by default, n = max(Sk, D)): Sdpa "
                       "without masks, kv_heads = num_heads: Sdpa's analysis and scale"}};
  cross.group = "attention";
  cross.symbol = "tl_sdpa_cross_f32";
  cross.summary =
      "y = Softmax(q k^T / sqrt(D)) v, q [B,H,Sq,D] (decoder), k, v [B,H,Se,D] (encoder); no mask; validates";
  cross.spec = "operations.txt 5. Attention: SdpaCross";
  cross.params = {{"B", ParamType::i64, "batch: >= 0"},
                  {"H", ParamType::i64, "num_heads: >= 1"},
                  {"KV", ParamType::i64, "equal to H (not passed: k and v have num_heads heads)"},
                  {"Sq", ParamType::i64, "decoder length: >= 0"},
                  {"Sk", ParamType::i64, "Se, encoder length: >= 0; >= 1 when Sq >= 1 (else TL_ERR_SHAPE)"},
                  {"D", ParamType::i64, "head_dim: >= 1 (0: TL_ERR_SHAPE); q's and k's bytes within int64_t"}};
  cross.domain = std::string(kSdpaDomain).substr(0, std::string(kSdpaDomain).find("; masks")) +
                 "; decoder and encoder lengths independent, every 64th case Se 2048-16384; 8% refused arguments";
  cross.status = "status";
  cross.edge_cases = static_cast<int64_t>(edge_shapes().size());
  cross.make_case = [edges = cross.edge_cases](Rng& rng, int64_t i) { return make_cross(rng, i, edges); };
  declare_c_call<decltype(tl_sdpa_cross_f32)>(cross, {"q", "k", "v", "y", "B", "H", "Sq", "Sk", "D"});
  cross.oracle = sdpa_oracle;
  cross.sum_length = attention_sum_length;

  OpSpec window;
  window.name = "SdpaWindow";
  window.args = {{"q", Access::in, "T", "B, H, Sq, D"},
                 {"k", Access::in, "T", "B, H, Sq, D"},
                 {"v", Access::in, "T", "B, H, Sq, D"},
                 {"y", Access::out, "T", "B, H, Sq, D"},
                 status_output()};
  window.tolerances = {{DType::f32, "74+2n; strict 76", "-",
                        "Sdpa's limits (exp budget 12 u more, any order 2n by default, n = max(window, D)): Sdpa "
                        "over each window's keys (<= 64 here), non-causal: Sdpa's analysis and scale over the "
                        "window"}};
  window.group = "attention";
  window.symbol = "tl_sdpa_window_f32";
  window.summary =
      "Sdpa inside each window of `window` consecutive positions, q, k, v [B,H,S,D], S % window == 0; "
      "validates";
  window.spec = "operations.txt 5. Attention: SdpaWindow";
  window.params = {{"B", ParamType::i64, "batch: >= 0"},
                   {"H", ParamType::i64, "num_heads: >= 1"},
                   {"KV", ParamType::i64, "equal to H (not passed)"},
                   {"Sq", ParamType::i64, "S, the sequence: >= 0, a multiple of window (else TL_ERR_SHAPE)"},
                   {"Sk", ParamType::i64, "equal to Sq (not passed)"},
                   {"D", ParamType::i64, "head_dim: >= 1 (0: TL_ERR_SHAPE); q's bytes within int64_t"},
                   {"window", ParamType::i64, ">= 1, divides S"}};
  window.domain =
      cross.domain.substr(0, cross.domain.find("; decoder")) + "; windows 1..64, S up to 128; 10% refused arguments";
  window.status = "status";
  window.edge_cases = static_cast<int64_t>(edge_windows().size());
  window.make_case = [edges = window.edge_cases](Rng& rng, int64_t i) { return make_window(rng, i, edges); };
  declare_c_call<decltype(tl_sdpa_window_f32)>(window, {"q", "k", "v", "y", "B", "H", "Sq", "D", "window"});
  window.oracle = sdpa_oracle;
  window.sum_length = attention_sum_length;

  std::vector<OpSpec> ops = {sdpa, flash, cross, window, qk_norm_spec(DType::f32)};
  for (const DType t : {DType::f16, DType::bf16}) {  // the f16 and bf16 twins, bf16 declared alike
    for (const OpSpec* f32 : {&sdpa, &flash}) {
      OpSpec h = attention_half(*f32, t);
      h.invoke = invoke_sdpa_half;
      ops.push_back(std::move(h));
    }
    OpSpec c = attention_half(cross, t), w = attention_half(window, t);
    declare_c_call<decltype(tl_sdpa_cross_f16)>(c, {"q", "k", "v", "y", "B", "H", "Sq", "Sk", "D"});
    declare_c_call<decltype(tl_sdpa_window_f16)>(w, {"q", "k", "v", "y", "B", "H", "Sq", "D", "window"});
    ops.push_back(std::move(c));
    ops.push_back(std::move(w));
    ops.push_back(qk_norm_spec(t));
  }
  return ops;
}

}  // namespace konform::ops
