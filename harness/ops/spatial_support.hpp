// What the declarations of the spatial ops share (spatial_layout.cpp,
// spatial_patch_embed.cpp): the sizes as parameters, the oracle's verdict
// on them, and the bad sizes one case in ten past the edges must be refused
// for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "konform/op.hpp"
#include "konform/reference/spatial.hpp"

namespace konform::ops::spatial {

namespace ref = reference::spatial;

// The call's sizes, as the case's parameters B, C, H, W, f (r or p) and D.
inline ref::Sizes sizes_of(const Case& c) {
  ref::Sizes s{c.iparam("B"), c.iparam("C"), c.iparam("H"), c.iparam("W"), c.iparam("f"), 0};
  if (c.params.count("D")) s.D = c.iparam("D");
  return s;
}

inline void set_sizes(Case& c, const ref::Sizes& s, bool with_d) {
  c.params["B"] = double(s.B);
  c.params["C"] = double(s.C);
  c.params["H"] = double(s.H);
  c.params["W"] = double(s.W);
  c.params["f"] = double(s.f);
  if (with_d) c.params["D"] = double(s.D);
}

inline std::string sizes_label(const ref::Sizes& s, bool with_d, const char* f) {
  return "B=" + std::to_string(s.B) + " C=" + std::to_string(s.C) + " H=" + std::to_string(s.H) +
         " W=" + std::to_string(s.W) + (with_d ? " D=" + std::to_string(s.D) : "") + " " + f + "=" +
         std::to_string(s.f);
}

// The sizes of a valid case made bad, one fault: the factor below 1, a size
// the factor does not divide (`divides`: which sizes must be multiples,
// "C" for PixelShuffle's C of r^2, "HW" for the others), a negative size,
// or a factor whose square overflows. The buffers keep the valid case's
// sizes: a kernel must refuse before touching them. Returns the label.
inline std::string break_sizes(Rng& rng, Case& c, const std::string& divides) {
  switch (rng.range(0, 3)) {
    case 0: c.params["f"] = double(-rng.range(0, 2)); return "bad: factor " + std::to_string(c.iparam("f"));
    case 1: {
      int64_t f = c.iparam("f");
      if (f < 2) c.params["f"] = double(f = 2);
      if (divides == "C") {
        c.params["C"] = double(c.iparam("C") / (f * f) * (f * f) + rng.range(1, f * f - 1));
        return "bad: C not a multiple of f^2";
      }
      const char* which = rng.chance(0.5) ? "H" : "W";
      c.params[which] = double(c.iparam(which) / f * f + rng.range(1, f - 1));
      return std::string("bad: ") + which + " not a multiple of f";
    }
    case 2: {
      const char* names[] = {"B", "C", "H", "W"};
      const char* which = rng.pick(names);
      c.params[which] = double(-rng.range(1, 3));
      return std::string("bad: ") + which + " negative";
    }
    default: c.params["f"] = double(int64_t{1} << 32); return "bad: factor 2^32, its square overflows";
  }
}

inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }
inline Expected status_expected(tl_status s) { return {{static_cast<double>(s)}, {0.0}}; }

}  // namespace konform::ops::spatial
