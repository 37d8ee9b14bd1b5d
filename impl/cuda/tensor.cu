// libtl_cuda: the tensor ops of tinyllm/tensor.h on a CUDA device, host
// pointers in and out as elementwise.cu: Add, Sub, Mul, Div with
// broadcasting, Clamp, NanToNum, Argmax along an axis, and the layout ops.
// The arguments are checked, and the broadcast and move plans made, by the
// host code libtl_kernels runs too (impl/common/tensor_op_checks.hpp,
// tensor_cut_checks.hpp, and tensor_checks.cpp compiled into this library), so a refused call gets the
// same status and words and makes no CUDA call. Arithmetic is one correctly rounded float operation per
// element; the selections and moves copy bits.
#include <cstdint>

#include "impl/cuda/abi.cuh"
#include "impl/cuda/best.cuh"
#include "impl/cuda/arith.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "impl/cuda/reduce.cuh"
#include "impl/common/tensor_cut_checks.hpp"
#include "impl/common/tensor_op_checks.hpp"
#include "tinyllm/tensor.h"

namespace kc = konform::cuda;
namespace kt = konform::impl::tensor;

namespace konform::cuda {

// The offset, under strides s, of the element that output index k of a
// row-major walk over extents n[0..rank) sees (a stride of 0: broadcast).
__device__ inline int64_t offset_of(int64_t k, int rank, const int64_t* n, const int64_t* s) {
  int64_t offset = 0;
  for (int i = rank - 1; i >= 0; --i) {
    offset += (k % n[i]) * s[i];
    k /= n[i];
  }
  return offset;
}

template <class Op>
__global__ void broadcast(const float* a, const float* b, float* y, kt::BroadcastPlan plan, Op op) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < plan.count; k += stride)
    y[k] = op(a[offset_of(k, plan.rank, plan.n, plan.sa)], b[offset_of(k, plan.rank, plan.n, plan.sb)]);
}

// Comparisons and selections only, so a kept x keeps its bits (NaN payload,
// the sign of a zero equal to a bound).
struct Clamp {
  float lo, hi;
  __device__ float operator()(float x) const { return x < lo ? lo : x > hi ? hi : x; }
};
struct NanToNum {
  float nan, posinf, neginf;
  __device__ float operator()(float x) const {
    return x != x ? nan : x == INFINITY ? posinf : x == -INFINITY ? neginf : x;
  }
};

// index[o, i] = the argmax of x[o, :, i] ([outer, length, inner]), one block
// per line; an empty or all-NaN line gives -1.
__global__ void argmax_lines(const float* x, int32_t* index, int64_t outer, int64_t length, int64_t inner) {
  __shared__ Best shared[kLineThreads];
  for (int64_t line = blockIdx.x; line < outer * inner; line += gridDim.x) {
    const float* xl = x + (line / inner) * length * inner + line % inner;
    Best mine{0.0f, -1};
    for (int64_t l = threadIdx.x; l < length; l += kLineThreads) mine = consider(mine, xl[l * inner], l);
    const Best best = reduce_block<kLineThreads>(mine, shared, better);
    if (threadIdx.x == 0) index[line] = static_cast<int32_t>(best.index);
  }
}

// y[k] = x[the plan's source of k], as 32-bit words: a transpose or permutation.
__global__ void move_words(const uint32_t* x, uint32_t* y, kt::MovePlan plan) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < plan.count; k += stride)
    y[k] = x[offset_of(k, plan.rank, plan.n, plan.src)];
}

// outer runs of `run` 32-bit words, from src (runs src_stride apart) to dst
// (dst_stride apart): one input's share of a Concat, one part of a Split.
__global__ void copy_runs(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride, int64_t outer,
                          int64_t run) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < outer * run; k += stride)
    dst[(k / run) * dst_stride + k % run] = src[(k / run) * src_stride + k % run];
}

}  // namespace konform::cuda

namespace {

// Elements of a shape PlanBroadcast has accepted (rank 0: one).
size_t elements(const int64_t* shape, int64_t rank) {
  size_t count = 1;
  for (int64_t i = 0; i < rank; ++i) count *= static_cast<size_t>(shape[i]);
  return count;
}

// y = a OP b, broadcast; y may be a or b (separate device buffers).
template <class Op>
tl_status run_broadcast(Op op, const char* where, const float* a, const int64_t* a_shape, int64_t a_rank,
                        const float* b, const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                        int64_t y_rank) {
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  if (plan.count == 0) return TL_OK;  // (then a and b may hold elements, but none is read)
  kc::DeviceBuffer<float> da(a, elements(a_shape, a_rank), where), db(b, elements(b_shape, b_rank), where);
  kc::DeviceBuffer<float> dy(static_cast<size_t>(plan.count), where);
  kc::launch(kc::broadcast<Op>, kc::grid_for(plan.count, kc::kThreads), kc::kThreads, da.get(), db.get(), dy.get(),
             plan, op);
  kc::check_launch(where);
  dy.copy_to(y);
  return TL_OK;
}

void run_move(const float* x, float* y, const kt::MovePlan& plan, const char* where) {
  if (plan.count == 0) return;
  const size_t n = static_cast<size_t>(plan.count);
  kc::DeviceBuffer<uint32_t> dx(reinterpret_cast<const uint32_t*>(x), n, where), dy(n, where);
  kc::launch(kc::move_words, kc::grid_for(plan.count, kc::kThreads), kc::kThreads, dx.get(), dy.get(), plan);
  kc::check_launch(where);
  dy.copy_to(reinterpret_cast<uint32_t*>(y));
}

void launch_copy_runs(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride, int64_t outer,
                      int64_t run, const char* where) {
  kc::launch(kc::copy_runs, kc::grid_for(outer * run, kc::kThreads), kc::kThreads, src, src_stride, dst, dst_stride,
             outer, run);
  kc::check_launch(where);
}

// Split and Chunk: part k, length(k) long along the axis, to ys[k].
template <class Length>
void cut(const float* x, const kt::CutPlan& p, const Length& length, int64_t count, float* const* ys,
         const char* where) {
  if (p.x.count == 0) return;  // every part is empty
  const kt::Around a = kt::AroundAxis(p.x, p.axis);
  const int64_t line = p.x.d[p.axis] * a.inner;  // one outer step of x
  kc::DeviceBuffer<uint32_t> dx(reinterpret_cast<const uint32_t*>(x), static_cast<size_t>(p.x.count), where);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = length(k) * a.inner;
    if (run > 0) {
      kc::DeviceBuffer<uint32_t> dpart(static_cast<size_t>(a.outer * run), where);
      launch_copy_runs(dx.get() + start * a.inner, line, dpart.get(), run, a.outer, run, where);
      dpart.copy_to(reinterpret_cast<uint32_t*>(ys[k]));
    }
    start += length(k);
  }
}

}  // namespace

// The four arithmetic ops differ in their operation alone.
#define TL_CUDA_BROADCAST(name, Op)                                                                       \
  TL_CUDA_EXPORT tl_status name(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,   \
                                const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, \
                                int64_t y_rank) {                                                         \
    return run_broadcast(kc::Op{}, #name, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);    \
  }
TL_CUDA_BROADCAST(tl_add_broadcast_f32, Add)
TL_CUDA_BROADCAST(tl_sub_broadcast_f32, Sub)
TL_CUDA_BROADCAST(tl_mul_broadcast_f32, Mul)
TL_CUDA_BROADCAST(tl_div_broadcast_f32, Div)

TL_CUDA_EXPORT tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;
  kc::run_map1(x, y, n, kc::Clamp{lo, hi}, "tl_clamp_f32");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (tl_status s = kt::CheckElementwise(x, y, n)) return s;
  kc::run_map1(x, y, n, kc::NanToNum{nan, posinf, neginf}, "tl_nan_to_num_f32");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis,
                                            int32_t* index) {
  kt::AxisPlan p;
  if (tl_status s = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return s;
  const int64_t lines = p.outer * p.inner;
  if (lines == 0) return TL_OK;  // no index to write (a zero-length axis alone still has lines: all -1)
  const char* where = "tl_argmax_axis_f32";
  kc::DeviceBuffer<float> dx(x, static_cast<size_t>(lines * p.length), where);
  kc::DeviceBuffer<int32_t> dindex(static_cast<size_t>(lines), where);
  kc::launch(kc::argmax_lines, kc::grid_for_lines(lines), kc::kLineThreads, dx.get(), dindex.get(), p.outer, p.length,
             p.inner);
  kc::check_launch(where);
  dindex.copy_to(index);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  kt::MovePlan plan;
  if (tl_status s = kt::PlanTranspose(x, shape, rank, y, &plan)) return s;
  run_move(x, y, plan, "tl_transpose_f32");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm,
                                        float* y) {
  kt::MovePlan plan;
  if (tl_status s = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return s;
  run_move(x, y, plan, "tl_permute_f32");
  return TL_OK;
}

// y == x is the view (nothing moves); a distinct y gets x's words through the device.
TL_CUDA_EXPORT tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y,
                                        const int64_t* new_shape, int64_t new_rank) {
  int64_t count = 0;
  if (tl_status s = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &count)) return s;
  if (y == x || count == 0) return TL_OK;
  const kc::DeviceBuffer<uint32_t> dx(reinterpret_cast<const uint32_t*>(x), static_cast<size_t>(count),
                                      "tl_reshape_f32");
  dx.copy_to(reinterpret_cast<uint32_t*>(y));
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank,
                                       int64_t axis, float* y) {
  kt::ConcatPlan p;
  if (tl_status s = kt::PlanConcat(xs, shapes, count, rank, axis, y, &p)) return s;
  if (p.out.count == 0) return TL_OK;
  const char* where = "tl_concat_f32";
  const kt::Around a = kt::AroundAxis(p.out, p.axis);
  const int64_t line = p.out.d[p.axis] * a.inner;  // one outer step of y
  kc::DeviceBuffer<uint32_t> dy(static_cast<size_t>(p.out.count), where);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = p.in[k].d[p.axis] * a.inner;
    if (run > 0) {
      kc::DeviceBuffer<uint32_t> dx(reinterpret_cast<const uint32_t*>(xs[k]), static_cast<size_t>(p.in[k].count),
                                    where);
      launch_copy_runs(dx.get(), run, dy.get() + start * a.inner, line, a.outer, run, where);
    }
    start += p.in[k].d[p.axis];
  }
  dy.copy_to(reinterpret_cast<uint32_t*>(y));
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis,
                                      const int64_t* sizes, int64_t count, float* const* ys) {
  kt::CutPlan p;
  if (tl_status s = kt::CheckSplit(x, shape, rank, axis, sizes, count, ys, &p)) return s;
  cut(
      x, p, [sizes](int64_t k) { return sizes[k]; }, count, ys, "tl_split_f32");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                                      float* const* ys) {
  kt::CutPlan p;
  if (tl_status s = kt::CheckChunk(x, shape, rank, axis, chunks, ys, &p)) return s;
  const int64_t length = p.x.d[p.axis];
  cut(
      x, p, [&](int64_t k) { return tl_chunk_length(length, chunks, k); }, chunks, ys, "tl_chunk_f32");
  return TL_OK;
}
