// The convolutions of spec §6: Conv1d, Conv2d and Conv3d (one C function,
// tl_conv_f32, with 1, 2 or 3 spatial dimensions), DepthwiseConv,
// ConvTranspose2d and CausalConv1d. Pool is in pool.cpp.
#include <string>

#include "conv_support.hpp"
#include "konform/c_call.hpp"
#include "tinyllm/conv.h"

namespace konform::ops {

std::vector<OpSpec> conv();

namespace {

using namespace convs;

struct Variant {
  const char* name;
  Kind kind;
  int nd;
  const char* symbol;
  const char* summary;
  const char* spec;              // OpSpec::spec
  const char* limit_derivation;  // the `why` of its f32 tolerance rule
};

// A geometry drawn at random: small spatial extents (the oracle does
// B C_out prod(out) K multiply-adds twice), each knob across its range,
// paddings past the kernel, groups 1, a few or depthwise, batch 0 now and then.
Geometry random_geometry(const Variant& v, Rng& rng) {
  Geometry g;
  g.nd = v.nd;
  const int64_t max_in = v.nd == 1 ? 70 : v.nd == 2 ? 24 : 7;
  const int64_t max_k = v.nd == 3 ? 3 : 5;
  for (int a = 0; a < g.nd; ++a) {
    g.in[a] = rng.range(1, max_in);
    g.k[a] = rng.range(1, max_k);
    g.s[a] = rng.chance(0.5) ? 1 : rng.range(2, 3);
    g.d[a] = rng.chance(0.6) ? 1 : rng.range(2, 3);
    g.p[a] = v.kind == Kind::causal ? 0 : rng.chance(0.4) ? 0 : rng.range(1, g.k[a] + 2);
    if (v.kind == Kind::transpose) {
      g.in[a] = rng.range(1, 12);
      g.op[a] = rng.range(0, std::max(g.s[a], g.d[a]) - 1);
    }
  }
  g.B = rng.chance(0.05) ? 0 : rng.range(1, 3);
  if (v.kind == Kind::depthwise) {
    g.C_in = g.C_out = g.groups = rng.range(1, 9);
  } else {
    const int which = static_cast<int>(rng.range(0, 9));
    g.groups = which < 5 ? 1 : which < 8 ? rng.range(2, 4) : rng.range(2, 8);
    const bool dw = which >= 8;  // depthwise through groups = C_in = C_out
    g.C_in = g.groups * (dw ? 1 : rng.range(1, 8));
    g.C_out = g.groups * (dw ? 1 : rng.range(1, 8));
  }
  g.bias = rng.chance(0.7);
  make_valid(v.kind, g);
  return g;
}

// The edge shapes, one list for every variant (entries a variant cannot take
// are adjusted by make_valid): 1x1 kernels, strides and dilations past 1,
// padding past the kernel, groups 1, 2 and depthwise, an empty batch, no
// bias, and output rows of 1, 15, 16, 17, 33 and 65 (around the vector
// widths and the 64-position tile of libtl_kernels).
std::vector<Geometry> edge_geometries(const Variant& v) {
  struct E {
    int64_t B, Ci, Co, groups, in, k, s, p, d;
    bool bias;
  };
  const E list[] = {
      {1, 1, 1, 1, 1, 1, 1, 0, 1, false},  {1, 3, 4, 1, 5, 1, 1, 0, 1, true},   {2, 4, 6, 2, 9, 3, 1, 1, 1, true},
      {1, 2, 3, 1, 17, 3, 2, 1, 1, true},  {1, 2, 2, 1, 13, 3, 1, 2, 2, true},  {1, 3, 2, 1, 6, 2, 1, 4, 1, false},
      {0, 2, 3, 1, 8, 3, 1, 1, 1, true},   {1, 4, 4, 4, 15, 3, 1, 1, 1, true},  {1, 2, 5, 1, 16, 1, 1, 0, 1, true},
      {1, 2, 5, 1, 17, 1, 1, 0, 1, false}, {1, 1, 3, 1, 35, 3, 1, 0, 1, true},  {1, 3, 9, 1, 67, 3, 1, 0, 1, true},
      {1, 6, 6, 3, 20, 3, 3, 2, 2, true},  {2, 8, 8, 8, 11, 5, 2, 3, 1, false},
  };
  std::vector<Geometry> out;
  for (const E& e : list) {
    Geometry g;
    g.nd = v.nd;
    g.B = e.B, g.C_in = e.Ci, g.C_out = e.Co, g.groups = e.groups, g.bias = e.bias;
    if (v.kind == Kind::depthwise) g.C_in = g.C_out = g.groups = e.Ci;
    for (int a = 0; a < g.nd; ++a) {
      // 3-d and transposed: smaller extents; the innermost dimension takes the listed width.
      const bool inner = a == g.nd - 1;
      g.in[a] = inner ? e.in : std::min<int64_t>(e.in, 5);
      if (v.kind == Kind::transpose) g.in[a] = std::min<int64_t>(g.in[a], 9);
      g.k[a] = g.nd == 3 ? std::min<int64_t>(e.k, 3) : e.k;
      g.s[a] = e.s, g.p[a] = v.kind == Kind::causal ? 0 : e.p, g.d[a] = e.d;
      if (v.kind == Kind::transpose) g.op[a] = std::max(e.s, e.d) - 1;
    }
    make_valid(v.kind, g);
    out.push_back(g);
  }
  return out;
}

// The parameters every case holds (convs::write_params): the geometry, each
// per-dimension array with all three axes (in0 .. in2, k0 .. k2, ...; those
// below n_dims read), and Pool's mode and NULL stride, unused here.
std::vector<ParamSpec> declared_params(const Variant& v) {
  const bool dw = v.kind == Kind::depthwise, causal = v.kind == Kind::causal, transpose = v.kind == Kind::transpose;
  const std::string channels = ">= 1, <= 2^31 - 1, a multiple of groups (else TL_ERR_SHAPE)";
  const std::string nd = std::to_string(v.nd);
  return {{"nd", ParamType::i64,
           v.kind == Kind::conv ? "n_dims: 1, 2 or 3 (" + nd + " here); others refused"
                                : nd + " (the spatial dimensions; not passed)"},
          {"B", ParamType::i64, ">= 0; every tensor's bytes within int64_t"},
          {"C_in", ParamType::i64, dw ? "C: >= 1, <= 2^31 - 1" : channels},
          {"C_out", ParamType::i64, dw ? "equal to C_in (not passed)" : channels},
          {"groups", ParamType::i64, dw ? "equal to C_in (not passed)" : ">= 1, divides C_in and C_out"},
          {"bias", ParamType::i64, "1 when bias [C_out] is passed, 0 when it is NULL"},
          {"mode", ParamType::i64, "0 (Pool's mode; not passed)"},
          {"default_stride", ParamType::i64, "0 (Pool's NULL stride; not passed)"},
          {"in#", ParamType::i64,
           causal ? "in0 = T: >= 1, <= 2^31 - 1; in1, in2 unused (1)"
                  : "in_size[a]: >= 1, <= 2^31 - 1; past n_dims unused (1)"},
          {"k#", ParamType::i64,
           std::string("kernel[a]: >= 1, <= 2^31 - 1; past n_dims unused (1)") +
               (causal      ? ""
                : transpose ? "; an output extent < 1 is TL_ERR_SHAPE"
                            : "; an output extent < 1 (the dilated kernel past the padded input) is TL_ERR_SHAPE")},
          {"s#", ParamType::i64, "stride[a]: >= 1, <= 2^31 - 1; past n_dims unused (1)"},
          {"p#", ParamType::i64,
           causal ? "0: no padding argument; dilation (kernel - 1) samples replicate x[0] on the left"
                  : "padding[a]: >= 0, <= 2^31 - 1; past n_dims unused (0)"},
          {"d#", ParamType::i64, "dilation[a]: >= 1, <= 2^31 - 1; past n_dims unused (1)"},
          {"op#", ParamType::i64,
           transpose ? "output_padding[a]: 0 .. max(stride[a], dilation[a]) - 1"
                     : "0 (ConvTranspose2d's output_padding; not passed)"}};
}

OpSpec declare(const Variant& v) {
  OpSpec op;
  op.name = v.name;
  op.tolerances = {{DType::f32, "256", "-", v.limit_derivation}};
  op.args = {{"x", Access::in, "T", "B, C_in, in#[nd]"},
             {"w", Access::in, "T",
              v.kind == Kind::transpose ? "C_in, C_out / groups, k#[nd]" : "C_out, C_in / groups, k#[nd]"},
             {"bias", Access::in, "T", "C_out", {Match::tolerance}, {}, true},
             {"y", Access::out, "T", kShapeByOracle},  // the output sizes of the geometry
             status_output()};
  op.group = "conv";
  op.symbol = v.symbol;
  op.summary = v.summary;
  op.spec = v.spec;
  op.params = declared_params(v);
  op.domain =
      "K = C_in/groups * prod(kernel) <= 127 terms per output (the tolerance's derivation); |x|, |w|, "
      "|bias| <= 1e15 (no float product or sum overflows where the exact one does not), every value class "
      "incl. NaN/Inf; groups 1, 2..4 and depthwise; one case in ten past the edges has a bad argument "
      "(zero stride, kernel or dilation, negative padding or batch, groups dividing nothing, a kernel "
      "longer than the padded input, a size past 2^31), which must be refused";
  op.status = "status";
  const auto edges = std::make_shared<std::vector<Geometry>>(edge_geometries(v));
  op.edge_cases = static_cast<int64_t>(edges->size());
  op.make_case = [v, edges](Rng& rng, int64_t i) {
    const bool edge = i < static_cast<int64_t>(edges->size());
    const Geometry g = edge ? (*edges)[static_cast<size_t>(i)] : random_geometry(v, rng);
    Case c = convs::make_case(v.kind, rng, g);
    if (!edge && rng.chance(0.1)) c.label += " " + make_invalid(v.kind, rng, c);
    return c;
  };
  const Kind kind = v.kind;
  op.oracle = [kind](const Case& c) { return convs::oracle(kind, c); };
  switch (kind) {
    // The geometry's arrays are the parameters in0 .. in2 (the cases write
    // all three; the ABI reads n_dims of them), bias NULL where bias is 0.
    case Kind::conv:
      declare_c_call<decltype(tl_conv_f32)>(op, {"x", "w", "bias?bias", "y", "B", "C_in", "C_out", "groups", "nd",
                                                 "in#[3]", "k#[3]", "s#[3]", "p#[3]", "d#[3]"});
      break;
    case Kind::depthwise:
      declare_c_call<decltype(tl_depthwise_conv2d_f32)>(
          op, {"x", "w", "bias?bias", "y", "B", "C_in", "in#[2]", "k#[2]", "s#[2]", "p#[2]", "d#[2]"});
      break;
    case Kind::transpose:
      declare_c_call<decltype(tl_conv_transpose2d_f32)>(op, {"x", "w", "bias?bias", "y", "B", "C_in", "C_out", "groups",
                                                             "in#[2]", "k#[2]", "s#[2]", "p#[2]", "op#[2]", "d#[2]"});
      break;
    case Kind::causal:
      declare_c_call<decltype(tl_causal_conv1d_f32)>(
          op, {"x", "w", "bias?bias", "y", "B", "C_in", "C_out", "groups", "in0", "k0", "s0", "d0"});
      break;
    case Kind::pool: break;
  }
  return op;
}

}  // namespace

std::vector<OpSpec> conv() {
  const Variant variants[] = {
      {"Conv1d", Kind::conv, 1, "tl_conv_f32",
       "x [B, C_in, L] * w [C_out, C_in/groups, k] (+ bias) -> [B, C_out, L'], stride/padding/dilation/groups; "
       "n_dims = 1",
       "operations.txt 6. Convolution: Conv1d, Conv2d, Conv3d",
       "each output sums K = C_in/groups * kernel <= 127 products and the bias: a recursive float "
       "sum (libtl_kernels' chain of multiply-adds) errs by <= (K + 1) u of s = sum |x w| + |bias|"
       " (Higham's gamma_{K+1}), pairwise (scalar) by <= (log2 K + 2) u; products and sums rounded"
       " into the subnormals add <= (K + 1) 2^-150 = (K + 1)/2 u FLT_MIN: in all <= "
       "192 u of max(s, FLT_MIN) < 256; a dropped tap, a wrong pad or group is >= 2^23 u"},
      {"Conv2d", Kind::conv, 2, "tl_conv_f32",
       "x [B, C_in, H, W] * w [C_out, C_in/groups, kH, kW] (+ bias) -> [B, C_out, H', W'], zero padding; n_dims = 2",
       "operations.txt 6. Convolution: Conv1d, Conv2d, Conv3d",
       "as Conv1d: K = C_in/groups * kH kW <= 127 terms plus the bias, <= (K + 1) u of s = sum |x "
       "w| + |bias| and (K + 1)/2 u FLT_MIN of underflow: <= 192 u of max(s, FLT_MIN)"},
      {"Conv3d", Kind::conv, 3, "tl_conv_f32",
       "x [B, C_in, D, H, W] * w [C_out, C_in/groups, kD, kH, kW] (+ bias) -> [B, C_out, D', H', W']; n_dims = 3",
       "operations.txt 6. Convolution: Conv1d, Conv2d, Conv3d",
       "as Conv1d: K = C_in/groups * kD kH kW <= 127 terms plus the bias: <= 192 u of max(s, "
       "FLT_MIN), s = sum |x w| + |bias|"},
      {"DepthwiseConv", Kind::depthwise, 2, "tl_depthwise_conv2d_f32",
       "Conv2d with groups = C_in = C_out: w [C, 1, kH, kW], each channel its own filter",
       "operations.txt 6. Convolution: DepthwiseConv",
       "as Conv2d with C_in/groups = 1: K = kH kW <= 127 terms plus the bias: <= 192 u of max(s, "
       "FLT_MIN)"},
      {"ConvTranspose2d", Kind::transpose, 2, "tl_conv_transpose2d_f32",
       "the adjoint of Conv2d: x [B, C_in, H, W], w [C_in, C_out/groups, kH, kW] -> [B, C_out, (H-1)s - 2p + "
       "d(k-1) + output_padding + 1, ...]",
       "operations.txt 6. Convolution: ConvTranspose2d",
       "each output sums the K <= C_in/groups * kH kW <= 127 products whose tap lands on it, plus "
       "the bias: as Conv2d, <= 192 u of max(s, FLT_MIN), s = sum |x w| + |bias| over those taps"},
      {"CausalConv1d", Kind::causal, 1, "tl_causal_conv1d_f32",
       "Conv1d with dilation (k-1) samples of x[.., 0] replicated on the left: y[t] reads x[<= t stride]",
       "operations.txt 6. Convolution: CausalConv1d",
       "as Conv1d (the replicated samples are copies of x[0], no extra rounding): K = C_in/groups "
       "* kernel <= 127 terms plus the bias, <= 192 u of max(s, FLT_MIN)"},
  };
  std::vector<OpSpec> ops;
  for (const Variant& v : variants) ops.push_back(declare(v));
  return ops;
}

}  // namespace konform::ops
