// Softmax of spec/operations.txt section 4 along any axis of a rank 1..4
// tensor: m = max, e = exp(x - m), y = e / sum(e) (tinyllm/activations.h).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "activation_support.hpp"
#include "half_support.hpp"
#include "konform/op.hpp"
#include "konform/reference/activations.hpp"
#include "tinyllm/activations.h"

namespace konform::ops {

std::vector<OpSpec> softmax();

namespace {

constexpr int kMaxRank = 4;

// The shape the kernel is handed: "rank", "axis" and "d0".."d4" in the params.
std::vector<int64_t> dims_of(const Case& c) {
  std::vector<int64_t> dims;
  for (int k = 0; k < 5; ++k) {
    const auto it = c.params.find("d" + std::to_string(k));
    dims.push_back(it == c.params.end() ? 0 : static_cast<int64_t>(it->second));
  }
  return dims;
}

// The header's rules, read independently of impl/: rank 1..4, -rank <= axis
// < rank, no negative dim, non-zero dims whose product fits int64_t.
tl_status expected_status(const std::vector<int64_t>& dims, int64_t rank, int64_t axis) {
  if (rank < 1 || rank > kMaxRank) return TL_ERR_INVALID_ARGUMENT;
  if (axis < -rank || axis >= rank) return TL_ERR_INVALID_ARGUMENT;
  long double product = 1;
  for (int64_t k = 0; k < rank; ++k) {
    if (dims[k] < 0) return TL_ERR_INVALID_ARGUMENT;
    if (dims[k] > 0) product *= static_cast<long double>(dims[k]);
  }
  if (product > static_cast<long double>(INT64_MAX)) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

struct Split {
  int64_t outer = 1, length = 1, inner = 1;
};

Split split(const std::vector<int64_t>& dims, int64_t rank, int64_t axis) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  Split s;
  for (int64_t k = 0; k < rank; ++k) {
    if (k < a) s.outer *= dims[k];
    else if (k == a) s.length = dims[k];
    else s.inner *= dims[k];
  }
  return s;
}

// The value classes of a softmax: logits at several temperatures, the spec's
// saturation cases (+-1e30, -1e4 masks, -Inf masks), a shared offset that
// overflows exp without the max subtraction, and the generic classes.
enum class Logits {
  normal,
  normal10,
  normal100,
  offset1000,
  huge,
  masked,
  masked_inf,
  wide,
  ties,
  specials,
  tiny,
  zeros
};
constexpr Logits kAllLogits[] = {Logits::normal, Logits::normal10, Logits::normal100,  Logits::offset1000,
                                 Logits::huge,   Logits::masked,   Logits::masked_inf, Logits::wide,
                                 Logits::ties,   Logits::specials, Logits::tiny,       Logits::zeros};
const char* logits_name(Logits k) {
  const char* names[] = {"normal",     "normal*10", "normal*100", "normal+1000", "+-1e30", "-1e4 masks",
                         "-inf masks", "wide",      "ties",       "specials",    "tiny",   "zeros"};
  return names[static_cast<int>(k)];
}

// In f16, whose range ends at 65504, the saturating logits are +-65504.
std::vector<float> logits(Rng& rng, Logits k, int64_t n, DType t) {
  const float big = t == DType::f16 ? 65504.0f : 1e30f;
  std::vector<float> v(static_cast<size_t>(n));
  const auto normal = [&] { return make_values(rng, ValueClass::normal, 1)[0]; };
  for (float& x : v) {
    switch (k) {
      case Logits::normal: x = normal(); break;
      case Logits::normal10: x = 10.0f * normal(); break;
      case Logits::normal100: x = 100.0f * normal(); break;
      case Logits::offset1000: x = 1000.0f + 4.0f * normal(); break;
      case Logits::huge: x = rng.chance(0.5) ? big : rng.chance(0.5) ? -big : normal(); break;
      case Logits::masked: x = rng.chance(0.4) ? -1e4f : normal(); break;
      case Logits::masked_inf: x = rng.chance(0.4) ? -std::numeric_limits<float>::infinity() : normal(); break;
      case Logits::wide: x = make_values(rng, ValueClass::wide, 1)[0]; break;
      case Logits::ties: x = make_values(rng, ValueClass::ties, 1)[0]; break;
      case Logits::specials: x = make_values(rng, ValueClass::specials, 1)[0]; break;
      case Logits::tiny: x = make_values(rng, rng.chance(0.5) ? ValueClass::tiny : ValueClass::subnormal, 1)[0]; break;
      case Logits::zeros: x = make_values(rng, ValueClass::zeros, 1)[0]; break;
    }
  }
  return v;
}

// A shape of rank 1..4 with at most a few thousand elements; the softmax
// axis sometimes long (an edge size up to 4097) with the others short.
std::vector<int64_t> random_shape(Rng& rng, int64_t rank, int64_t axis) {
  const int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33};
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  const int64_t a = axis < 0 ? axis + rank : axis;
  int64_t budget = 6000;
  for (int64_t k = 0; k < rank; ++k) {
    int64_t d = rng.chance(0.5) ? rng.pick(small) : rng.range(1, 40);
    if (k == a && rng.chance(0.4)) d = rng.chance(0.5) ? rng.pick(edge_sizes()) : rng.range(1, 700);
    if (rng.chance(0.03)) d = 0;
    dims[static_cast<size_t>(k)] = d;
  }
  // Shrink the dims other than the axis until the tensor fits the budget.
  for (int64_t k = 0; k < rank; ++k) {
    int64_t total = 1;
    for (int64_t d : dims) total *= std::max<int64_t>(d, 1);
    if (total <= budget) break;
    if (k != a) dims[static_cast<size_t>(k)] = std::max<int64_t>(1, dims[static_cast<size_t>(k)] * budget / total);
  }
  return dims;
}

// The last edge cases: two softmaxes of rows whose output is 16 MiB and more;
// the half twins keep the in-place one (a kernel that widens runs the f32
// code on them, which the f32 op's pair already drives), a second of their
// time they cost the budget of the default run.
int64_t streamed_edges(DType t) { return t == DType::f32 ? 2 : 1; }

Case make(DType t, Rng& rng, int64_t index) {
  const auto& sizes = edge_sizes();
  int64_t rank, axis;
  std::vector<int64_t> dims;
  bool invalid = false;
  const int64_t lines = static_cast<int64_t>(sizes.size());
  if (index < lines) {  // one contiguous line of every edge length
    rank = 1;
    axis = rng.chance(0.5) ? 0 : -1;
    dims = {sizes[static_cast<size_t>(index)]};
  } else if (index < lines + streamed_edges(t)) {
    // Rows into an output of 16 MiB and more, which libtl_kernels writes with
    // non-temporal stores (impl/simd/stream-inl.h): rows of 4097, so most
    // start off a vector boundary; the second one in place.
    rank = 2;
    axis = 1;
    dims = {1025, 4097};
  } else if (rng.chance(0.08)) {  // arguments the header refuses
    invalid = true;
    rank = rng.range(1, kMaxRank);
    axis = rng.range(-rank, rank - 1);
    dims.assign(5, 3);
    switch (rng.range(0, 5)) {
      case 0: rank = 0; break;
      case 1: rank = 5; break;
      case 2: axis = rank; break;
      case 3: axis = -rank - 1; break;
      case 4: dims[static_cast<size_t>(rng.range(0, rank - 1))] = -rng.range(1, 3); break;
      default:  // non-zero dims whose product passes INT64_MAX
        rank = kMaxRank;
        dims = {int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 2, 1, 1};
    }
  } else {
    rank = rng.range(1, kMaxRank);
    axis = rng.range(-rank, rank - 1);
    dims = random_shape(rng, rank, axis);
  }
  dims.resize(5, 0);

  const bool valid = expected_status(dims, rank, axis) == TL_OK;
  std::vector<int64_t> shape;  // of the buffers: a small one when refused
  if (valid) shape.assign(dims.begin(), dims.begin() + rank);
  else shape = {16};
  int64_t n = 1;
  for (int64_t d : shape) n *= d;

  const Logits kind = rng.pick(kAllLogits);
  const int64_t streamed = streamed_edges(t);
  const bool in_place = index == lines + streamed - 1 || (index >= lines + streamed && rng.chance(0.3));
  Case c;
  c.params = {{"rank", double(rank)}, {"axis", double(axis)}};
  for (int k = 0; k < 5; ++k) c.params["d" + std::to_string(k)] = double(dims[static_cast<size_t>(k)]);
  c.args.push_back(act::status_arg());
  const std::vector<float> x = logits(rng, kind, n, t);
  c.args.push_back({"x", Access::in, t == DType::f32 ? Tensor::of_f32(shape, x) : Tensor::of_half(t, shape, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape), Match::tolerance, in_place ? "x" : ""});
  std::string s = "[";
  for (int64_t k = 0; k < std::max<int64_t>(rank, 0) && k < 5; ++k) s += (k ? ", " : "") + std::to_string(dims[k]);
  c.label = "shape=" + s + "] rank=" + std::to_string(rank) + " axis=" + std::to_string(axis) +
            " x=" + logits_name(kind) + (in_place ? " y==x" : "") + (invalid ? " (refused)" : "");
  return c;
}

// Per element, y* and the scale y* (1 + |d_i| + sum_j y*_j |d_j|), d = x - max:
// an f32 kernel rounds x_i - max (relative u, so u |d_i| in e_i) and every
// other d_j (u sum_j y_j |d_j| in the sum); the limit bounds the rest.
Oracle oracle(const Case& c) {
  const auto dims = dims_of(c);
  const int64_t rank = c.iparam("rank"), axis = c.iparam("axis");
  const tl_status st = expected_status(dims, rank, axis);
  Oracle out;
  out["status"] = act::status_expected(st);
  if (st != TL_OK) return out;
  const Split s = split(dims, rank, axis);
  std::vector<float> xs(static_cast<size_t>(c.in("x").elements()));  // exact for f32 and the half dtypes
  for (size_t k = 0; k < xs.size(); ++k) xs[k] = static_cast<float>(c.in("x").at(static_cast<int64_t>(k)));
  const float* x = xs.data();
  Expected e;
  e.value.resize(static_cast<size_t>(s.outer * s.length * s.inner));
  e.scale.assign(e.value.size(), 0.0);
  reference::act::softmax<double>(x, e.value.data(), s.outer, s.length, s.inner);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t j = 0; j < s.inner; ++j) {
      const int64_t base = o * s.length * s.inner + j;
      double m = -INFINITY;
      for (int64_t l = 0; l < s.length; ++l) m = std::fmax(m, double(x[base + l * s.inner]));
      const auto term = [&](int64_t l) {  // y_l |d_l|, 0 where y_l is (d_l may be -inf)
        const double y = e.value[base + l * s.inner];
        return y == 0 || !std::isfinite(y) ? 0.0 : y * std::fabs(double(x[base + l * s.inner]) - m);
      };
      double spread = 0;
      for (int64_t l = 0; l < s.length; ++l) spread += term(l);
      for (int64_t l = 0; l < s.length; ++l) {
        const double y = e.value[base + l * s.inner];
        const double d = std::fabs(double(x[base + l * s.inner]) - m);
        e.scale[base + l * s.inner] = y == 0 || !std::isfinite(y) ? 0.0 : y * (1.0 + d + spread);
      }
    }
  out["y"] = e;
  return out;
}

// In f16 and bf16: the f32 computation from the exact half input, rounded
// once (half_rule).
OpSpec softmax_op(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "Softmax_" + dtype : "Softmax";
  op.dtype = t;
  op.args = {status_output(),
             {"x", Access::in, "T", "d#[rank]"},
             {"y", Access::out, "T", "d#[rank]", {Match::tolerance}, {"x"}}};
  const ToleranceRule f32{DType::f32, "37+1n; strict 38", "-",
                          "scale y (1 + |d_i| + sum_j y_j |d_j|), d = x - max, covers rounding x - max; each e_j from"
                          " the exp budget (<= 4 ulp, 8 u) (e_i's 8 u and the sum's 8 u), 1/sum and e_i * (1/sum) or "
                          "e_i / sum 2 u: 18 u; the sum of the L = n terms e_j > 0 (condition 1) in any order <= (n -"
                          " 1) u: 17 + n, written 37 + n so that it never falls below the strict 38, by default "
                          "(serial lanes along any axis pass: oneDNN and PyTorch measured up to 813 u at L = 16384, "
                          "inside); strict: the sum pairwise-accurate (7 + log2(L/8) <= 20 roundings for L <= 2^16, "
                          "or float lanes of <= 8 terms added into a double, <= 14): 38"};
  op.tolerances = {half ? half_rule(t, f32) : f32};
  op.group = "activations";
  op.symbol = "tl_softmax_" + dtype;
  op.summary = "y = exp(x - max) / sum(exp(x - max)) along `axis` of a rank 1..4 tensor; y == x allowed";
  if (half) op.summary += "; " + dtype + " in and out, max, exp and sum in f32";
  op.spec = "operations.txt 4. Activation: Softmax";
  op.params = {{"rank", ParamType::i32, "1 .. 4"},
               {"axis", ParamType::i32, "-rank <= axis < rank (negative counts from the end)"},
               {"d#", ParamType::i64,
                "the shape: d0 .. d{rank-1}, each >= 0, the non-zero ones' product <= INT64_MAX (others refused "
                "with TL_ERR_INVALID_ARGUMENT, writing nothing); d{rank} .. d4 unused"}};
  op.domain =
      "logits N(0, s^2) for s = 1, 10, 100, offset by 1000, +-1e30, -1e4 and -Inf masks, wide, ties, tiny, "
      "NaN/Inf (their lines are NaN); shapes up to ~6000 elements, axis lengths up to 4097, empty dims, "
      "two of 1025 x 4097; 8% refused arguments";
  if (half) {
    op.domain = "the f32 op's logits rounded to " + dtype + (t == DType::f16 ? " (+-65504 for +-1e30)" : "") + "; " +
                op.domain.substr(op.domain.find("shapes"));
    op.domain.replace(op.domain.find("two of"), 6, "one of");
  }
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size()) + streamed_edges(t);
  op.make_case = [t](Rng& rng, int64_t i) { return make(t, rng, i); };
  if (half)
    op.invoke = [](const KernelFn& fn, const Case& c, const Pointers& p) {
      const auto dims = dims_of(c);
      *p.i32("status") = fn.call<decltype(tl_softmax_f16)>(  // bf16 alike
          fn.arg(static_cast<const uint16_t*>(p.get("x"))), fn.arg(static_cast<uint16_t*>(p.get("y"))), dims.data(),
          c.iparam32("rank"), c.iparam32("axis"));
    };
  else
    op.invoke = [](const KernelFn& fn, const Case& c, const Pointers& p) {
      const auto dims = dims_of(c);
      *p.i32("status") = fn.call<decltype(tl_softmax_f32)>(fn.arg(p.f32("x")), fn.arg(p.f32("y")), dims.data(),
                                                           c.iparam32("rank"), c.iparam32("axis"));
    };
  op.oracle = oracle;
  op.sum_length = [](const Case& c) {  // the line: sum_j e_j along the axis
    const auto dims = dims_of(c);
    const int64_t rank = c.iparam("rank"), axis = c.iparam("axis");
    return expected_status(dims, rank, axis) == TL_OK ? split(dims, rank, axis).length : int64_t{0};
  };
  return op;
}

}  // namespace

std::vector<OpSpec> softmax() { return {softmax_op(DType::f32), softmax_op(DType::f16), softmax_op(DType::bf16)}; }

}  // namespace konform::ops
