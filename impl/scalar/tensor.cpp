#include "scalar/kernels.hpp"

#include <vector>

#include "common/status.hpp"
#include "konform/reference/tensor.hpp"

namespace konform::scalar {
namespace ref = konform::reference;

namespace {

tl_status refused(const ref::Verdict& v) { return konform::impl::fail(v.status, v.message); }

tl_status broadcast(ref::Arith op, const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                    const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  ref::BroadcastShapes s;
  const ref::Verdict v = ref::check_broadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &s);
  if (!v.ok()) return refused(v);
  ref::broadcast_arith<float>(op, a, s.a, b, s.b, y, s.y);
  return TL_OK;
}

}  // namespace

tl_status add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  return broadcast(ref::Arith::add, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

tl_status sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  return broadcast(ref::Arith::sub, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

tl_status mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  return broadcast(ref::Arith::mul, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

tl_status div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  return broadcast(ref::Arith::div, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

// y == x is allowed: element i is read before it is written.
tl_status clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (const ref::Verdict v = ref::check_clamp(x, y, n, lo, hi); !v.ok()) return refused(v);
  ref::clamp<float>(x, y, n, lo, hi);
  return TL_OK;
}

tl_status nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (const ref::Verdict v = ref::check_elementwise(x, y, n); !v.ok()) return refused(v);
  ref::nan_to_num<float>(x, y, n, nan, posinf, neginf);
  return TL_OK;
}

tl_status argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  ref::Shape s;
  int64_t ax = 0;
  if (const ref::Verdict v = ref::check_argmax_axis(x, shape, rank, axis, index, &s, &ax); !v.ok()) return refused(v);
  ref::argmax_axis(x, s, ax, index);
  return TL_OK;
}

tl_status transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  ref::Shape s;
  if (const ref::Verdict v = ref::check_transpose(x, shape, rank, y, &s); !v.ok()) return refused(v);
  ref::transpose<float>(x, s, y);
  return TL_OK;
}

tl_status permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  ref::Shape s, p;
  if (const ref::Verdict v = ref::check_permute(x, shape, rank, perm, y, &s, &p); !v.ok()) return refused(v);
  ref::permute<float>(x, s, p, y);
  return TL_OK;
}

// y == x is the view: the elements are already where the new shape wants them.
tl_status reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                      int64_t new_rank) {
  ref::Shape s, ns;
  if (const ref::Verdict v = ref::check_reshape(x, shape, rank, y, new_shape, new_rank, &s, &ns); !v.ok())
    return refused(v);
  if (y != x) ref::reshape<float>(x, s, y);
  return TL_OK;
}

tl_status concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                     float* y) {
  std::vector<ref::Shape> in;
  ref::Shape out;
  int64_t ax = 0;
  if (const ref::Verdict v = ref::check_concat(xs, shapes, count, rank, axis, y, &in, &out, &ax); !v.ok())
    return refused(v);
  ref::concat<float>(xs, in, ax, y);
  return TL_OK;
}

tl_status split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                    int64_t count, float* const* ys) {
  ref::Shape s, lengths;
  int64_t ax = 0;
  if (const ref::Verdict v = ref::check_split(x, shape, rank, axis, sizes, count, ys, &s, &ax, &lengths); !v.ok())
    return refused(v);
  ref::cut<float>(x, s, ax, lengths, ys);
  return TL_OK;
}

tl_status chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                    float* const* ys) {
  ref::Shape s, lengths;
  int64_t ax = 0;
  if (const ref::Verdict v = ref::check_chunk(x, shape, rank, axis, chunks, ys, &s, &ax, &lengths); !v.ok())
    return refused(v);
  ref::cut<float>(x, s, ax, lengths, ys);
  return TL_OK;
}

}  // namespace konform::scalar
