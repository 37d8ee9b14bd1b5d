// The geometry shared by the convolutions and Pool of tinyllm/conv.h
// (spec/operations.txt section 6): sizes per spatial dimension and the rule
// that maps an output position and a kernel tap to the input element it reads.
// Plain integers, no scalar type: the oracle, both backends and the harness
// use the same map, so they differ only in arithmetic.
#pragma once

#include <cstdint>

// Under nvcc the map is device code too: libtl_cuda's convolutions read it.
#ifdef __CUDACC__
#define KONFORM_CONV_MAP __host__ __device__
#else
#define KONFORM_CONV_MAP
#endif

namespace konform::reference {

// What a tap outside the input reads, and how taps are placed.
enum class ConvEdge {
  zero,            // i = o s + k d - p; outside the input: 0 (Conv, Pool avg)
  replicate_left,  // i = o s + k d - p, clamped to >= 0 (CausalConv1d: the first sample repeats)
  transpose,       // the input i with i s = o + p - k d (ConvTranspose2d); none: 0
};

struct ConvShape {
  int nd = 2;  // spatial dimensions, 1 .. 3
  int64_t B = 0, C_in = 1, C_out = 1, groups = 1;
  int64_t in[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  ConvEdge edge = ConvEdge::zero;
  bool weight_in_major = false;  // W [C_in, C_out/groups, k...] (ConvTranspose2d) instead of [C_out, C_in/groups, k...]

  KONFORM_CONV_MAP int64_t in_elems() const { return prod(in); }
  KONFORM_CONV_MAP int64_t out_elems() const { return prod(out); }
  KONFORM_CONV_MAP int64_t taps() const { return prod(kernel); }
  KONFORM_CONV_MAP int64_t cin_g() const { return C_in / groups; }
  KONFORM_CONV_MAP int64_t cout_g() const { return C_out / groups; }

  // The flat spatial input index that output position o (flat over out[])
  // reads at tap kk (flat over kernel[]), or -1 where the spec reads a pad.
  KONFORM_CONV_MAP int64_t source(int64_t o, int64_t kk) const {
    int64_t oi[3], ki[3];
    unflatten(o, out, oi);
    unflatten(kk, kernel, ki);
    int64_t flat = 0;
    for (int a = 0; a < nd; ++a) {
      int64_t i;
      if (edge == ConvEdge::transpose) {
        const int64_t num = oi[a] + pad[a] - ki[a] * dil[a];
        if (num < 0 || num % stride[a] != 0) return -1;
        i = num / stride[a];
      } else {
        i = oi[a] * stride[a] + ki[a] * dil[a] - pad[a];
        if (edge == ConvEdge::replicate_left && i < 0) i = 0;
      }
      if (i < 0 || i >= in[a]) return -1;
      flat = flat * in[a] + i;
    }
    return flat;
  }

  // Offset in W of the weight that output channel co applies to channel ci
  // of its group at tap kk.
  KONFORM_CONV_MAP int64_t weight_index(int64_t co, int64_t ci, int64_t kk) const {
    if (!weight_in_major) return (co * cin_g() + ci) * taps() + kk;
    const int64_t g = co / cout_g();
    return ((g * cin_g() + ci) * cout_g() + co % cout_g()) * taps() + kk;
  }

 private:
  KONFORM_CONV_MAP int64_t prod(const int64_t* v) const {
    int64_t p = 1;
    for (int a = 0; a < nd; ++a) p *= v[a];
    return p;
  }
  KONFORM_CONV_MAP void unflatten(int64_t flat, const int64_t* extent, int64_t* idx) const {
    for (int a = nd - 1; a >= 0; --a) {
      idx[a] = flat % extent[a];
      flat /= extent[a];
    }
  }
};

// The spec's output extent of a zero-padded convolution, or <= 0 where the
// dilated kernel does not fit the padded input (the division floors).
inline int64_t conv_out_extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? 0 : span / s + 1;
}

}  // namespace konform::reference
