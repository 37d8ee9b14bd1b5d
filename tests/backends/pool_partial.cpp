// Pool from the scalar backend, with average pooling unimplemented: valid
// TL_POOL_AVG calls return TL_ERR_UNSUPPORTED (tinyllm/status.h), bad
// arguments get their refusal as usual. With -DPOOL_NONE, every valid call
// is unsupported. A library that implements part of an op, as another
// team's may; checked by the `plugin.partial_support` tests.
#include "impl/common/conv_args.hpp"
#include "impl/common/status.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/conv.h"

extern "C" tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2],
                                 const int64_t kernel[2], const int64_t* stride, const int64_t* padding, int mode) {
  namespace impl = konform::impl;
  const impl::conv_args::Checked c = impl::conv_args::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return impl::fail(c.status, c.message);
#ifdef POOL_NONE
  return impl::fail(TL_ERR_UNSUPPORTED, "tl_pool_f32: this library implements no pooling");
#else
  if (mode == TL_POOL_AVG) return impl::fail(TL_ERR_UNSUPPORTED, "tl_pool_f32: average pooling is not implemented");
  return konform::scalar::pool_f32(x, y, B, C, in_size, kernel, stride, padding, mode);
#endif
}
