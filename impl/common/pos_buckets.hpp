// T5's relative-position buckets as a table of thresholds, built once per
// call: distance n falls in log bucket me + k for the k thresholds t_1..t_k
// at or below it, t_k being the least n with n^m >= me^(m-k) * md^k. Exact
// (integers where the logs cannot tell), shared by the kernels; the oracle
// (reference/konform/reference/pos.hpp) decides each distance on its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace konform::impl {

class T5Buckets {
 public:
  // Arguments as validated by pos_args::relative_pos_embedding.
  T5Buckets(int64_t num_buckets, int64_t max_distance, bool bidirectional)
      : bidirectional_(bidirectional), nb_(bidirectional ? num_buckets / 2 : num_buckets), me_(nb_ / 2) {
    const int64_t m = nb_ - me_;
    const double lme = std::log(double(me_)), lmd = std::log(double(max_distance));
    thresholds_.reserve(static_cast<size_t>(m > 0 ? m - 1 : 0));
    for (int64_t k = 1; k < m; ++k) {
      // me (md/me)^(k/m) to ~1e-13: one below its floor is at or below the threshold.
      const double x = std::exp((double(m - k) * lme + double(k) * lmd) / double(m));
      uint64_t n = std::max<uint64_t>(uint64_t(me_), static_cast<uint64_t>(x) > 0 ? static_cast<uint64_t>(x) - 1 : 0);
      if (!thresholds_.empty()) n = std::max(n, thresholds_.back());
      while (!Reaches(n, k, m, max_distance)) ++n;
      thresholds_.push_back(n);
    }
  }

  // The distance from which every larger one shares its side's last bucket.
  int64_t last_threshold() const { return thresholds_.empty() ? me_ : int64_t(thresholds_.back()); }

  int32_t operator()(int64_t r) const {
    int64_t offset = 0;
    uint64_t n;
    if (bidirectional_) {
      offset = r > 0 ? nb_ : 0;
      n = static_cast<uint64_t>(r < 0 ? -r : r);
    } else {
      n = static_cast<uint64_t>(r < 0 ? -r : 0);
    }
    if (n < uint64_t(me_)) return static_cast<int32_t>(offset + int64_t(n));
    const auto above = std::upper_bound(thresholds_.begin(), thresholds_.end(), n);
    return static_cast<int32_t>(offset + me_ + (above - thresholds_.begin()));
  }

 private:
  // n^m >= me^(m-k) md^k: logs when they are clear by far more than their
  // error (~1e-11 for m <= 512), else 32-bit-limb products.
  bool Reaches(uint64_t n, int64_t k, int64_t m, int64_t md) const {
    const double l =
        double(m) * std::log(double(n)) - double(m - k) * std::log(double(me_)) - double(k) * std::log(double(md));
    if (std::fabs(l) > 1e-9) return l > 0;
    std::vector<uint32_t> lhs = Power({{n, m}}), rhs = Power({{uint64_t(me_), m - k}, {uint64_t(md), k}});
    if (lhs.size() != rhs.size()) return lhs.size() > rhs.size();
    return !std::lexicographical_compare(lhs.rbegin(), lhs.rend(), rhs.rbegin(), rhs.rend());
  }

  // The product of factor^count over the pairs, little-endian base 2^32
  // (every factor < 2^32, so a limb times it plus the carry fits 64 bits).
  static std::vector<uint32_t> Power(std::initializer_list<std::pair<uint64_t, int64_t>> terms) {
    std::vector<uint32_t> v{1};
    for (const auto& [factor, count] : terms)
      for (int64_t i = 0; i < count; ++i) {
        uint64_t carry = 0;
        for (uint32_t& w : v) {
          const uint64_t p = uint64_t(w) * factor + carry;
          w = static_cast<uint32_t>(p);
          carry = p >> 32;
        }
        if (carry) v.push_back(static_cast<uint32_t>(carry));
      }
    return v;
  }

  bool bidirectional_;
  int64_t nb_, me_;
  std::vector<uint64_t> thresholds_;
};

}  // namespace konform::impl
