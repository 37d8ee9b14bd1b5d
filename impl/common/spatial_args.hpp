// Argument validation of tinyllm/spatial.h, shared by the scalar and simd
// backends: a refused call becomes a tl_status with a message (impl::fail)
// before anything is written. Written apart from the oracle's rules
// (reference/.../spatial.hpp), so a rule read differently shows as a finding.
#pragma once

#include <climits>
#include <cstdint>
#include <string>

#include "impl/common/status.hpp"
#include "tinyllm/spatial.h"

namespace konform::impl::spatial_args {

enum class Kind { shuffle, unshuffle, patch_embed, unpatchify };

// The sizes as the caller gave them; D is PatchEmbed's (0 elsewhere).
struct Call {
  const char* fn;
  Kind kind;
  int64_t B, C, H, W, f, D = 0;
};

inline bool fits(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// 4 * a * b * ... without overflow, multiplied left to right.
template <typename... Ds>
bool bytes_fit(Ds... dims) {
  int64_t n = 4;
  return (fits(n, dims, &n) && ...);
}

inline std::string num(int64_t v) { return std::to_string(v); }

// The header's checks on the sizes, in its order (the NULL pointers are
// checked after them, by need()).
inline tl_status check(const Call& c) {
  const std::string f(c.fn), factor = c.kind == Kind::shuffle || c.kind == Kind::unshuffle ? "r" : "p";
  const std::string dims = " (B = " + num(c.B) + ", C = " + num(c.C) + ", H = " + num(c.H) + ", W = " + num(c.W) +
                           (c.kind == Kind::patch_embed ? ", D = " + num(c.D) : "") + ")";
  if (c.B < 0 || c.C < 0 || c.H < 0 || c.W < 0 || c.D < 0)
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": a size is negative" + dims);
  if (c.f < 1) return fail(TL_ERR_INVALID_ARGUMENT, f + ": " + factor + " = " + num(c.f) + " is below 1");
  int64_t ff = 0, t = 0;
  if (!fits(c.f, c.f, &ff)) return fail(TL_ERR_INVALID_ARGUMENT, f + ": " + factor + "^2 overflows an int64_t");
  if (!bytes_fit(c.B, c.C, c.H, c.W)) return fail(TL_ERR_INVALID_ARGUMENT, f + ": 4 B C H W bytes overflow" + dims);
  switch (c.kind) {
    case Kind::shuffle:
      if (!fits(c.H, c.f, &t) || !fits(c.W, c.f, &t))
        return fail(TL_ERR_INVALID_ARGUMENT, f + ": H r or W r overflows (r = " + num(c.f) + ")" + dims);
      if (c.C % ff != 0) return fail(TL_ERR_SHAPE, f + ": C = " + num(c.C) + " is not a multiple of r^2 = " + num(ff));
      return TL_OK;
    case Kind::unshuffle:
      if (!bytes_fit(c.C, ff)) return fail(TL_ERR_INVALID_ARGUMENT, f + ": C r^2 overflows (r = " + num(c.f) + ")");
      break;
    case Kind::patch_embed:
      if (!bytes_fit(c.C, ff, c.D) || !bytes_fit(c.B, c.H / c.f, c.W / c.f, c.D))
        return fail(TL_ERR_INVALID_ARGUMENT,
                    f + ": the bytes of w (4 C p^2 D) or y (4 B (H/p) (W/p) D) overflow" + dims);
      break;
    case Kind::unpatchify:
      if (!bytes_fit(ff, c.C)) return fail(TL_ERR_INVALID_ARGUMENT, f + ": p^2 C overflows (p = " + num(c.f) + ")");
      break;
  }
  if (c.H % c.f != 0 || c.W % c.f != 0)
    return fail(TL_ERR_SHAPE, f + ": H = " + num(c.H) + " and W = " + num(c.W) + " must be multiples of " + factor +
                                  " = " + num(c.f));
  return TL_OK;
}

// A NULL pointer is only allowed for a tensor without elements.
inline tl_status need(const char* fn, const void* p, int64_t count, const char* what) {
  if (p == nullptr && count > 0)
    return fail(TL_ERR_INVALID_ARGUMENT,
                std::string(fn) + ": " + what + " is NULL but has " + num(count) + " elements");
  return TL_OK;
}

// A layout op's checks, then its two tensors' pointers (x and y hold
// B C H W elements each).
inline tl_status check_copy(const Call& c, const void* x, const void* y) {
  if (tl_status s = check(c)) return s;
  const int64_t n = c.B * c.C * c.H * c.W;
  if (tl_status s = need(c.fn, x, n, "x")) return s;
  return need(c.fn, y, n, "y");
}

// tl_interpolate_f32's checks, in the header's order (the NULLs after).
inline tl_status check_interpolate(int64_t B, int64_t C, int64_t H, int64_t W, int64_t Ho, int64_t Wo, int32_t mode,
                                   int32_t align_corners) {
  const std::string f = "tl_interpolate_f32: ";
  if (B < 0 || C < 0) return fail(TL_ERR_INVALID_ARGUMENT, f + "B = " + num(B) + " or C = " + num(C) + " is negative");
  const int64_t spatial[] = {H, W, Ho, Wo};
  for (int64_t v : spatial)
    if (v < 1 || v > INT32_MAX)
      return fail(TL_ERR_INVALID_ARGUMENT, f + "H, W, H_out, W_out = " + num(H) + ", " + num(W) + ", " + num(Ho) +
                                               ", " + num(Wo) + ": each must be in 1 .. 2^31 - 1");
  if (mode < TL_INTERP_NEAREST || mode > TL_INTERP_AREA)
    return fail(TL_ERR_INVALID_ARGUMENT, f + "mode = " + num(mode) + " is not a tl_interp_mode");
  if (align_corners != 0 && (align_corners != 1 || mode != TL_INTERP_BILINEAR))
    return fail(TL_ERR_INVALID_ARGUMENT,
                f + "align_corners = " + num(align_corners) + ": must be 0, or 1 with TL_INTERP_BILINEAR");
  if (!bytes_fit(B, C, H, W) || !bytes_fit(B, C, Ho, Wo))
    return fail(TL_ERR_INVALID_ARGUMENT, f + "the bytes of x or y overflow an int64_t");
  return TL_OK;
}

}  // namespace konform::impl::spatial_args
