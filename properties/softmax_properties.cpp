// The properties of Softmax (tinyllm/activations.h), from spec/operations.txt
// section 4 ("numerically stable: subtract max") and section 5 (the -1e4
// masks): lines sum to 1, adding a constant changes nothing, +-1e30 and masks
// give no NaN, any axis is the last axis of a permuted tensor, lines are
// independent of their batch, and bad arguments are refused. The mutants of
// mutants/act_base.c named in mutants/manifest.tsv break them.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

#include "activation_calls.hpp"
#include "konform/properties.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
namespace call = calls::act;
using call::Floats;
using call::Shape;

constexpr float kInf = std::numeric_limits<float>::infinity();

int64_t count(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>()); }

// A shape of rank 1..4 (at least `min_rank`) of at most a few hundred
// elements, and an axis in [-rank, rank).
Shape random_shape(int64_t min_rank = 1) {
  const int64_t rank = *rc::gen::inRange<int64_t>(min_rank, 5);
  Shape s(static_cast<size_t>(rank));
  for (auto& d : s) d = *rc::gen::inRange<int64_t>(1, rank <= 2 ? 40 : 9);
  return s;
}

// Logits on a grid of 2^-6 with |x| <= 128: x + c is exact for integers
// |c| <= 2^16, and exp(x - max) spans all of [e^-256, 1].
Floats grid_logits(int64_t n) {
  const auto ticks =
      *rc::gen::container<std::vector<int>>(static_cast<size_t>(n), rc::gen::inRange(-(1 << 13), (1 << 13) + 1));
  Floats x(static_cast<size_t>(n));
  const int spread = *rc::gen::element(1, 8, 64);  // temperatures: a few lines carry one dominant entry
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(ticks[static_cast<size_t>(i)] / spread) * 0x1p-6f;
  return x;
}

// The catalog's oracle (values and scales) for x of `shape` along `axis`.
Expected oracle(const Floats& x, const Shape& shape, int64_t axis) {
  Case c;
  c.params = {{"rank", double(shape.size())}, {"axis", double(axis)}};
  for (int k = 0; k < 5; ++k)
    c.params["d" + std::to_string(k)] =
        k < static_cast<int>(shape.size()) ? double(shape[static_cast<size_t>(k)]) : 0.0;
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x)});
  return call::op("Softmax").oracle(c).at("y");
}

// Calls a valid softmax and returns y.
Floats softmax(const Backend& b, const Floats& x, const Shape& shape, int64_t axis, bool in_place = false) {
  const auto r = call::softmax(b, x, shape, static_cast<int64_t>(shape.size()), axis, in_place);
  RC_ASSERT(r.status == TL_OK);
  return r.y;
}

// The [outer, length, inner] view around axis.
struct Lines {
  int64_t outer = 1, length = 1, inner = 1;
  int64_t at(int64_t o, int64_t l, int64_t j) const { return (o * length + l) * inner + j; }
};
Lines lines(const Shape& s, int64_t axis) {
  const int64_t a = axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis;
  Lines v;
  for (int64_t k = 0; k < static_cast<int64_t>(s.size()); ++k) {
    if (k < a) v.outer *= s[k];
    else if (k == a) v.length = s[k];
    else v.inner *= s[k];
  }
  return v;
}

// The limit for lines of `length` (the default profile's grows with it).
double limit(int64_t length) { return limit_of("Softmax", length); }

void hand_example(const Backend& b) {
  // Each figure the oracle's to 7 digits; the backend within the op's limit.
  const Floats x = {1, 2, 3};
  const auto y = softmax(b, x, {3}, 0);
  const Expected e = oracle(x, {3}, 0);
  const double printed[] = {0.09003057, 0.2447285, 0.6652410};
  for (int i = 0; i < 3; ++i) {
    RC_ASSERT(agrees_to_7_digits(e.value[i], printed[i]));
    RC_ASSERT(near(y[i], e.value[i], e.scale[i], limit(3)));
  }
  // [[1, 2, 3], [1, 2, 3]] along axis 0: every column is two equal entries.
  for (float v : softmax(b, {1, 2, 3, 1, 2, 3}, {2, 3}, 0)) RC_ASSERT(v == 0.5f);
}

// Every line sums to 1 to within the sum of its elements' allowances (the
// comparator's rule: the default profile's any-order limit for the line,
// and under --flush-subnormals FLT_MIN per element), and each element meets
// the oracle; a normalization by the whole call, or by the wrong lines,
// fails with two or more lines.
void rows_sum_to_one(const Backend& b) {
  Shape shape = random_shape();
  int64_t a = *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(shape.size()));
  if (lines(shape, a).outer * lines(shape, a).inner < 2) {  // two lines at least
    if (shape.size() == 1) shape.insert(shape.begin(), 2), a = 1;
    else shape[a == 0 ? 1 : 0] = 2;
  }
  const Lines w = lines(shape, a);
  if (*rc::gen::arbitrary<bool>()) a -= static_cast<int64_t>(shape.size());  // the same axis, counted from the end
  const auto x = grid_logits(count(shape));
  const auto y = softmax(b, x, shape, a);
  const Expected e = oracle(x, shape, a);
  for (int64_t o = 0; o < w.outer; ++o)
    for (int64_t j = 0; j < w.inner; ++j) {
      double sum = 0, allowance = 0;
      for (int64_t l = 0; l < w.length; ++l) {
        const int64_t k = w.at(o, l, j);
        RC_ASSERT(near(y[k], e.value[k], e.scale[k], limit(w.length)));
        sum += y[k];
        allowance += props::allowance(e.scale[k], limit(w.length));
      }
      RC_ASSERT(std::fabs(sum - 1.0) <= allowance + 1e-12);
    }
}

// softmax(x + c) = softmax(x) for a constant c (x + c exact on the grid), to
// within twice the limit; c up to +-2^16 overflows exp(x) unless the max is
// subtracted.
void shift_invariant(const Backend& b) {
  const Shape shape = random_shape();
  const int64_t axis =
      *rc::gen::inRange<int64_t>(-static_cast<int64_t>(shape.size()), static_cast<int64_t>(shape.size()));
  const auto x = grid_logits(count(shape));
  const float c = static_cast<float>(*rc::gen::element(-65536, -1000, -100, 1, 100, 1000, 65536));
  Floats xc(x.size());
  for (size_t i = 0; i < x.size(); ++i) xc[i] = x[i] + c;
  const auto y = softmax(b, x, shape, axis), yc = softmax(b, xc, shape, axis);
  const Expected e = oracle(x, shape, axis);
  const int64_t length = lines(shape, axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis).length;
  for (size_t k = 0; k < y.size(); ++k) {
    RC_ASSERT(!std::isnan(yc[k]));
    RC_ASSERT(near(yc[k], y[k], e.scale[k], 2 * limit(length)));
  }
}

// The spec's saturation cases: +-1e30 give a one-hot (or uniform) line, -1e4
// and -Inf masks give exact zeros and the softmax of the rest, never NaN.
void saturates_without_nan(const Backend& b) {
  const float big = *rc::gen::element(1e30f, 3e38f, 1e20f);
  const Floats x = {big,   -big, 0,     5,       // one-hot at 0
                    big,   big,  big,   big,     // uniform 1/4
                    -1e4f, 1,    -1e4f, 2,       // masked: softmax([1, 2]) at 1, 3
                    -kInf, 0,    -kInf, -1e4f};  // -Inf masks: one-hot at 1
  const auto y = softmax(b, x, {4, 4}, -1);
  for (float v : y) RC_ASSERT(!std::isnan(v));
  RC_ASSERT(y[0] == 1.0f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 0.0f);
  for (int i = 4; i < 8; ++i) RC_ASSERT(y[i] == 0.25f);
  RC_ASSERT(y[8] == 0.0f && y[10] == 0.0f);
  RC_ASSERT(near(y[9], 0.2689414213699951, 0.27, limit(4)) && near(y[11], 0.7310585786300049, 0.74, limit(4)));
  RC_ASSERT(y[12] == 0.0f && y[13] == 1.0f && y[14] == 0.0f && y[15] == 0.0f);
  // Random logits offset by +-1e4: the same line as without the offset.
  const int64_t n = *rc::gen::inRange<int64_t>(1, 300);
  const auto g = grid_logits(n);
  Floats shifted(g.size());
  for (size_t i = 0; i < g.size(); ++i) shifted[i] = g[i] + 10000.0f;
  const auto ys = softmax(b, shifted, {n}, 0), yg = softmax(b, g, {n}, 0);
  const Expected e = oracle(g, {n}, 0);
  for (int64_t i = 0; i < n; ++i) RC_ASSERT(near(ys[i], yg[i], e.scale[i], 2 * limit(n)));
}

// Softmax along axis a equals the softmax along the last axis of the tensor
// with axis a moved last (to within twice the limit), and axis a - rank is
// axis a, bit for bit.
void any_axis(const Backend& b) {
  const Shape shape = random_shape(2);
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t a = *rc::gen::inRange<int64_t>(0, rank - 1);  // not the last: that is the identity
  const auto x = grid_logits(count(shape));
  const auto y = softmax(b, x, shape, a);
  const auto y_neg = softmax(b, x, shape, a - rank);
  for (size_t k = 0; k < y.size(); ++k) RC_ASSERT(same_bits(y_neg[k], y[k]));
  // [outer, length, inner] -> [outer, inner, length]
  const Lines v = lines(shape, a);
  Floats xt(x.size());
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t l = 0; l < v.length; ++l)
      for (int64_t j = 0; j < v.inner; ++j) xt[(o * v.inner + j) * v.length + l] = x[v.at(o, l, j)];
  const auto yt = softmax(b, xt, {v.outer, v.inner, v.length}, -1);
  const Expected e = oracle(x, shape, a);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t l = 0; l < v.length; ++l)
      for (int64_t j = 0; j < v.inner; ++j) {
        const int64_t k = v.at(o, l, j);
        RC_ASSERT(near(y[k], e.value[k], e.scale[k], limit(v.length)));
        RC_ASSERT(near(y[k], yt[(o * v.inner + j) * v.length + l], e.scale[k], 2 * limit(v.length)));
      }
}

// A row's bits do not depend on how many rows share the call, and y == x
// gives the bits of a separate y.
void rows_are_independent(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 9), d = *rc::gen::inRange<int64_t>(1, 300);
  const auto x = grid_logits(rows * d);
  const auto batch = softmax(b, x, {rows, d}, 1);
  const auto in_place = softmax(b, x, {rows, d}, 1, true);
  for (size_t k = 0; k < batch.size(); ++k) RC_ASSERT(same_bits(in_place[k], batch[k]));
  for (int64_t r = 0; r < rows; ++r) {
    const Floats row(x.begin() + r * d, x.begin() + (r + 1) * d);
    const auto alone = softmax(b, row, {d}, 0);
    for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(alone[i], batch[r * d + i]));
  }
}

// Rank 0 and 5, axis = rank and -rank - 1, a negative dim, and dims whose
// product passes INT64_MAX are refused with TL_ERR_INVALID_ARGUMENT, y left
// as it was (the guarded call checks that), with a message in tl_last_error
// where the backend has one.
void rejects_bad_arguments(const Backend& b) {
  const int64_t rank = *rc::gen::inRange<int64_t>(1, 5);
  Shape shape(5, 2);
  const auto x = grid_logits(16);
  struct Bad {
    Shape shape;
    int64_t rank, axis;
  };
  const Bad bad[] = {{shape, 0, 0},
                     {shape, 5, 0},
                     {shape, rank, rank},
                     {shape, rank, -rank - 1},
                     {Shape{2, -1, 2, 2, 2}, rank < 2 ? 2 : rank, 0},
                     {Shape{int64_t(1) << 32, int64_t(1) << 32, 1, 1, 0}, 4, 0}};
  for (const Bad& c : bad) {
    const auto r = call::softmax(b, x, c.shape, c.rank, c.axis);
    RC_ASSERT(r.status == TL_ERR_INVALID_ARGUMENT);
    RC_ASSERT(props::left_a_message(b));
  }
}

}  // namespace

namespace props {

std::vector<Property> softmax_properties() {
  return {
      {"hand_example", "Softmax", "unit", hand_example},
      {"softmax_rows_sum_to_one", "Softmax", "property", rows_sum_to_one},
      {"softmax_is_shift_invariant", "Softmax", "property", shift_invariant},
      {"softmax_saturates_without_nan", "Softmax", "boundary", saturates_without_nan},
      {"softmax_any_axis", "Softmax", "property", any_axis},
      {"softmax_rows_are_independent", "Softmax", "property", rows_are_independent},
      {"softmax_rejects_bad_arguments", "Softmax", "boundary", rejects_bad_arguments},
  };
}

}  // namespace props

}  // namespace konform
