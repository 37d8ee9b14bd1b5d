#include "scalar/kernels.hpp"

#include "impl/common/sampling_args.hpp"
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

}  // namespace konform::scalar
