// Properties of Quantize, Dequantize and the quantized matmuls (tinyllm/quant.h).
// Each states a fact of the formats a correct kernel cannot break and some
// defect does: the mutant of mutants/quant_base.c named in mutants/manifest.tsv.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "konform/properties.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/quant.hpp"
#include "konform/rng.hpp"
#include "konform/values.hpp"
#include "quant_calls.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
using calls::quant::Bytes;
using calls::quant::Floats;
using ops::qfmt::Format;
namespace rq = reference::quant;

// Values ~ N(0, 1) times 2^e (e from -12 to 12) from a generated seed.
Floats seeded_values(int64_t n) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v = make_values(rng, ValueClass::normal, n);
  const float k = std::ldexp(1.0f, *rc::gen::inRange(-12, 13));
  for (float& e : v) e *= k;
  return v;
}

Bytes block(std::initializer_list<uint8_t> head, size_t size) {
  Bytes b(size, 0);
  std::copy(head.begin(), head.end(), b.begin());
  return b;
}

// ---------------------------------------------------------------- Dequantize

// d = 0.5, qs = 1, -2, 127, -128: 0.5, -1, 63.5, -64 (the quants are signed).
void dequantize_q8_0_hand_example(const Backend& b) {
  const auto y = calls::quant::dequantize(b, Format::q8_0, block({0x00, 0x38, 1, 0xfe, 127, 0x80}, 34), 1, 32);
  RC_ASSERT(y[0] == 0.5f && y[1] == -1.0f && y[2] == 63.5f && y[3] == -64.0f && y[4] == 0.0f);
}

// d = 2, qs[0] = 0x0f, qs[1] = 0x88: value 0 is (15 - 8) 2 = 14 (low nibble),
// value 16 is (0 - 8) 2 = -16 (high nibble), values 1 and 17 are 0.
void dequantize_q4_0_hand_example(const Backend& b) {
  const auto y = calls::quant::dequantize(b, Format::q4_0, block({0x00, 0x40, 0x0f, 0x88}, 18), 1, 32);
  RC_ASSERT(y[0] == 14.0f && y[16] == -16.0f && y[1] == 0.0f && y[17] == 0.0f && y[2] == -16.0f);
}

// d = 1, dmin = 0.5; sub-block 0: sc 2, m 3; 1: sc 1, m 4; 5 (packed the
// j >= 4 way, high bits in scales[1] and [5]): sc 37, m 50.
//   value 0   = 1 * 2 * 7 - 0.5 * 3   = 12.5   (qs[0] low nibble 7)
//   value 32  = 1 * 1 * 5 - 0.5 * 4   = 3      (qs[0] high nibble 5)
//   value 163 = 1 * 37 * 1 - 0.5 * 50 = 12     (qs[67] high nibble 1)
//   value 1   = 0 - 1.5, value 161 = 0 - 25
void dequantize_q4_k_hand_example(const Backend& b) {
  Bytes blk(144, 0);
  rq::store_u16(blk.data(), 0x3c00);
  rq::store_u16(blk.data() + 2, 0x3800);
  uint8_t* s = blk.data() + 4;
  s[0] = 2;
  s[4] = 3;
  s[1] = 0x80 | 1;
  s[5] = 0xc0 | 4;
  s[9] = 0x25;
  blk[16 + 0] = 0x57;
  blk[16 + 67] = 0x10;
  const auto y = calls::quant::dequantize(b, Format::q4_k, blk, 1, 256);
  RC_ASSERT(y[0] == 12.5f && y[32] == 3.0f && y[163] == 12.0f && y[1] == -1.5f && y[161] == -25.0f);
}

// ---------------------------------------------------------------- Quantize

// max|x| = 127 gives d = 1: 2.5, -2.5, 0.5, -0.5, 3.5 round half away from
// zero (roundf) to 3, -3, 1, -1, 4; d is stored as f16 1.0.
void quantize_q8_0_rounds_half_away_from_zero(const Backend& b) {
  Floats x(32, 0.0f);
  const float v[] = {127, 2.5f, -2.5f, 0.5f, -0.5f, 3.5f, -126.4f};
  std::copy(std::begin(v), std::end(v), x.begin());
  const auto q = calls::quant::quantize(b, Format::q8_0, x, 1, 32);
  RC_ASSERT(q[0] == 0x00 && q[1] == 0x3c);
  const int8_t want[] = {127, 3, -3, 1, -1, 4, -126};
  for (int j = 0; j < 7; ++j) RC_ASSERT(static_cast<int8_t>(q[2 + j]) == want[j]);
}

// x_max = -8 (the first of largest magnitude; 8 comes later) gives d = 1:
// q = min(15, trunc(x + 8.5)): -8 -> 0, 7.49 -> 15, -7.5 -> 1, 0.5 -> 9,
// -0.5 -> 8, and 8 -> 16, clamped to 15.
void quantize_q4_0_hand_example(const Backend& b) {
  Floats x(32, 0.0f);
  const float v[] = {-8, 7.49f, -7.5f, 0.5f, -0.5f};
  std::copy(std::begin(v), std::end(v), x.begin());
  x[16] = 8;
  const auto q = calls::quant::quantize(b, Format::q4_0, x, 1, 32);
  RC_ASSERT(q[0] == 0x00 && q[1] == 0x3c);
  const int low[] = {0, 15, 1, 9, 8};
  for (int j = 0; j < 5; ++j) RC_ASSERT((q[2 + j] & 15) == low[j]);
  RC_ASSERT((q[2] >> 4) == 15);
}

// The stored scale is the f32 scale rounded to nearest f16 (ties to even):
// max|x| / 127 for Q8_0, x_max / -8 for Q4_0, for random blocks.
void quantize_scale_rounds_to_nearest_f16(const Backend& b, Format f) {
  const int64_t blocks = *rc::gen::inRange<int64_t>(1, 9);
  const Floats x = seeded_values(32 * blocks);
  const auto q = calls::quant::quantize(b, f, x, 1, 32 * blocks);
  for (int64_t i = 0; i < blocks; ++i) {
    float amax = 0, max = 0;
    for (int j = 0; j < 32; ++j)
      if (amax < std::fabs(x[32 * i + j])) amax = std::fabs(x[32 * i + j]), max = x[32 * i + j];
    const float d = f == Format::q8_0 ? amax / 127.0f : max / -8.0f;
    RC_ASSERT(rq::load_u16(q.data() + i * ops::qfmt::info(f).bytes) == reference::f32_to_f16(d));
  }
}
void q8_0_scale_rounds_to_nearest_f16(const Backend& b) { quantize_scale_rounds_to_nearest_f16(b, Format::q8_0); }
void q4_0_scale_rounds_to_nearest_f16(const Backend& b) { quantize_scale_rounds_to_nearest_f16(b, Format::q4_0); }

// Every value comes back within half a quantization step, plus what the f16
// rounding of the scale moves the grid (q_max |d - d16|) and a few u; Q4_0's
// one value past +7.5 steps (the opposite extreme) is clamped to 7.
void round_trip_within_half_a_step(const Backend& b, Format f) {
  const int64_t blocks = *rc::gen::inRange<int64_t>(1, 9);
  const Floats x = seeded_values(32 * blocks);
  const auto y = calls::quant::dequantize(b, f, calls::quant::quantize(b, f, x, 1, 32 * blocks), 1, 32 * blocks);
  for (int64_t i = 0; i < blocks; ++i) {
    float amax = 0, max = 0;
    for (int j = 0; j < 32; ++j)
      if (amax < std::fabs(x[32 * i + j])) amax = std::fabs(x[32 * i + j]), max = x[32 * i + j];
    const double d = f == Format::q8_0 ? amax / 127.0f : max / -8.0f;
    const double d16 = reference::f16_to_f32(reference::f32_to_f16(static_cast<float>(d)));
    const double qmax = f == Format::q8_0 ? 127 : 8;
    for (int j = 0; j < 32; ++j) {
      const double v = x[32 * i + j], steps = d != 0 ? v / d : 0;
      double bound = 0.5 * std::fabs(d) * (1 + 0x1p-18) + qmax * std::fabs(d - d16) + 0x1p-22 * std::fabs(v);
      if (f == Format::q4_0 && steps > 7.5) bound += (steps - 7.5) * std::fabs(d);
      RC_ASSERT(std::fabs(y[32 * i + j] - v) <= bound);
    }
  }
}
void q8_0_round_trip(const Backend& b) { round_trip_within_half_a_step(b, Format::q8_0); }
void q4_0_round_trip(const Backend& b) { round_trip_within_half_a_step(b, Format::q4_0); }

// Q4_K: every value at the nearest level of its sub-block's grid
// (d sc) l - dmin m, l in 0..15, as the blocks written say, unless the grid
// does not reach it (then at the nearer end); sub-blocks whose scale is 0
// keep the levels of the search, and are skipped.
void q4_k_values_at_nearest_level(const Backend& b) {
  const int64_t blocks = *rc::gen::inRange<int64_t>(1, 4);
  const Floats x = seeded_values(256 * blocks);
  const auto q = calls::quant::quantize(b, Format::q4_k, x, 1, 256 * blocks);
  const auto y = calls::quant::dequantize(b, Format::q4_k, q, 1, 256 * blocks);
  for (int64_t i = 0; i < blocks; ++i)
    for (int j = 0; j < 8; ++j) {
      float d, dm;
      rq::q4_k_sub_block(q.data() + 144 * i, j, &d, &dm);
      if (d == 0) continue;
      for (int l = 0; l < 32; ++l) {
        const int64_t k = 256 * i + 32 * j + l;
        const double v = x[k], lo = -static_cast<double>(dm), hi = 15.0 * d - dm;
        const double outside = v < lo ? lo - v : v > hi ? v - hi : 0.0;
        const double bound = 0.5 * d * (1 + 0x1p-18) + outside + 0x1p-21 * (std::fabs(v) + dm);
        RC_ASSERT(std::fabs(y[k] - v) <= bound);
      }
    }
}

// Blocks the format defines a value for: dequantized, then quantized again,
// they come back byte for byte. Q8_0 blocks with a quant of +-127 (so the
// scale is recovered exactly); Q4_0 blocks with a quant of 0 (the extreme
// -8 d, recovered as x_max / -8).
void requantize_is_identity(const Backend& b, Format f) {
  const int64_t blocks = *rc::gen::inRange<int64_t>(1, 9);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Bytes w = ops::qfmt::random_blocks(rng, f, blocks);
  const int64_t size = ops::qfmt::info(f).bytes;
  for (int64_t i = 0; i < blocks; ++i) {
    uint8_t* blk = w.data() + i * size;
    // A zero scale has no defined quants; Q8_0's quantizer writes d >= 0.
    if ((rq::load_u16(blk) & 0x7fff) == 0) rq::store_u16(blk, 0x3c00);
    if (f == Format::q8_0) rq::store_u16(blk, rq::load_u16(blk) & 0x7fff);
    const int j = static_cast<int>(rng.range(0, 31));
    if (f == Format::q8_0) {
      blk[2 + j] = rng.chance(0.5) ? 127 : 0x81;  // +-127
      for (int t = 0; t < 32; ++t)
        if (blk[2 + t] == 0x80) blk[2 + t] = 0x81;  // -128 is not a quantizer's output
    } else {
      blk[2 + j % 16] = static_cast<uint8_t>(j < 16 ? blk[2 + j % 16] & 0xf0 : blk[2 + j % 16] & 0x0f);
    }
  }
  const auto x = calls::quant::dequantize(b, f, w, 1, 32 * blocks);
  RC_ASSERT(calls::quant::quantize(b, f, x, 1, 32 * blocks) == w);
}
void q8_0_requantize_is_identity(const Backend& b) { requantize_is_identity(b, Format::q8_0); }
void q4_0_requantize_is_identity(const Backend& b) { requantize_is_identity(b, Format::q4_0); }

// ---------------------------------------------------------------- QMatmul

// The quantized matmul is the matmul of the dequantized weights, within
// Matmul's limit of sum |x| |w| (Q4_K: |x| (|d sc q| + |dmin m|)), for
// M = 1 (decode) to 12 and K up to 24 blocks.
void qmatmul_matches_dequantized(const Backend& b, Format f) {
  const int64_t qk = ops::qfmt::info(f).values;
  const int64_t M = *rc::gen::inRange<int64_t>(1, 13), N = *rc::gen::inRange<int64_t>(1, 40);
  const int64_t K = qk * *rc::gen::inRange<int64_t>(0, f == Format::q4_k ? 4 : 25);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  const Bytes w = ops::qfmt::random_blocks(rng, f, N * K / qk);
  const Floats x = make_values(rng, ValueClass::normal, M * K);
  const auto y = calls::quant::qmatmul(b, f, x, w, M, N, K);
  Floats wf(static_cast<size_t>(N * K)), mag(static_cast<size_t>(N * K));
  rq::dequantize(f, w.data(), wf.data(), N * K);
  for (size_t i = 0; i < wf.size(); ++i) mag[i] = std::fabs(wf[i]);
  if (f == Format::q4_k)
    for (int64_t i = 0; i < N * K; ++i) {
      float d, dm;
      rq::q4_k_sub_block(w.data() + (i / 256) * 144, static_cast<int>((i % 256) / 32), &d, &dm);
      mag[static_cast<size_t>(i)] =
          std::fabs(d * static_cast<float>(rq::q4_k_quant(w.data() + (i / 256) * 144, static_cast<int>(i % 256)))) +
          std::fabs(dm);
    }
  const double limit = limit_of(std::string("QMatmul_") + ops::qfmt::info(f).name);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double want = 0, scale = 0;
      for (int64_t k = 0; k < K; ++k) {
        want += static_cast<double>(x[m * K + k]) * wf[n * K + k];
        scale += std::fabs(static_cast<double>(x[m * K + k])) * mag[n * K + k];
      }
      RC_ASSERT(near(y[m * N + n], want, scale, limit));
    }
}
void q8_0_qmatmul_matches_dequantized(const Backend& b) { qmatmul_matches_dequantized(b, Format::q8_0); }
void q4_0_qmatmul_matches_dequantized(const Backend& b) { qmatmul_matches_dequantized(b, Format::q4_0); }
void q4_k_qmatmul_matches_dequantized(const Backend& b) { qmatmul_matches_dequantized(b, Format::q4_k); }

// ---------------------------------------------------------------- q8x

// x: values j - 16 for j < 31 and 127, so max|x| = 127 and d = 1: any
// round-to-nearest quantizer keeps these integers exactly, and the integer
// dot products make y exact. Q8_0 weights d = 0.5, every quant 1: y = 0.5
// sum x = 48. Q4_0 weights d = 2, bytes 0x98: values 0..15 are (8 - 8) 2 = 0,
// values 16..31 (9 - 8) 2 = 2: y = 2 (0 + 1 + ... + 14 + 127) = 464. A
// kernel that pairs x's values with the wrong nibbles, drops the offset or
// reads the scale wrongly misses both.
Floats q8x_hand_x() {
  Floats x(32);
  for (int j = 0; j < 31; ++j) x[static_cast<size_t>(j)] = static_cast<float>(j - 16);
  x[31] = 127.0f;
  return x;
}
void q8x_q8_0_hand_example(const Backend& b) {
  Bytes w(34, 1);
  w[0] = 0x00, w[1] = 0x38;
  RC_ASSERT(calls::quant::qmatmul_q8x(b, Format::q8_0, q8x_hand_x(), w, 1, 1, 32)[0] == 48.0f);
}
void q8x_q4_0_hand_example(const Backend& b) {
  Bytes w(18, 0x98);
  w[0] = 0x00, w[1] = 0x40;
  RC_ASSERT(calls::quant::qmatmul_q8x(b, Format::q4_0, q8x_hand_x(), w, 1, 1, 32)[0] == 464.0f);
}

// Each row computed alone (M = 1, the decode GEMV) has the bits it has in a
// batch of up to 24 rows: the strict profile's, as Matmul's (a backend may
// sum a batch in another order than a single row).
void q8x_rows_are_batch_invariant(const Backend& b, Format f) {
  const int64_t qk = ops::qfmt::info(f).values;
  const int64_t M = *rc::gen::inRange<int64_t>(2, 25), N = *rc::gen::inRange<int64_t>(1, 40);
  const int64_t K = qk * *rc::gen::inRange<int64_t>(1, f == Format::q4_k ? 5 : 25);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  const Bytes w = ops::qfmt::random_blocks(rng, f, N * K / qk);
  const Floats x = make_values(rng, ValueClass::normal, M * K);
  const auto y = calls::quant::qmatmul_q8x(b, f, x, w, M, N, K);
  for (int64_t m = 0; m < M; ++m) {
    const Floats row(x.begin() + m * K, x.begin() + (m + 1) * K);
    const auto alone = calls::quant::qmatmul_q8x(b, f, row, w, 1, N, K);
    for (int64_t n = 0; n < N; ++n) RC_ASSERT(same_bits(alone[n], y[m * N + n]));
  }
}
// A backend that lets its thread count be set (tinyllm/threads.h) gives the
// same bits on 1 and 2 threads, at a GEMV past the 2^22 multiply-adds where
// libtl_kernels starts threads (strict, as Matmul's).
void q8x_threads_do_not_change_bits(const Backend& b, Format f) {
  using SetThreads = int (*)(int);
  auto set = b.handle ? reinterpret_cast<SetThreads>(dlsym(b.handle.get(), "tl_set_num_threads")) : nullptr;
  if (set == nullptr) return;  // nothing to vary
  const int64_t qk = ops::qfmt::info(f).values;
  // The GEMV, M = 1: N K just past 2^22 (the columns are what threads split).
  const int64_t M = 1, N = *rc::gen::inRange<int64_t>(1024, 1100), K = 16 * 256;
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  const Bytes w = ops::qfmt::random_blocks(rng, f, N * K / qk);
  const Floats x = make_values(rng, ValueClass::normal, M * K);
  const int before = set(1);
  const auto one = calls::quant::qmatmul_q8x(b, f, x, w, M, N, K);
  set(2);
  const auto two = calls::quant::qmatmul_q8x(b, f, x, w, M, N, K);
  set(before);
  for (size_t i = 0; i < one.size(); ++i) RC_ASSERT(same_bits(one[i], two[i]));
}
void q8x_q8_0_threads(const Backend& b) { q8x_threads_do_not_change_bits(b, Format::q8_0); }
void q8x_q4_0_threads(const Backend& b) { q8x_threads_do_not_change_bits(b, Format::q4_0); }
void q8x_q4_k_threads(const Backend& b) { q8x_threads_do_not_change_bits(b, Format::q4_k); }
void q8x_q8_0_batch_invariant(const Backend& b) { q8x_rows_are_batch_invariant(b, Format::q8_0); }
void q8x_q4_0_batch_invariant(const Backend& b) { q8x_rows_are_batch_invariant(b, Format::q4_0); }
void q8x_q4_k_batch_invariant(const Backend& b) { q8x_rows_are_batch_invariant(b, Format::q4_k); }

}  // namespace

namespace props {

std::vector<Property> quant_properties() {
  return {
      {"hand_example", "Dequantize_Q8_0", "unit", dequantize_q8_0_hand_example},
      {"hand_example", "Dequantize_Q4_0", "unit", dequantize_q4_0_hand_example},
      {"hand_example", "Dequantize_Q4_K", "unit", dequantize_q4_k_hand_example},
      {"quantize_q8_0_rounds_half_away_from_zero", "Quantize_Q8_0", "unit", quantize_q8_0_rounds_half_away_from_zero},
      {"q8_0_scale_rounds_to_nearest_f16", "Quantize_Q8_0", "property", q8_0_scale_rounds_to_nearest_f16},
      {"q8_0_round_trip_within_half_a_step", "Quantize_Q8_0", "property", q8_0_round_trip},
      {"q8_0_requantize_is_identity", "Quantize_Q8_0", "property", q8_0_requantize_is_identity},
      {"hand_example", "Quantize_Q4_0", "unit", quantize_q4_0_hand_example},
      {"q4_0_scale_rounds_to_nearest_f16", "Quantize_Q4_0", "property", q4_0_scale_rounds_to_nearest_f16},
      {"q4_0_round_trip_within_half_a_step", "Quantize_Q4_0", "property", q4_0_round_trip},
      {"q4_0_requantize_is_identity", "Quantize_Q4_0", "property", q4_0_requantize_is_identity},
      {"q4_k_values_at_nearest_level", "Quantize_Q4_K", "property", q4_k_values_at_nearest_level},
      {"qmatmul_matches_dequantized", "QMatmul_Q8_0", "property", q8_0_qmatmul_matches_dequantized},
      {"qmatmul_matches_dequantized", "QMatmul_Q4_0", "property", q4_0_qmatmul_matches_dequantized},
      {"qmatmul_matches_dequantized", "QMatmul_Q4_K", "property", q4_k_qmatmul_matches_dequantized},
      {"hand_example", "QMatmulQ8x_Q8_0", "unit", q8x_q8_0_hand_example},
      {"hand_example", "QMatmulQ8x_Q4_0", "unit", q8x_q4_0_hand_example},
      {"q8x_rows_are_batch_invariant", "QMatmulQ8x_Q8_0", "property", q8x_q8_0_batch_invariant},
      {"q8x_rows_are_batch_invariant", "QMatmulQ8x_Q4_0", "property", q8x_q4_0_batch_invariant},
      {"q8x_rows_are_batch_invariant", "QMatmulQ8x_Q4_K", "property", q8x_q4_k_batch_invariant},
      {"q8x_threads_do_not_change_bits", "QMatmulQ8x_Q8_0", "property", q8x_q8_0_threads},
      {"q8x_threads_do_not_change_bits", "QMatmulQ8x_Q4_0", "property", q8x_q4_0_threads},
      {"q8x_threads_do_not_change_bits", "QMatmulQ8x_Q4_K", "property", q8x_q4_k_threads},
  };
}

}  // namespace props

}  // namespace konform
