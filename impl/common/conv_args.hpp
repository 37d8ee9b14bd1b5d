// Argument validation of tinyllm/conv.h, shared by the scalar and simd
// backends and by the catalog's oracle (which must expect the same status):
// each function turns the C arguments into a ConvShape, or into the status
// and message of the first rule they break. Nothing here writes tl_last_error;
// the backends pass a refusal to impl::fail.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "konform/reference/conv_shape.hpp"
#include "tinyllm/conv.h"

namespace konform::impl::conv_args {

using reference::ConvEdge;
using reference::ConvShape;

struct Checked {
  tl_status status = TL_OK;
  std::string message;
  ConvShape shape;
};

namespace detail {

inline Checked refuse(tl_status st, const char* fn, const std::string& why) {
  Checked c;
  c.status = st;
  c.message = std::string(fn) + ": " + why;
  return c;
}

inline std::string str(int64_t v) { return std::to_string(v); }

// name[a] (or name) within lo .. TL_CONV_MAX_SIZE; "" when it is.
inline std::string range(const char* name, int a, int64_t v, int64_t lo) {
  if (v >= lo && v <= TL_CONV_MAX_SIZE) return "";
  const std::string n = a < 0 ? std::string(name) : std::string(name) + "[" + str(a) + "]";
  return n + " = " + str(v) + (v < lo ? " is below " + str(lo) : " is above TL_CONV_MAX_SIZE");
}

// Element counts of x, w and y as 4-byte tensors within an int64_t.
inline bool bytes_fit(const ConvShape& s, int64_t w_elems) {
  __int128 x = static_cast<__int128>(s.B) * s.C_in * 4, y = static_cast<__int128>(s.B) * s.C_out * 4;
  __int128 w = static_cast<__int128>(w_elems) * 4;
  for (int a = 0; a < s.nd; ++a) {
    x *= s.in[a], y *= s.out[a], w *= s.kernel[a];
    if (x > INT64_MAX || y > INT64_MAX || w > INT64_MAX) return false;
  }
  return x <= INT64_MAX && y <= INT64_MAX && w <= INT64_MAX;
}

// The checks every variant shares: the counts, then each dimension's sizes.
// A null stride means the kernel, padding 0, dilation 1 (Pool's defaults).
// `channels` names the one count of an op whose C_in, C_out and groups are
// all its C (Pool, DepthwiseConv), so a message names the caller's argument.
inline std::string common(ConvShape& s, const int64_t* in, const int64_t* k, const int64_t* st, const int64_t* p,
                          const int64_t* d, const char* channels = nullptr) {
  if (s.B < 0 || s.B > TL_CONV_MAX_SIZE) return range("B", -1, s.B, 0);
  if (channels != nullptr) {
    if (std::string e = range(channels, -1, s.C_in, 1); !e.empty()) return e;
  }
  for (auto [name, v] : {std::pair{"C_in", s.C_in}, std::pair{"C_out", s.C_out}, std::pair{"groups", s.groups}})
    if (std::string e = range(name, -1, v, 1); !e.empty()) return e;
  for (int a = 0; a < s.nd; ++a) {
    struct Row {
      const char* name;
      const int64_t* arr;
      int64_t lo;
    };
    for (const Row& r : {Row{"in_size", in, 1}, Row{"kernel", k, 1}, Row{"stride", st, 1}, Row{"padding", p, 0},
                         Row{"dilation", d, 1}})
      if (r.arr != nullptr)
        if (std::string e = range(r.name, a, r.arr[a], r.lo); !e.empty()) return e;
    s.in[a] = in[a], s.kernel[a] = k[a];
    s.stride[a] = st == nullptr ? k[a] : st[a];
    s.pad[a] = p == nullptr ? 0 : p[a];
    s.dil[a] = d == nullptr ? 1 : d[a];
  }
  return "";
}

inline Checked groups_and_extent(const char* fn, ConvShape s, int64_t w_elems) {
  if (s.C_in % s.groups != 0 || s.C_out % s.groups != 0)
    return refuse(TL_ERR_SHAPE, fn,
                  "C_in = " + str(s.C_in) + " and C_out = " + str(s.C_out) +
                      " must both be multiples of groups = " + str(s.groups));
  for (int a = 0; a < s.nd; ++a)
    if (s.out[a] < 1)
      return refuse(TL_ERR_SHAPE, fn,
                    "output extent " + str(s.out[a]) + " < 1 in dimension " + str(a) +
                        ": the dilated kernel is longer than the padded input");
  if (!bytes_fit(s, w_elems))
    return refuse(TL_ERR_INVALID_ARGUMENT, fn, "a tensor's byte count does not fit an int64_t");
  Checked c;
  c.shape = s;
  return c;
}

}  // namespace detail

inline Checked conv(int64_t B, int64_t C_in, int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in,
                    const int64_t* k, const int64_t* st, const int64_t* p, const int64_t* d,
                    const char* fn = "tl_conv_f32", const char* channels = nullptr) {
  if (n_dims < 1 || n_dims > 3)
    return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn, "n_dims = " + detail::str(n_dims) + " is not 1, 2 or 3");
  ConvShape s;
  s.nd = static_cast<int>(n_dims), s.B = B, s.C_in = C_in, s.C_out = C_out, s.groups = groups;
  if (std::string e = detail::common(s, in, k, st, p, d, channels); !e.empty())
    return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn, e);
  for (int a = 0; a < s.nd; ++a)
    s.out[a] = reference::conv_out_extent(s.in[a], s.kernel[a], s.stride[a], s.pad[a], s.dil[a]);
  return detail::groups_and_extent(fn, s, C_out * (C_in / groups));
}

inline Checked depthwise(int64_t B, int64_t C, const int64_t* in, const int64_t* k, const int64_t* st, const int64_t* p,
                         const int64_t* d) {
  return conv(B, C, C, C, 2, in, k, st, p, d, "tl_depthwise_conv2d_f32", "C");
}

inline Checked conv_transpose2d(int64_t B, int64_t C_in, int64_t C_out, int64_t groups, const int64_t* in,
                                const int64_t* k, const int64_t* st, const int64_t* p, const int64_t* op,
                                const int64_t* d) {
  const char* fn = "tl_conv_transpose2d_f32";
  ConvShape s;
  s.nd = 2, s.B = B, s.C_in = C_in, s.C_out = C_out, s.groups = groups;
  s.edge = ConvEdge::transpose, s.weight_in_major = true;
  if (std::string e = detail::common(s, in, k, st, p, d); !e.empty())
    return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn, e);
  for (int a = 0; a < 2; ++a) {
    const int64_t limit = s.stride[a] > s.dil[a] ? s.stride[a] : s.dil[a];
    if (op[a] < 0 || op[a] >= limit)
      return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn,
                            "output_padding[" + detail::str(a) + "] = " + detail::str(op[a]) +
                                " is outside 0 .. max(stride, dilation) - 1 = " + detail::str(limit - 1));
    s.out[a] = (s.in[a] - 1) * s.stride[a] - 2 * s.pad[a] + s.dil[a] * (s.kernel[a] - 1) + op[a] + 1;
  }
  return detail::groups_and_extent(fn, s, C_in * (C_out / groups));
}

inline Checked causal_conv1d(int64_t B, int64_t C_in, int64_t C_out, int64_t groups, int64_t T, int64_t k, int64_t st,
                             int64_t d) {
  const char* fn = "tl_causal_conv1d_f32";
  ConvShape s;
  s.nd = 1, s.B = B, s.C_in = C_in, s.C_out = C_out, s.groups = groups, s.edge = ConvEdge::replicate_left;
  const int64_t zero = 0;
  if (std::string e = detail::common(s, &T, &k, &st, &zero, &d); !e.empty())
    return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn, e);
  s.pad[0] = d * (k - 1);  // left only: the output's first sample sees x[0] alone
  s.out[0] = (T - 1) / st + 1;
  return detail::groups_and_extent(fn, s, C_out * (C_in / groups));
}

inline Checked pool(int64_t B, int64_t C, const int64_t* in, const int64_t* k, const int64_t* st, const int64_t* p,
                    int mode) {
  const char* fn = "tl_pool_f32";
  if (mode != TL_POOL_MAX && mode != TL_POOL_AVG)
    return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn,
                          "mode = " + detail::str(mode) + " is neither TL_POOL_MAX (0) nor TL_POOL_AVG (1)");
  ConvShape s;
  s.nd = 2, s.B = B, s.C_in = C, s.C_out = C, s.groups = C;
  if (std::string e = detail::common(s, in, k, st, p, nullptr, "C"); !e.empty())
    return detail::refuse(TL_ERR_INVALID_ARGUMENT, fn, e);
  for (int a = 0; a < 2; ++a) s.out[a] = reference::conv_out_extent(s.in[a], s.kernel[a], s.stride[a], s.pad[a], 1);
  return detail::groups_and_extent(fn, s, C);
}

}  // namespace konform::impl::conv_args
