// Argmax along an axis from the scalar reference, in a library that serves
// only the calls whose every answer is index 0 (each slice's maximum comes
// first) and returns TL_ERR_UNSUPPORTED (tinyllm/status.h) for the others,
// leaving the output unwritten as a refusal must. Every case konform can
// judge on it then expects zeros: a kernel that writes zeros would pass
// them all, so the check is mistrusted, never passed (`plugin.mistrusted`).
#include <vector>

#include "impl/common/status.hpp"
#include "konform/reference/tensor.hpp"
#include "tinyllm/tensor.h"

extern "C" tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis,
                                        int32_t* index) {
  namespace ref = konform::reference;
  ref::Shape s;
  int64_t ax = 0;
  if (const ref::Verdict v = ref::check_argmax_axis(x, shape, rank, axis, index, &s, &ax); !v.ok())
    return konform::impl::fail(v.status, v.message);
  const ref::AxisView view = ref::around_axis(s, ax);
  std::vector<int32_t> answers(static_cast<size_t>(view.outer * view.inner));
  ref::argmax_axis(x, s, ax, answers.data());
  for (int32_t a : answers)
    if (a != 0) return konform::impl::fail(TL_ERR_UNSUPPORTED, "tl_argmax_axis_f32: only answers of index 0");
  for (size_t i = 0; i < answers.size(); ++i) index[i] = answers[i];
  return TL_OK;
}
