// Properties of the tensor ops (tinyllm/tensor.h, spec/operations.txt §1):
// the facts of broadcasting, of IEEE arithmetic, of the numerical-stability
// ops and of the layout ops, each stated so that it can fail; the mutant
// named beside each in mutants/manifest.tsv breaks it.
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <numeric>

#include "konform/properties.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/reference/tensor.hpp"
#include "support.hpp"
#include "tensor_calls.hpp"

namespace konform {
namespace {

using namespace props;
namespace tc = calls::tensor;
using Shape = std::vector<int64_t>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// A shape of `rank` dimensions of 1..max_dim, 1 now and then.
Shape gen_shape(int64_t rank, int64_t max_dim) {
  Shape s(static_cast<size_t>(rank));
  for (int64_t& d : s) d = *rc::gen::element(true, false, false) ? 1 : *rc::gen::inRange<int64_t>(1, max_dim + 1);
  return s;
}

// Two shapes that broadcast: a suffix of the result's each, with dimensions
// turned into 1 at random.
struct Pair {
  Shape a, b, y;
};
Pair gen_broadcast_pair() {
  Pair p;
  const int64_t rank = *rc::gen::inRange<int64_t>(0, 5);
  const Shape full = gen_shape(rank, 9);
  auto operand = [&](int64_t r) {
    Shape s(full.end() - r, full.end());
    for (int64_t& d : s)
      if (*rc::gen::element(true, false, false)) d = 1;
    return s;
  };
  const bool a_full = *rc::gen::arbitrary<bool>();
  const int64_t other = *rc::gen::inRange<int64_t>(0, rank + 1);
  p.a = operand(a_full ? rank : other);
  p.b = operand(a_full ? other : rank);
  reference::broadcast_shapes(p.a, p.b, &p.y);
  return p;
}

// x broadcast to `to` and written out: NumPy's rule spelled out with
// explicit indices (aligned right, a 1 repeats).
std::vector<float> expand(const std::vector<float>& x, const Shape& from, const Shape& to) {
  std::vector<float> out(static_cast<size_t>(tc::count(to)));
  const size_t pad = to.size() - from.size();
  for (int64_t k = 0; k < tc::count(to); ++k) {
    int64_t rest = k, src = 0, step = 1;
    for (size_t d = to.size(); d-- > 0;) {
      const int64_t i = rest % to[d];
      rest /= to[d];
      if (d >= pad) {
        const int64_t extent = from[d - pad];
        src += (extent == 1 ? 0 : i) * step;
        step *= extent;
      }
    }
    out[static_cast<size_t>(k)] = x[static_cast<size_t>(src)];
  }
  return out;
}

// ---------------------------------------------------------------- arithmetic

void add_hand_example(const Backend& b) {
  const auto r = tc::broadcast(b, "Add", {1, 2, 3, 4, 5, 6}, {2, 3}, {10, 20, 30}, {3}, {2, 3});
  RC_ASSERT(r.status == TL_OK);
  RC_ASSERT((r.y == std::vector<float>{11, 22, 33, 14, 25, 36}));
}

void mul_hand_example(const Backend& b) {  // an outer product by broadcasting
  const auto r = tc::broadcast(b, "Mul", {1, 2}, {2, 1}, {3, 4}, {2}, {2, 2});
  RC_ASSERT(r.status == TL_OK);
  RC_ASSERT((r.y == std::vector<float>{3, 4, 6, 8}));
}

// op(a, b) with broadcasting gives the bits of op on the operands expanded
// to the result's shape by hand.
void broadcasting_equals_explicit_expansion(const Backend& b, const std::string& op) {
  const Pair p = gen_broadcast_pair();
  const auto a = finite_floats(tc::count(p.a)), bv = finite_floats(tc::count(p.b));
  const auto broadcast = tc::broadcast(b, op, a, p.a, bv, p.b, p.y);
  RC_ASSERT(broadcast.status == TL_OK);
  const auto explicit_ = tc::broadcast(b, op, expand(a, p.a, p.y), p.y, expand(bv, p.b, p.y), p.y, p.y);
  RC_ASSERT(explicit_.status == TL_OK);
  for (size_t k = 0; k < broadcast.y.size(); ++k) RC_ASSERT(same_bits(broadcast.y[k], explicit_.y[k]));
}

// a + b and b + a (a * b and b * a) are the same bits, whichever side
// broadcasts; finite operands, so no NaN payload can pick a side.
void commutes_bitwise(const Backend& b, const std::string& op) {
  const Pair p = gen_broadcast_pair();
  const auto a = finite_floats(tc::count(p.a)), bv = finite_floats(tc::count(p.b));
  const auto ab = tc::broadcast(b, op, a, p.a, bv, p.b, p.y), ba = tc::broadcast(b, op, bv, p.b, a, p.a, p.y);
  RC_ASSERT(ab.status == TL_OK && ba.status == TL_OK);
  for (size_t k = 0; k < ab.y.size(); ++k) RC_ASSERT(same_bits(ab.y[k], ba.y[k]));
}

// x - x is +0 (round to nearest) for every finite x, alone, broadcast
// against itself as a row, and in place.
void sub_of_itself_is_positive_zero(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(1, 300);
  auto x = finite_floats(n);
  x[0] = -0.0f;
  const auto same = tc::broadcast(b, "Sub", x, {n}, x, {n}, {n});
  const auto in_place = tc::broadcast(b, "Sub", x, {n}, x, {n}, {n}, "a");
  RC_ASSERT(same.status == TL_OK && in_place.status == TL_OK);
  for (int64_t i = 0; i < n; ++i) {
    RC_ASSERT(bits(same.y[i]) == 0u);
    RC_ASSERT(bits(in_place.y[i]) == 0u);
  }
  const auto rows = tc::broadcast(b, "Sub", expand(x, {n}, {3, n}), {3, n}, x, {n}, {3, n});
  for (float v : rows.y) RC_ASSERT(bits(v) == 0u);
}

// Operand pairs whose quotients are the hard ones to round: random finite
// floats, and (a, b) with a/b just below or above a power of two, b's
// significand all ones against a power of two a (where a Newton quotient
// from a faithful reciprocal is one ulp low), a short significand over a
// long one, and quotients near the subnormals and near overflow.
std::pair<std::vector<float>, std::vector<float>> hard_quotients(int64_t n) {
  std::vector<float> a = finite_floats(n), d = finite_floats(n);
  for (int64_t i = 0; i < n; ++i) {
    const float sa = *rc::gen::element(1.0f, -1.0f), sb = *rc::gen::element(1.0f, -1.0f);
    const int ea = *rc::gen::inRange(-30, 31), eb = *rc::gen::inRange(-30, 31);
    const float m = static_cast<float>(*rc::gen::inRange(0, 64));
    switch (*rc::gen::inRange(0, 6)) {
      case 0: break;  // as drawn
      case 1:         // b = 2^eb (2 - 2^-23), a = 2^ea (1 + m 2^-23)
        d[i] = sb * std::ldexp(2.0f - 0x1p-23f, eb);
        a[i] = sa * std::ldexp(1.0f + m * 0x1p-23f, ea);
        break;
      case 2: {  // a/b within m 2^-30 of 2^ea, either side
        const double side = *rc::gen::element(-1.0, 1.0);
        a[i] = static_cast<float>(static_cast<double>(d[i]) * std::ldexp(1.0 + side * m * 0x1p-30, ea));
        break;
      }
      case 3:  // a with a short significand
        a[i] = sa * std::ldexp(1.0f + m * 0x1p-6f, ea);
        break;
      case 4:  // quotients around 2^-126 .. 2^-149
        a[i] = sa * std::ldexp(1.0f + m * 0x1p-7f, -100 - *rc::gen::inRange(0, 26));
        d[i] = sb * std::ldexp(1.0f + m * 0x1p-9f, *rc::gen::inRange(20, 50));
        break;
      default:  // quotients around FLT_MAX
        a[i] = sa * std::ldexp(1.0f + m * 0x1p-7f, *rc::gen::inRange(100, 128));
        d[i] = sb * std::ldexp(1.0f + m * 0x1p-9f, -*rc::gen::inRange(0, 28));
        break;
    }
    if (!(a[i] == a[i] && std::isfinite(a[i]))) a[i] = 1.0f;  // (a double product past FLT_MAX)
  }
  return {a, d};
}

// IEEE division: x/+-0 is +-Inf by the signs, 0/0, Inf/Inf and NaN/x are
// NaN, and finite quotients are the correctly rounded float quotient, for
// the hard cases above too, over lengths that reach every loop of a kernel.
void div_follows_ieee(const Backend& b) {
  const std::vector<float> num = {1, -1, 1, -1, 0, -0.0f, kInf, 5, kNaN, 3};
  const std::vector<float> den = {0, 0, -0.0f, -0.0f, 0, 0, kInf, kInf, 1, kNaN};
  const auto r = tc::broadcast(b, "Div", num, {10}, den, {10}, {10});
  RC_ASSERT(r.status == TL_OK);
  RC_ASSERT(r.y[0] == kInf && r.y[1] == -kInf && r.y[2] == -kInf && r.y[3] == kInf);
  RC_ASSERT(std::isnan(r.y[4]) && std::isnan(r.y[5]) && std::isnan(r.y[6]));
  RC_ASSERT(bits(r.y[7]) == 0u);
  RC_ASSERT(std::isnan(r.y[8]) && std::isnan(r.y[9]));

  const int64_t n = *rc::gen::inRange<int64_t>(1, 1200);
  const auto [a, d] = hard_quotients(n);
  const auto q = tc::broadcast(b, "Div", a, {n}, d, {n}, {n});
  RC_ASSERT(q.status == TL_OK);
  for (int64_t i = 0; i < n; ++i) RC_ASSERT(same_bits(q.y[i], a[i] / d[i]));
}

// ---------------------------------------------------------------- Clamp

// Every number lands in [lo, hi]; numbers already inside keep their bits,
// those outside become the bound; NaN stays NaN; clamping twice changes
// nothing.
void clamp_is_idempotent_and_within_bounds(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(0, 300);
  auto x = finite_floats(n);
  for (float& v : x) {
    const int pick = *rc::gen::inRange(0, 20);
    if (pick == 0) v = kNaN;
    else if (pick == 1) v = *rc::gen::element(kInf, -kInf, 0.0f, -0.0f);
  }
  float lo = *rc::gen::element(-1.0f, 0.0f, -kInf, -1e6f, 0.5f), hi = *rc::gen::element(1.0f, 6.0f, kInf, 1e6f, 0.5f);
  if (lo > hi) std::swap(lo, hi);
  const auto once = tc::clamp(b, x, lo, hi);
  RC_ASSERT(once.status == TL_OK);
  const auto twice = tc::clamp(b, once.y, lo, hi);
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i], y = once.y[i];
    RC_ASSERT(same_bits(twice.y[i], y));
    if (std::isnan(v)) {
      RC_ASSERT(std::isnan(y));
      continue;
    }
    RC_ASSERT(y >= lo && y <= hi);
    if (v < lo) RC_ASSERT(same_bits(y, lo));
    else if (v > hi) RC_ASSERT(same_bits(y, hi));
    else if (v == 0 && (lo == 0 || hi == 0)) RC_ASSERT(y == 0);  // either zero: an open edge (docs/tolerances.md)
    else RC_ASSERT(same_bits(y, v));
  }
}

// ---------------------------------------------------------------- NanToNum

// The header's defaults (the spec's nan = 0, posinf = F32_MAX, neginf =
// F32_MIN, read as Rust's f32::MIN = -FLT_MAX): -Inf must not become C's
// FLT_MIN, a tiny positive number; finite values keep their bits.
void nan_to_num_defaults(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(0, 200);
  auto x = finite_floats(n);
  for (float& v : x) {
    const int pick = *rc::gen::inRange(0, 8);
    if (pick == 0) v = *rc::gen::element(kNaN, -kNaN);
    else if (pick == 1) v = kInf;
    else if (pick == 2) v = -kInf;
    else if (pick == 3) v = *rc::gen::element(0.0f, -0.0f, 1e-45f, -FLT_MAX);
  }
  x.push_back(-kInf);  // always one of each
  x.push_back(kInf);
  x.push_back(kNaN);
  const auto r =
      tc::nan_to_num(b, x, TL_NAN_TO_NUM_DEFAULT_NAN, TL_NAN_TO_NUM_DEFAULT_POSINF, TL_NAN_TO_NUM_DEFAULT_NEGINF);
  RC_ASSERT(r.status == TL_OK);
  RC_ASSERT(TL_NAN_TO_NUM_DEFAULT_NEGINF == -FLT_MAX);
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) RC_ASSERT(same_bits(r.y[i], 0.0f));
    else if (x[i] == kInf) RC_ASSERT(r.y[i] == FLT_MAX);
    else if (x[i] == -kInf) RC_ASSERT(r.y[i] == -FLT_MAX);
    else RC_ASSERT(same_bits(r.y[i], x[i]));
  }
}

// ---------------------------------------------------------------- Argmax

// Along any axis, each output is what the six-kernel argmax (ties to the
// lowest index, NaN skipped, -1 without a number) gives on that slice.
void argmax_along_an_axis_is_argmax_of_each_slice(const Backend& b) {
  const int64_t rank = *rc::gen::inRange<int64_t>(1, 5);
  Shape s = gen_shape(rank, 12);
  const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
  std::vector<float> x(static_cast<size_t>(tc::count(s)));
  for (float& v : x) {  // small integers: ties everywhere; NaN and -Inf among them
    const int pick = *rc::gen::inRange(0, 10);
    v = pick == 0 ? kNaN : pick == 1 ? -kInf : static_cast<float>(*rc::gen::inRange(-2, 3));
  }
  int32_t status = -1;
  const auto got = tc::argmax(b, x, s, axis, &status);
  RC_ASSERT(status == TL_OK);
  const auto v = reference::around_axis(s, axis);
  std::vector<float> slice(static_cast<size_t>(v.length));
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      for (int64_t k = 0; k < v.length; ++k) slice[k] = x[(o * v.length + k) * v.inner + i];
      RC_ASSERT(got[o * v.inner + i] == reference::argmax(slice.data(), v.length));
    }
}

// ---------------------------------------------------------------- Transpose

// y[..., j, i] is x[..., i, j], bit for bit; transposing twice gives x.
void transpose_swaps_the_last_two_axes(const Backend& b) {
  const int64_t rank = *rc::gen::inRange<int64_t>(2, 5);
  Shape s = gen_shape(rank, 40);
  const auto x = finite_floats(tc::count(s));
  const auto y = tc::transpose(b, x, s);
  RC_ASSERT(y.status == TL_OK);
  const int64_t R = s[s.size() - 2], C = s[s.size() - 1], batch = tc::count(s) / (R * C);
  for (int64_t m = 0; m < batch; ++m)
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) RC_ASSERT(same_bits(y.y[(m * C + j) * R + i], x[(m * R + i) * C + j]));
  Shape t = s;
  std::swap(t[t.size() - 1], t[t.size() - 2]);
  const auto back = tc::transpose(b, y.y, t);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(same_bits(back.y[k], x[k]));
}

// ---------------------------------------------------------------- Permute

// Permuting by p, then by p's inverse, gives x back bit for bit, any rank.
void permute_then_inverse_is_identity(const Backend& b) {
  const int64_t rank = *rc::gen::inRange<int64_t>(0, 7);
  const Shape s = gen_shape(rank, rank > 4 ? 4 : 9);
  Shape p(static_cast<size_t>(rank));
  std::iota(p.begin(), p.end(), 0);
  for (int64_t i = rank - 1; i > 0; --i) std::swap(p[i], p[*rc::gen::inRange<int64_t>(0, i + 1)]);
  Shape inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  const auto x = finite_floats(tc::count(s));
  const auto y = tc::permute(b, x, s, p);
  RC_ASSERT(y.status == TL_OK);
  const auto back = tc::permute(b, y.y, reference::permuted(s, p), inv);
  RC_ASSERT(back.status == TL_OK);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(same_bits(back.y[k], x[k]));
}

// ---------------------------------------------------------------- Reshape

// Any reshape keeps the row-major (flat) order: the bits of x in order, as
// a view (y == x) or as a copy.
void reshape_preserves_flat_order(const Backend& b) {
  const Shape s = gen_shape(*rc::gen::inRange<int64_t>(0, 5), 12);
  const int64_t n = tc::count(s);
  Shape ns;  // n refactored: small divisors first, the rest last
  int64_t left = n;
  const int64_t new_rank = *rc::gen::inRange<int64_t>(1, 5);
  for (int64_t k = 0; k + 1 < new_rank; ++k) {
    int64_t d = *rc::gen::inRange<int64_t>(1, 7);
    while (left % d != 0) --d;
    ns.push_back(d);
    left /= d;
  }
  ns.push_back(left);
  const auto x = finite_floats(n);
  const bool view = *rc::gen::arbitrary<bool>();
  const auto y = tc::reshape(b, x, s, ns, view);
  RC_ASSERT(y.status == TL_OK);
  for (int64_t k = 0; k < n; ++k) RC_ASSERT(same_bits(y.y[k], x[k]));
}

// ---------------------------------------------------------------- Concat, Split

// Concatenating parts along an axis, then splitting at the same sizes,
// gives the parts back bit for bit.
void concat_then_split_is_identity(const Backend& b) {
  const int64_t rank = *rc::gen::inRange<int64_t>(1, 5);
  const Shape base = gen_shape(rank, 7);
  const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
  const int64_t parts = *rc::gen::inRange<int64_t>(1, 5);
  std::vector<Shape> shapes;
  std::vector<std::vector<float>> xs;
  Shape sizes;
  for (int64_t k = 0; k < parts; ++k) {
    Shape s = base;
    s[static_cast<size_t>(axis)] = *rc::gen::inRange<int64_t>(0, 6);
    sizes.push_back(s[static_cast<size_t>(axis)]);
    shapes.push_back(s);
    xs.push_back(finite_floats(tc::count(s)));
  }
  const auto joined = tc::concat(b, xs, shapes, axis);
  RC_ASSERT(joined.status == TL_OK);
  Shape whole = base;
  whole[static_cast<size_t>(axis)] = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  const auto cut = tc::split(b, joined.y, whole, axis, sizes);
  RC_ASSERT(cut.status == TL_OK);
  for (int64_t k = 0; k < parts; ++k)
    for (size_t i = 0; i < xs[k].size(); ++i) RC_ASSERT(same_bits(cut.ys[k][i], xs[k][i]));
}

// ---------------------------------------------------------------- Chunk

// torch.chunk's sizes: parts of ceil(L / n), the last shorter, empty parts
// where torch returns fewer (6 into 4: 2, 2, 2, 0), and the parts in order
// are x again.
void chunk_follows_torch_sizes(const Backend& b) {
  const int64_t L = *rc::gen::inRange<int64_t>(0, 30), chunks = *rc::gen::inRange<int64_t>(1, 9);
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 4), cols = *rc::gen::inRange<int64_t>(1, 5);
  const Shape s = {rows, L, cols};
  const int64_t size = (L + chunks - 1) / chunks;  // torch: ceil, then what is left
  Shape lengths;
  for (int64_t k = 0, left = L; k < chunks; ++k) {
    lengths.push_back(std::min(size, left));
    left -= lengths.back();
  }
  for (int64_t k = 0; k < chunks; ++k) RC_ASSERT(tl_chunk_length(L, chunks, k) == lengths[k]);
  const auto x = finite_floats(tc::count(s));
  const auto parts = tc::chunk(b, x, s, 1, chunks, lengths);
  RC_ASSERT(parts.status == TL_OK);
  for (int64_t r = 0, start = 0; r < rows; ++r, start = 0)
    for (int64_t k = 0; k < chunks; ++k) {
      for (int64_t j = 0; j < lengths[k] * cols; ++j)
        RC_ASSERT(same_bits(parts.ys[k][r * lengths[k] * cols + j], x[(r * L + start) * cols + j]));
      start += lengths[k];
    }
}

// ---------------------------------------------------------------- refusals

// A call the oracle refuses returns the oracle's status, writes nothing
// (checked by the guarded call) and leaves a message in tl_last_error when
// the backend has one. The bad arguments are the sweep generator's.
void refused_with_a_message(const Backend& b, const std::string& name) {
  const OpSpec& op = tc::op(name);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  for (int64_t i = 0; i < 2000; ++i) {
    Rng rng(seed + static_cast<uint64_t>(i));
    const Case c = op.make_case(rng, 1000 + i);  // past the edge cases: bad ones among them
    const Oracle want = op.oracle(c);
    const double status = want.at(op.status).value.at(0);
    if (status == double(TL_OK)) continue;
    const auto out = run_op(b, op, c);
    RC_ASSERT(double(out.at(op.status).i32()[0]) == status);
    RC_ASSERT(props::left_a_message(b));
    return;
  }
  RC_FAIL("the generator made no bad case in 2000 tries");
}

Property refusal(const char* op) {
  return {"refused_with_a_message", op, "boundary", [op](const Backend& b) { refused_with_a_message(b, op); }};
}

}  // namespace

namespace props {

std::vector<Property> tensor_properties() {
  auto for_op = [](const char* name, const char* op, const char* kind, void (*f)(const Backend&, const std::string&)) {
    return Property{name, op, kind, [f, op](const Backend& b) { f(b, op); }};
  };
  std::vector<Property> out = {
      {"hand_example", "Add", "unit", add_hand_example},
      {"hand_example", "Mul", "unit", mul_hand_example},
      for_op("commutes_bitwise", "Add", "property", commutes_bitwise),
      for_op("commutes_bitwise", "Mul", "property", commutes_bitwise),
      {"sub_of_itself_is_positive_zero", "Sub", "boundary", sub_of_itself_is_positive_zero},
      {"div_follows_ieee", "Div", "boundary", div_follows_ieee},
      {"clamp_is_idempotent_and_within_bounds", "Clamp", "property", clamp_is_idempotent_and_within_bounds},
      {"nan_to_num_defaults", "NanToNum", "boundary", nan_to_num_defaults},
      {"argmax_along_an_axis_is_argmax_of_each_slice", "Argmax", "property",
       argmax_along_an_axis_is_argmax_of_each_slice},
      {"transpose_swaps_the_last_two_axes", "Transpose", "property", transpose_swaps_the_last_two_axes},
      {"permute_then_inverse_is_identity", "Permute", "property", permute_then_inverse_is_identity},
      {"reshape_preserves_flat_order", "Reshape", "property", reshape_preserves_flat_order},
      {"concat_then_split_is_identity", "Concat", "property", concat_then_split_is_identity},
      {"concat_then_split_is_identity", "Split", "property", concat_then_split_is_identity},
      {"chunk_follows_torch_sizes", "Chunk", "boundary", chunk_follows_torch_sizes},
  };
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    out.push_back(
        for_op("broadcasting_equals_explicit_expansion", op, "property", broadcasting_equals_explicit_expansion));
  for (const OpSpec& op : catalog())  // every op of tensor.h: each validates its arguments
    if (op.group == "tensor" && !op.status.empty()) out.push_back(refusal(op.name.c_str()));
  return out;
}

}  // namespace props

}  // namespace konform
