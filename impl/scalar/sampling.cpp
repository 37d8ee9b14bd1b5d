#include "scalar/kernels.hpp"

#include "impl/common/sampling_args.hpp"
#include <vector>

#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/sampling.hpp"

namespace konform::scalar {

tl_status sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                     float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  namespace args = konform::impl::sampling_args;
  if (tl_status s = args::check("tl_sample_f32", rows, vocab, method, temperature, top_k, top_p, min_p)) return s;
  reference::sampling::sample<float>(logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p,
                                     args::resolve_seed(seed));
  return TL_OK;
}

// f16 and bf16: the logits widened exactly, then the float reference.
namespace {
tl_status sample_half(bool bf16, const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                      float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  namespace args = konform::impl::sampling_args;
  if (tl_status s =
          args::check(bf16 ? "tl_sample_bf16" : "tl_sample_f16", rows, vocab, method, temperature, top_k, top_p, min_p))
    return s;
  std::vector<float> wide(static_cast<size_t>(rows * vocab));
  for (size_t i = 0; i < wide.size(); ++i)
    wide[i] = bf16 ? reference::bf16_to_f32(logits[i]) : reference::f16_to_f32(logits[i]);
  reference::sampling::sample<float>(wide.data(), tokens, rows, vocab, method, temperature, top_k, top_p, min_p,
                                     args::resolve_seed(seed));
  return TL_OK;
}
}  // namespace

// generate_exports.py finds these definitions at the start of a line.
tl_status sample_f16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                     float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return sample_half(false, logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed);
}
tl_status sample_bf16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                      float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return sample_half(true, logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed);
}

}  // namespace konform::scalar
