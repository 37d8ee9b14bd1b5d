// libtl_cuda (or its emulated build) refuses the calls libtl_kernels refuses,
// with the same status and the same tl_last_error words, and writes nothing;
// and so does each one's device-pointer twin tl_X_dev (stream NULL) on the
// same arguments. The checks run before any CUDA call, so this needs no GPU:
// it checks the nvcc-built library's host side where no kernel can run. The
// twins' checks that read tensor data (positions, ids, Quantize's values)
// copy it from the device first: those are made on the emulated build only,
// whose device memory is host memory.
//   usage: konform_cuda_refusals_test LIBRARY.so
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "tinyllm/activations.h"
#include "tinyllm/norm.h"
#include "tinyllm/pos.h"
#include "tinyllm/linalg.h"
#include "tinyllm/quant.h"
#include "tinyllm/attention.h"
#include "tinyllm/conv.h"
#include "tinyllm/kv_cache.h"
#include "tinyllm/sampling.h"
#include "tinyllm/spatial.h"
#include "tinyllm/tensor.h"
#include "tinyllm/cuda/kv_cache.h"
#include "tinyllm/cuda/stream.h"

namespace {

void* library = nullptr;
int failures = 0;
float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
float y[8];

// The emulated build (no probe): its device memory is host memory.
bool emulated() { return dlsym(library, "tl_backend_unavailable") == nullptr; }

// Calls `fn` in the library under test (`call`: the host function or its
// twin) and in libtl_kernels (linked in) with the same arguments; both must
// refuse alike and leave y as it was.
template <class Other, class R, class... P, class... A>
void compare(const std::string& name, const char* what, Other call, R (*simd)(P...), A... args) {
  auto* other_error = reinterpret_cast<const char* (*)()>(dlsym(library, "tl_last_error"));
  if (other_error == nullptr) {
    std::printf("FAIL: tl_last_error is not exported\n");
    ++failures;
    return;
  }
  for (float& v : y) v = -1.0f;
  const tl_status got = call(args...);
  const std::string got_words = other_error();
  bool untouched = true;
  for (float v : y) untouched = untouched && v == -1.0f;
  const tl_status want = simd(args...);
  const std::string want_words = tl_last_error();
  if (want == TL_OK || got != want || got_words != want_words || !untouched) {
    std::printf("FAIL: %s (%s): status %d \"%s\"%s; libtl_kernels: %d \"%s\"\n", name.c_str(), what, got,
                got_words.c_str(), untouched ? "" : ", y written", want, want_words.c_str());
    ++failures;
  }
}

// The host function, then its twin tl_X_dev(args..., NULL) (`reads_data`:
// a refusal the twin finds in device data, checked on the emulated build).
template <class R, class... P, class... A>
void same(const char* name, const char* what, bool reads_data, R (*simd)(P...), A... args) {
  auto* host = reinterpret_cast<R (*)(P...)>(dlsym(library, name));
  const std::string dev_name = std::string(name) + "_dev";
  auto* dev = reinterpret_cast<R (*)(P..., tl_cuda_stream)>(dlsym(library, dev_name.c_str()));
  if (host == nullptr || dev == nullptr) {
    std::printf("FAIL: %s or %s is not exported\n", name, dev_name.c_str());
    ++failures;
    return;
  }
  compare(name, what, host, simd, args...);
  if (!reads_data || emulated())
    compare(
        dev_name, what, [dev](P... p) { return dev(p..., nullptr); }, simd, args...);
}

}  // namespace

#define SAME(fn, what, ...) same(#fn, what, false, &fn, __VA_ARGS__)
#define SAME_READING_DATA(fn, what, ...) same(#fn, what, true, &fn, __VA_ARGS__)
// An op in f32, f16 and bf16 (fn_f32, fn_f16, fn_bf16) on the same
// arguments, written with X, Y, XS and YS for its tensors: x, y, xs and ys
// for f32, their words as 16-bit patterns (hx, hy, hxs, hys) for the halves.
#define SAME_DTYPES_AS(same, fn, what, ...)                    \
  do {                                                         \
    {                                                          \
      [[maybe_unused]] const float *X = x, *const *XS = xs;    \
      [[maybe_unused]] float *Y = y, *const *YS = ys;          \
      same(fn##_f32, what, __VA_ARGS__);                       \
    }                                                          \
    [[maybe_unused]] const uint16_t *X = hx, *const *XS = hxs; \
    [[maybe_unused]] uint16_t *Y = hy, *const *YS = hys;       \
    same(fn##_f16, what, __VA_ARGS__);                         \
    same(fn##_bf16, what, __VA_ARGS__);                        \
  } while (0)
#define SAME_DTYPES(fn, what, ...) SAME_DTYPES_AS(SAME, fn, what, __VA_ARGS__)
#define SAME_DTYPES_READING_DATA(fn, what, ...) SAME_DTYPES_AS(SAME_READING_DATA, fn, what, __VA_ARGS__)

namespace {

// tinyllm/kv_cache.h is a table, not symbols: the same script of calls on
// both libraries' caches, each status and tl_last_error compared; then on
// the device table (tinyllm/cuda/kv_cache.h), stream NULL, against
// libtl_kernels' host table (`ours`: the f32 table or the f16 or bf16 one).
// `append` calls a table's append_f32.
template <class Api>
tl_status view_of(const Api* api, const tl_kv_cache* c, int64_t layer) {
  if constexpr (requires { api->view_half; }) {
    tl_kv_view_half view;
    return api->view_half(c, layer, &view);
  } else {
    tl_kv_view_f32 view;
    return api->view_f32(c, layer, &view);
  }
}

template <class Ours, class Api, class Append>
void same_kv_cache(const char* table, const Ours* ours, const Api* theirs, Append append, bool appends_host_memory) {
  auto* other_error = reinterpret_cast<const char* (*)()>(dlsym(library, "tl_last_error"));
  if (theirs == nullptr || other_error == nullptr) {
    std::printf("FAIL: %s or tl_last_error is not exported\n", table);
    ++failures;
    return;
  }
  tl_kv_cache *a = nullptr, *b = nullptr;
  const auto compare = [&](const char* what, tl_status got, tl_status want) {
    const std::string got_words = other_error(), want_words = tl_last_error();
    if (want == TL_OK || got != want || got_words != want_words) {
      std::printf("FAIL: %s (%s): status %d \"%s\"; libtl_kernels: %d \"%s\"\n", table, what, got, got_words.c_str(),
                  want, want_words.c_str());
      ++failures;
    }
  };
  compare("0 layers", theirs->create(0, 1, 1, 1, &a), ours->create(0, 1, 1, 1, &b));
  compare("a byte count past int64_t", theirs->create(1 << 20, 1 << 20, 1 << 20, 1 << 20, &a),
          ours->create(1 << 20, 1 << 20, 1 << 20, 1 << 20, &b));
  compare("max_seq 2^61 (2^63 bytes in f16)", theirs->create(1, 1, 1, int64_t{1} << 61, &a),
          ours->create(1, 1, 1, int64_t{1} << 61, &b));
  // A cache holds device memory from create on: the rest only where the library can run.
  auto* probe = reinterpret_cast<const char* (*)()>(dlsym(library, "tl_backend_unavailable"));
  if ((probe != nullptr && probe() != nullptr) || !appends_host_memory) return;
  if (theirs->create(2, 1, 2, 4, &a) != TL_OK || ours->create(2, 1, 2, 4, &b) != TL_OK) {
    std::printf("FAIL: %s: create(2, 1, 2, 4) refused\n", table);
    ++failures;
    return;
  }
  compare("append outside a forward", append(a, 0, x, x), ours->append_f32(b, 0, x, x));
  compare("begin 0", theirs->begin(a, 0), ours->begin(b, 0));
  compare("begin past max_seq", theirs->begin(a, 5), ours->begin(b, 5));
  theirs->begin(a, 1), ours->begin(b, 1);
  compare("begin twice", theirs->begin(a, 1), ours->begin(b, 1));
  compare("layer 2 of 2", append(a, 2, x, x), ours->append_f32(b, 2, x, x));
  compare("commit before layer 1 appended", (append(a, 0, x, x), theirs->commit(a)),
          (ours->append_f32(b, 0, x, x), ours->commit(b)));
  compare("layer 0 twice", append(a, 0, x, x), ours->append_f32(b, 0, x, x));
  compare("view of layer -1", view_of(theirs, a, -1), view_of(ours, b, -1));
  theirs->destroy(a), ours->destroy(b);
}

// The host and device tables named `host_symbol` and `dev_symbol` against `ours`.
template <class Ours, class Api, class DevApi>
void same_kv_cache_tables(const Ours* ours, const char* host_symbol, const char* dev_symbol) {
  auto* api = reinterpret_cast<const Api* (*)()>(dlsym(library, host_symbol));
  auto* dev_api = reinterpret_cast<const DevApi* (*)()>(dlsym(library, dev_symbol));
  const Api* host = api == nullptr ? nullptr : api();
  const DevApi* dev = dev_api == nullptr ? nullptr : dev_api();
  same_kv_cache(
      host_symbol, ours, host,
      [host](tl_kv_cache* c, int64_t layer, const float* k, const float* v) {
        return host->append_f32(c, layer, k, v);
      },
      true);
  // Its appends read device memory: x is that only on the emulated build.
  same_kv_cache(
      dev_symbol, ours, dev,
      [dev](tl_kv_cache* c, int64_t layer, const float* k, const float* v) {
        return dev->append_f32(c, layer, k, v, nullptr);
      },
      emulated());
}

void same_kv_caches() {
  same_kv_cache_tables<tl_kv_cache_api, tl_kv_cache_api, tl_kv_cache_dev_api>(
      tl_kv_cache_api_v1(), "tl_kv_cache_api_v1", "tl_kv_cache_dev_api_v1");
  same_kv_cache_tables<tl_kv_cache_half_api, tl_kv_cache_half_api, tl_kv_cache_half_dev_api>(
      tl_kv_cache_f16_api_v1(), "tl_kv_cache_f16_api_v1", "tl_kv_cache_f16_dev_api_v1");
  same_kv_cache_tables<tl_kv_cache_half_api, tl_kv_cache_half_api, tl_kv_cache_half_dev_api>(
      tl_kv_cache_bf16_api_v1(), "tl_kv_cache_bf16_api_v1", "tl_kv_cache_bf16_dev_api_v1");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: konform_cuda_refusals_test LIBRARY.so\n");
    return 2;
  }
  library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::printf("FAIL: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t s4[] = {4}, s3[] = {3}, s24[] = {2, 4}, s42[] = {4, 2}, s8[] = {8}, perm00[] = {0, 0};
  const int64_t shapes_2_3[] = {4, 3}, sizes_3_3[] = {3, 3};
  const float* xs[] = {x, x};
  float* ys[] = {y, y};
  // The half twins' buffers: x's and y's words as 16 patterns of f16 or bf16.
  const auto* hx = reinterpret_cast<const uint16_t*>(x);
  auto* hy = reinterpret_cast<uint16_t*>(y);
  const uint16_t* hxs[] = {hx, hx};
  uint16_t* hys[] = {hy, hy};

  SAME_DTYPES(tl_softmax, "rank 5", X, Y, s4, 5, 0);
  SAME_DTYPES(tl_softmax, "axis 1 of rank 1", X, Y, s4, 1, 1);
  SAME_DTYPES(tl_geglu, "approximation 2", X, X, Y, int64_t{4}, 2);
  SAME_DTYPES(tl_add_broadcast, "[4] + [3]", X, s4, int64_t{1}, X, s3, int64_t{1}, Y, s4, int64_t{1});
  SAME_DTYPES(tl_div_broadcast, "y of the wrong shape", X, s24, int64_t{2}, X, s4, int64_t{1}, Y, s42, int64_t{2});
  SAME_DTYPES(tl_mul_broadcast, "rank 7", X, s4, int64_t{7}, X, s4, int64_t{1}, Y, s4, int64_t{1});
  SAME_DTYPES(tl_clamp, "lo > hi", X, Y, int64_t{8}, 2.0f, 1.0f);
  SAME_DTYPES(tl_clamp, "NaN bound", X, Y, int64_t{8}, nan, 1.0f);
  SAME_DTYPES(tl_nan_to_num, "n < 0", X, Y, int64_t{-1}, 0.0f, 1.0f, -1.0f);
  SAME(tl_argmax_axis_f32, "axis 3 of rank 2", x, s24, int64_t{2}, int64_t{3}, reinterpret_cast<int32_t*>(y));
  SAME_DTYPES(tl_transpose, "rank 1", X, s8, int64_t{1}, Y);
  SAME_DTYPES(tl_permute, "perm [0, 0]", X, s24, int64_t{2}, perm00, Y);
  SAME_DTYPES(tl_reshape, "8 elements to 3", X, s8, int64_t{1}, Y, s3, int64_t{1});
  SAME_DTYPES(tl_concat, "no tensors", XS, shapes_2_3, int64_t{0}, int64_t{1}, int64_t{0}, Y);
  SAME_DTYPES(tl_concat, "shapes differing off the axis", XS, shapes_2_3, int64_t{2}, int64_t{1}, int64_t{-2}, Y);
  SAME_DTYPES(tl_split, "sizes adding up to 6 of 8", X, s8, int64_t{1}, int64_t{0}, sizes_3_3, int64_t{2}, YS);
  SAME_DTYPES(tl_chunk, "0 chunks", X, s8, int64_t{1}, int64_t{0}, int64_t{0}, YS);
  const int64_t s2_0[] = {2, 0}, s2_4_0[] = {2, 4, 0}, s_neg[] = {2, -1}, s9[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  SAME_DTYPES(tl_rms_norm, "ndim 9", X, x, Y, s9, int32_t{9}, 1e-5f);
  SAME_DTYPES(tl_layer_norm, "D = 0", X, x, x, Y, s2_0, int32_t{2}, 1e-5f);
  SAME_DTYPES(tl_batch_norm, "NaN eps", X, x, x, x, x, Y, s24, int32_t{2}, nan);
  SAME_DTYPES(tl_group_norm, "3 groups of 4 channels", X, x, x, Y, s24, int32_t{2}, int64_t{3}, 1e-5f);
  SAME_DTYPES(tl_group_norm, "0 groups", X, x, x, Y, s24, int32_t{2}, int64_t{0}, 1e-5f);
  SAME_DTYPES(tl_instance_norm, "a spatial extent of 0", X, x, x, Y, s2_4_0, int32_t{3}, 1e-5f);
  SAME_DTYPES(tl_ada_ln, "ndim 1", X, x, x, Y, s4, int32_t{1}, 1e-5f);
  SAME_DTYPES(tl_ada_ln_zero, "a negative dimension", X, X, x, x, x, Y, Y, s_neg, int32_t{2}, 1e-5f);
  SAME_DTYPES(tl_fused_skip_norm, "eps -1", X, X, x, Y, Y, s24, int32_t{2}, -1.0f);
  const int32_t pos_past[] = {0, 1, 8}, pos_negative[] = {0, -1}, ids[] = {0, 4};
  const int64_t dims_2_4[] = {2, 4}, dims_3[] = {3};
  const float bases[] = {10000.0f, 10000.0f}, bad_base[] = {-1.0f};
  SAME(tl_rope_cache_f32, "odd rot_dim", y, int64_t{2}, int64_t{3}, 10000.0f);
  SAME(tl_rope_cache_f32, "NaN base", y, int64_t{2}, int64_t{4}, nan);
  SAME_DTYPES_READING_DATA(tl_rope_apply, "ContextOverflowError", X, Y, pos_past, int64_t{3}, int64_t{1}, int64_t{2},
                           int64_t{2}, x, int64_t{8}, 0);
  SAME_DTYPES_READING_DATA(tl_rope_apply, "a negative position", X, Y, pos_negative, int64_t{2}, int64_t{1}, int64_t{4},
                           int64_t{4}, x, int64_t{2}, 0);
  SAME_DTYPES(tl_rope_apply, "rot_dim > D", X, Y, pos_past, int64_t{1}, int64_t{1}, int64_t{4}, int64_t{6}, x,
              int64_t{2}, 0);
  SAME_DTYPES(tl_rope_apply, "layout 2", X, Y, pos_past, int64_t{1}, int64_t{1}, int64_t{4}, int64_t{4}, x, int64_t{2},
              2);
  SAME_DTYPES(tl_multi_axis_rope, "widths 2 + 4 of D = 8", X, Y, pos_past, int64_t{1}, int64_t{1}, int64_t{8},
              int64_t{2}, dims_2_4, bases, 0);
  SAME_DTYPES(tl_multi_axis_rope, "an odd width", X, Y, pos_past, int64_t{1}, int64_t{1}, int64_t{3}, int64_t{1},
              dims_3, bases, 0);
  SAME_DTYPES(tl_multi_axis_rope, "a negative base", X, Y, pos_past, int64_t{1}, int64_t{1}, int64_t{2}, int64_t{1},
              dims_2_4, bad_base, 0);
  SAME_DTYPES(tl_sinusoidal_embed, "odd dim", X, Y, int64_t{1}, int64_t{3}, 10000.0f, 0.0f, 0);
  SAME_DTYPES(tl_sinusoidal_embed, "freq_shift = dim / 2", X, Y, int64_t{1}, int64_t{4}, 10000.0f, 2.0f, 0);
  SAME_DTYPES(tl_sinusoidal_embed, "layout 3", X, Y, int64_t{1}, int64_t{4}, 10000.0f, 0.0f, 3);
  SAME_DTYPES_READING_DATA(tl_token_embed, "an id past the vocabulary", X, ids, Y, int64_t{2}, int64_t{4}, int64_t{1});
  SAME_DTYPES_READING_DATA(tl_pos_embed, "ContextOverflowError", X, ids, Y, int64_t{2}, int64_t{4}, int64_t{1});
  SAME_DTYPES(tl_relative_pos_embedding, "2 buckets, bidirectional", X, ids, ids, Y, int64_t{2}, int64_t{2}, int64_t{1},
              int64_t{2}, int64_t{128}, 1);
  SAME_DTYPES(tl_relative_pos_embedding, "max_distance at the exact buckets", X, ids, ids, Y, int64_t{2}, int64_t{2},
              int64_t{1}, int64_t{32}, int64_t{8}, 1);
  // tinyllm/linalg.h
  const int64_t big = int64_t{1} << 40;
  SAME_DTYPES(tl_matmul, "M < 0", X, X, Y, int64_t{-1}, int64_t{2}, int64_t{2});
  SAME_DTYPES(tl_swiglu_ffn, "M * D past INT64_MAX bytes", X, X, X, X, Y, big, big, int64_t{1});
  SAME_DTYPES(tl_geglu_ffn, "gelu 2", X, X, X, X, Y, int64_t{1}, int64_t{2}, int64_t{2}, static_cast<tl_ffn_gelu>(2));
  SAME_DTYPES(tl_glu_ffn, "H < 0", X, X, X, X, Y, int64_t{1}, int64_t{2}, int64_t{-2});
  SAME_DTYPES(tl_fused_swiglu, "D < 0", X, X, X, Y, int64_t{1}, int64_t{-1}, int64_t{2});
  SAME_DTYPES(tl_fused_norm_matmul, "eps NaN", X, x, X, Y, int64_t{2}, int64_t{2}, int64_t{2}, nan);
  SAME_DTYPES(tl_fused_norm_matmul, "K 0", X, x, X, Y, int64_t{2}, int64_t{2}, int64_t{0}, 1e-5f);
  // tinyllm/quant.h (refused Quantize calls must leave the blocks, y here, as they were)
  float ramp[256], huge[256];
  for (int i = 0; i < 256; ++i) ramp[i] = static_cast<float>(i - 128) / 16.0f, huge[i] = i == 7 ? 1e30f : 1.0f;
  float with_nan[32] = {1, 2, 3};
  with_nan[5] = nan;
  SAME(tl_quantize_q8_0_f32, "k 33 not whole blocks", ramp, static_cast<void*>(y), int64_t{1}, int64_t{33});
  SAME_READING_DATA(tl_quantize_q4_0_f32, "a NaN value", with_nan, static_cast<void*>(y), int64_t{1}, int64_t{32});
  SAME_READING_DATA(tl_quantize_q8_0_f32, "a scale past f16", huge, static_cast<void*>(y), int64_t{1}, int64_t{32});
  SAME_READING_DATA(tl_quantize_q4_0_f32, "a scale past f16", huge, static_cast<void*>(y), int64_t{1}, int64_t{32});
  // Q4_K's scales past f16 are only known after its search on the device: Quantize_Q4_K's cases check them.
  SAME_DTYPES(tl_dequantize_q4_k, "rows < 0", static_cast<const void*>(x), Y, int64_t{-1}, int64_t{256});
  // The half twins' values: ramp's and with_nan's in f16 and bf16 (with_nan's NaN stays one), huge's in
  // bf16 (1e30: a scale past f16; f16's own 65504 gives Q8_0 515.8, so f16 has no such refusal).
  uint16_t ramp_f16[256], ramp_bf16[256], nan_f16[32], nan_bf16[32], huge_bf16[256];
  tl_cast_f32_to_f16(ramp, ramp_f16, 256), tl_cast_f32_to_bf16(ramp, ramp_bf16, 256);
  tl_cast_f32_to_f16(with_nan, nan_f16, 32), tl_cast_f32_to_bf16(with_nan, nan_bf16, 32);
  tl_cast_f32_to_bf16(huge, huge_bf16, 256);
  SAME(tl_quantize_q8_0_f16, "k 33 not whole blocks", ramp_f16, static_cast<void*>(y), int64_t{1}, int64_t{33});
  SAME(tl_quantize_q8_0_bf16, "k 33 not whole blocks", ramp_bf16, static_cast<void*>(y), int64_t{1}, int64_t{33});
  SAME_READING_DATA(tl_quantize_q4_0_f16, "a NaN value", nan_f16, static_cast<void*>(y), int64_t{1}, int64_t{32});
  SAME_READING_DATA(tl_quantize_q4_0_bf16, "a NaN value", nan_bf16, static_cast<void*>(y), int64_t{1}, int64_t{32});
  SAME_READING_DATA(tl_quantize_q8_0_bf16, "a scale past f16", huge_bf16, static_cast<void*>(y), int64_t{1},
                    int64_t{32});
  SAME_READING_DATA(tl_quantize_q4_0_bf16, "a scale past f16", huge_bf16, static_cast<void*>(y), int64_t{1},
                    int64_t{32});
  SAME(tl_qmatmul_q4_0_f32, "K 16 not whole blocks", x, static_cast<const void*>(x), y, int64_t{1}, int64_t{1},
       int64_t{16});
  // tinyllm/attention.h
  const int64_t one = 1, two = 2;
  SAME_DTYPES(tl_sdpa, "3 heads over 2 KV heads", X, X, X, x, Y, one, int64_t{3}, two, one, one, two, 0,
              TL_ATTN_MASK_NONE);
  SAME_DTYPES(tl_sdpa, "mask kind 5", X, X, X, x, Y, one, one, one, one, one, two, 0, static_cast<tl_attn_mask>(5));
  SAME_DTYPES(tl_flash_attention, "head_dim 0", X, X, X, x, Y, one, one, one, one, one, int64_t{0}, 1,
              TL_ATTN_MASK_NONE);
  SAME_DTYPES(tl_sdpa_cross, "sq > 0 over no key", X, X, X, Y, one, one, one, int64_t{0}, two);
  SAME_DTYPES(tl_sdpa_window, "seq 3 in windows of 2", X, X, X, Y, one, one, int64_t{3}, one, two);
  SAME_DTYPES(tl_sdpa_window, "window 0", X, X, X, Y, one, one, two, one, int64_t{0});
  SAME_DTYPES(tl_qk_norm, "eps NaN", X, x, Y, one, two, two, nan);
  SAME_DTYPES(tl_qk_norm, "head_dim 0", X, x, Y, one, two, int64_t{0}, 1e-6f);
  // tinyllm/sampling.h (tokens are y's words)
  auto* tokens = reinterpret_cast<int32_t*>(y);
  SAME_DTYPES(tl_sample, "method 5", X, tokens, one, int64_t{8}, 5, 1.0f, one, 1.0f, 0.0f, uint64_t{1});
  SAME_DTYPES(tl_sample, "temperature 0", X, tokens, one, int64_t{8}, 1, 0.0f, one, 1.0f, 0.0f, uint64_t{1});
  SAME_DTYPES(tl_sample, "top_k 9 of 8", X, tokens, one, int64_t{8}, 2, 1.0f, int64_t{9}, 1.0f, 0.0f, uint64_t{1});
  SAME_DTYPES(tl_sample, "top_p 0", X, tokens, one, int64_t{8}, 3, 1.0f, one, 0.0f, 0.0f, uint64_t{1});
  SAME_DTYPES(tl_sample, "min_p NaN", X, tokens, one, int64_t{8}, 4, 1.0f, one, 1.0f, nan, uint64_t{1});
  SAME(tl_argmax_axis_f16, "axis 3 of rank 2", hx, s24, int64_t{2}, int64_t{3}, tokens);
  SAME(tl_argmax_axis_bf16, "axis -3 of rank 2", hx, s24, int64_t{2}, int64_t{-3}, tokens);
  // tinyllm/conv.h
  const int64_t in2[2] = {2, 2}, k2[2] = {1, 1}, s2[2] = {1, 1}, p2[2] = {0, 0}, d2[2] = {1, 1}, k33[2] = {3, 3};
  SAME(tl_conv_f32, "groups 3 of 2 channels", x, x, x, y, one, two, two, int64_t{3}, two, in2, k2, s2, p2, d2);
  SAME(tl_conv_f32, "n_dims 4", x, x, x, y, one, one, one, one, int64_t{4}, in2, k2, s2, p2, d2);
  SAME(tl_depthwise_conv2d_f32, "kernel past the input", x, x, x, y, one, one, in2, k33, s2, p2, d2);
  SAME(tl_conv_transpose2d_f32, "stride 0", x, x, x, y, one, one, one, one, in2, k2, p2, p2, p2, d2);
  SAME(tl_causal_conv1d_f32, "dilation 0", x, x, x, y, one, one, one, one, two, two, one, int64_t{0});
  SAME(tl_pool_f32, "mode 7", x, y, one, one, in2, k2, s2, p2, 7);
  // tinyllm/spatial.h
  SAME(tl_pixel_shuffle_f32, "C 3 not a multiple of r^2 = 4", x, y, one, int64_t{3}, one, one, two);
  SAME(tl_pixel_unshuffle_f32, "r 0", x, y, one, one, two, two, int64_t{0});
  SAME(tl_unpatchify_f32, "H 3 not a multiple of p = 2", x, y, one, one, int64_t{3}, two, two);
  SAME(tl_patch_embed_f32, "a negative size", x, x, x, y, one, one, two, two, int64_t{-1}, two);
  SAME(tl_interpolate_f32, "mode 9", x, y, one, one, two, two, two, two, 9, 0);
  SAME(tl_interpolate_f32, "align_corners with nearest", x, y, one, one, two, two, two, two, TL_INTERP_NEAREST, 1);
  same_kv_caches();
  if (failures == 0) std::printf("ok: %s refuses as libtl_kernels does, with the same words\n", argv[1]);
  return failures == 0 ? 0 : 1;
}
