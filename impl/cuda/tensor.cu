// libtl_cuda: the tensor ops of tinyllm/tensor.h on a CUDA device and their
// device-pointer twins, as elementwise.cu: Add, Sub, Mul, Div with
// broadcasting, Clamp, NanToNum, Argmax along an axis, and the layout ops.
// The arguments are checked, and the broadcast and move plans made, by the
// host code libtl_kernels runs too (impl/common/tensor_op_checks.hpp,
// tensor_cut_checks.hpp, and tensor_checks.cpp compiled into this library), so a refused call gets the
// same status and words and makes no CUDA call. Arithmetic is one correctly rounded float operation per
// element; the selections and moves copy bits.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "impl/cuda/abi.cuh"
#include "impl/cuda/best.cuh"
#include "impl/cuda/arith.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "impl/cuda/reduce.cuh"
#include "impl/common/tensor_cut_checks.hpp"
#include "impl/common/tensor_op_checks.hpp"
#include "tinyllm/cuda/tensor.h"

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

// f16 and bf16 (Format map.cuh's F16 or BF16): each operand widened, the
// float operation, y rounded once.
template <class Format, class Op>
__global__ void broadcast_half(const uint16_t* a, const uint16_t* b, uint16_t* y, kt::BroadcastPlan plan, Op op) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < plan.count; k += stride)
    y[k] = Format::narrow(op(Format::widen(a[offset_of(k, plan.rank, plan.n, plan.sa)]),
                             Format::widen(b[offset_of(k, plan.rank, plan.n, plan.sb)])));
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

// y[k] = x[the plan's source of k], as elements of W (uint32_t for f32,
// uint16_t for the f16 and bf16 patterns, moved as they are): a transpose or
// permutation.
template <class W>
__global__ void move_elements(const W* x, W* y, kt::MovePlan plan) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < plan.count; k += stride)
    y[k] = x[offset_of(k, plan.rank, plan.n, plan.src)];
}

// outer runs of `run` words W (uint32_t for f32, uint16_t for the f16 and
// bf16 patterns, moved as they are), from src (runs src_stride apart) to dst
// (dst_stride apart): one input's share of a Concat, one part of a Split.
template <class W>
__global__ void copy_runs(const W* src, int64_t src_stride, W* dst, int64_t dst_stride, int64_t outer, int64_t run) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < outer * run; k += stride)
    dst[(k / run) * dst_stride + k % run] = src[(k / run) * src_stride + k % run];
}

}  // namespace konform::cuda

namespace {

// Elements of a shape PlanBroadcast has accepted (rank 0: one).
int64_t elements(const int64_t* shape, int64_t rank) {
  int64_t count = 1;
  for (int64_t i = 0; i < rank; ++i) count *= shape[i];
  return count;
}

// y = a OP b, broadcast. y may be a or b only where that operand has y's
// shape (PlanBroadcast), so thread k reads its element k and writes it: safe in place.
// T float (Format void), or uint16_t with Format F16 or BF16.
template <class Format, class Op, class T>
tl_status broadcast_dev(Op op, const char* where, const T* a, const int64_t* a_shape, int64_t a_rank, const T* b,
                        const int64_t* b_shape, int64_t b_rank, T* y, const int64_t* y_shape, int64_t y_rank,
                        tl_cuda_stream stream) {
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  if (plan.count == 0) return TL_OK;  // (then a and b may hold elements, but none is read)
  if constexpr (std::is_same_v<T, float>)
    kc::launch(kc::broadcast<Op>, kc::grid_for(plan.count, kc::kThreads), kc::kThreads, stream, a, b, y, plan, op);
  else
    kc::launch(kc::broadcast_half<Format, Op>, kc::grid_for(plan.count, kc::kThreads), kc::kThreads, stream, a, b, y,
               plan, op);
  kc::check_launch(where);
  return TL_OK;
}

template <class Dev, class T>
tl_status broadcast_host(Dev dev, const char* where, const T* a, const int64_t* a_shape, int64_t a_rank, const T* b,
                         const int64_t* b_shape, int64_t b_rank, T* y, const int64_t* y_shape, int64_t y_rank) {
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  if (plan.count == 0) return TL_OK;
  return kc::on_device(where, dev, kc::in(a, elements(a_shape, a_rank)), a_shape, a_rank,
                       kc::in(b, elements(b_shape, b_rank)), b_shape, b_rank, kc::out(y, plan.count), y_shape, y_rank);
}

void run_move(const float* x, float* y, const kt::MovePlan& plan, const char* where, tl_cuda_stream stream) {
  if (plan.count == 0) return;
  kc::launch(kc::move_elements<uint32_t>, kc::grid_for(plan.count, kc::kThreads), kc::kThreads, stream,
             reinterpret_cast<const uint32_t*>(x), reinterpret_cast<uint32_t*>(y), plan);
  kc::check_launch(where);
}

// The half twins' move: 16-bit patterns, never through float.
void run_move(const uint16_t* x, uint16_t* y, const kt::MovePlan& plan, const char* where, tl_cuda_stream stream) {
  if (plan.count == 0) return;
  kc::launch(kc::move_elements<uint16_t>, kc::grid_for(plan.count, kc::kThreads), kc::kThreads, stream, x, y, plan);
  kc::check_launch(where);
}

// E: float, or the uint16_t patterns of the half twins (never through float).
template <class E>
void launch_copy_runs(const E* src, int64_t src_stride, E* dst, int64_t dst_stride, int64_t outer, int64_t run,
                      const char* where, tl_cuda_stream stream) {
  using W = std::conditional_t<sizeof(E) == 4, uint32_t, uint16_t>;
  kc::launch(kc::copy_runs<W>, kc::grid_for(outer * run, kc::kThreads), kc::kThreads, stream,
             reinterpret_cast<const W*>(src), src_stride, reinterpret_cast<W*>(dst), dst_stride, outer, run);
  kc::check_launch(where);
}

// Split and Chunk: part k, length(k) long along the axis, from x to ys[k].
template <class E, class Length>
void cut(const E* x, const kt::CutPlan& p, const Length& length, int64_t count, E* const* ys, const char* where,
         tl_cuda_stream stream) {
  if (p.x.count == 0) return;  // every part is empty
  const kt::Around a = kt::AroundAxis(p.x, p.axis);
  const int64_t line = p.x.d[p.axis] * a.inner;  // one outer step of x
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = length(k) * a.inner;
    if (run > 0) launch_copy_runs(x + start * a.inner, line, ys[k], run, a.outer, run, where, stream);
    start += length(k);
  }
}

// The host Split and Chunk: x and a buffer per part on the device, cut
// there by `dev(x, parts)`, each part back to ys[k].
template <class E, class Length, class Dev>
void cut_on_device(const E* x, const kt::CutPlan& p, const Length& length, int64_t count, E* const* ys,
                   const char* where, Dev dev) {
  if (p.x.count == 0) return;
  const kt::Around a = kt::AroundAxis(p.x, p.axis);
  const kc::DeviceBuffer<E> dx(x, static_cast<size_t>(p.x.count), where);
  std::vector<std::unique_ptr<kc::DeviceBuffer<E>>> parts;
  std::vector<E*> dys;
  for (int64_t k = 0; k < count; ++k) {
    parts.push_back(std::make_unique<kc::DeviceBuffer<E>>(static_cast<size_t>(a.outer * length(k) * a.inner), where));
    dys.push_back(parts.back()->get());
  }
  dev(dx.get(), dys.data());
  for (int64_t k = 0; k < count; ++k) parts[static_cast<size_t>(k)]->copy_to(ys[k]);
}

}  // namespace

// The four arithmetic ops differ in their operation alone.
#define TL_CUDA_BROADCAST(name, Op)                                                                                \
  TL_CUDA_EXPORT tl_status name##_dev(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,      \
                                      const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,    \
                                      int64_t y_rank, tl_cuda_stream stream) {                                     \
    return broadcast_dev<void>(kc::Op{}, #name "_dev", a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, \
                               stream);                                                                            \
  }                                                                                                                \
  TL_CUDA_EXPORT tl_status name(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,            \
                                const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,          \
                                int64_t y_rank) {                                                                  \
    return broadcast_host(name##_dev, #name, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);          \
  }
TL_CUDA_BROADCAST(tl_add_broadcast_f32, Add)
TL_CUDA_BROADCAST(tl_sub_broadcast_f32, Sub)
TL_CUDA_BROADCAST(tl_mul_broadcast_f32, Mul)
TL_CUDA_BROADCAST(tl_div_broadcast_f32, Div)

#define TL_CUDA_BROADCAST_HALF(op, Dtype, Format, Op)                                                                 \
  TL_CUDA_EXPORT tl_status tl_##op##_broadcast_##Dtype##_dev(                                                         \
      const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b, const int64_t* b_shape,           \
      int64_t b_rank, uint16_t* y, const int64_t* y_shape, int64_t y_rank, tl_cuda_stream stream) {                   \
    return broadcast_dev<kc::Format>(kc::Op{}, "tl_" #op "_broadcast_" #Dtype "_dev", a, a_shape, a_rank, b, b_shape, \
                                     b_rank, y, y_shape, y_rank, stream);                                             \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_##op##_broadcast_##Dtype(const uint16_t* a, const int64_t* a_shape, int64_t a_rank,     \
                                                       const uint16_t* b, const int64_t* b_shape, int64_t b_rank,     \
                                                       uint16_t* y, const int64_t* y_shape, int64_t y_rank) {         \
    return broadcast_host(tl_##op##_broadcast_##Dtype##_dev, "tl_" #op "_broadcast_" #Dtype, a, a_shape, a_rank, b,   \
                          b_shape, b_rank, y, y_shape, y_rank);                                                       \
  }
TL_CUDA_BROADCAST_HALF(add, f16, F16, Add)
TL_CUDA_BROADCAST_HALF(sub, f16, F16, Sub)
TL_CUDA_BROADCAST_HALF(mul, f16, F16, Mul)
TL_CUDA_BROADCAST_HALF(div, f16, F16, Div)
TL_CUDA_BROADCAST_HALF(add, bf16, BF16, Add)
TL_CUDA_BROADCAST_HALF(sub, bf16, BF16, Sub)
TL_CUDA_BROADCAST_HALF(mul, bf16, BF16, Mul)
TL_CUDA_BROADCAST_HALF(div, bf16, BF16, Div)
#undef TL_CUDA_BROADCAST_HALF

// Clamp and NanToNum are maps: y == x is safe (map.cuh).
TL_CUDA_EXPORT tl_status tl_clamp_f32_dev(const float* x, float* y, int64_t n, float lo, float hi,
                                          tl_cuda_stream stream) {
  if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;
  kc::run_map1(x, y, n, kc::Clamp{lo, hi}, "tl_clamp_f32_dev", stream);
  return TL_OK;
}

// The casts between f32 and f16 or bf16 (map.cuh's demote and promote).
#define TL_CUDA_CAST(name, Kernel, From, To)                                               \
  TL_CUDA_EXPORT void name##_dev(const From* x, To* y, int64_t n, tl_cuda_stream stream) { \
    if (n <= 0) return;                                                                    \
    kc::launch(Kernel, kc::grid_for(n, kc::kThreads), kc::kThreads, stream, x, y, n);      \
    kc::check_launch(#name "_dev");                                                        \
  }                                                                                        \
  TL_CUDA_EXPORT void name(const From* x, To* y, int64_t n) {                              \
    if (n > 0) kc::on_device(#name, name##_dev, kc::in(x, n), kc::out(y, n), n);           \
  }
TL_CUDA_CAST(tl_cast_f32_to_f16, kc::demote<kc::F16>, float, uint16_t)
TL_CUDA_CAST(tl_cast_f32_to_bf16, kc::demote<kc::BF16>, float, uint16_t)
TL_CUDA_CAST(tl_cast_f16_to_f32, kc::promote<kc::F16>, uint16_t, float)
TL_CUDA_CAST(tl_cast_bf16_to_f32, kc::promote<kc::BF16>, uint16_t, float)

TL_CUDA_EXPORT tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;
  if (n == 0) return TL_OK;
  return kc::on_device("tl_clamp_f32", tl_clamp_f32_dev, kc::in(x, n), kc::out(y, n), n, lo, hi);
}

TL_CUDA_EXPORT tl_status tl_nan_to_num_f32_dev(const float* x, float* y, int64_t n, float nan, float posinf,
                                               float neginf, tl_cuda_stream stream) {
  if (tl_status s = kt::CheckElementwise(x, y, n)) return s;
  kc::run_map1(x, y, n, kc::NanToNum{nan, posinf, neginf}, "tl_nan_to_num_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (tl_status s = kt::CheckElementwise(x, y, n)) return s;
  if (n == 0) return TL_OK;
  return kc::on_device("tl_nan_to_num_f32", tl_nan_to_num_f32_dev, kc::in(x, n), kc::out(y, n), n, nan, posinf, neginf);
}

// The f16 and bf16 twins: the same functors on widened elements, the result
// rounded to the dtype (map.cuh's map1_half).
#define TL_CUDA_SELECT_HALF(Dtype, Format)                                                                             \
  TL_CUDA_EXPORT tl_status tl_clamp_##Dtype##_dev(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi,       \
                                                  tl_cuda_stream stream) {                                             \
    if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;                                                       \
    kc::run_map1_half<kc::Format>(x, y, n, kc::Clamp{lo, hi}, "tl_clamp_" #Dtype "_dev", stream);                      \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_clamp_##Dtype(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {           \
    if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;                                                       \
    if (n == 0) return TL_OK;                                                                                          \
    return kc::on_device("tl_clamp_" #Dtype, tl_clamp_##Dtype##_dev, kc::in(x, n), kc::out(y, n), n, lo, hi);          \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_nan_to_num_##Dtype##_dev(const uint16_t* x, uint16_t* y, int64_t n, float nan,           \
                                                       float posinf, float neginf, tl_cuda_stream stream) {            \
    if (tl_status s = kt::CheckElementwise(x, y, n)) return s;                                                         \
    kc::run_map1_half<kc::Format>(x, y, n, kc::NanToNum{nan, posinf, neginf}, "tl_nan_to_num_" #Dtype "_dev", stream); \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_nan_to_num_##Dtype(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf,   \
                                                 float neginf) {                                                       \
    if (tl_status s = kt::CheckElementwise(x, y, n)) return s;                                                         \
    if (n == 0) return TL_OK;                                                                                          \
    return kc::on_device("tl_nan_to_num_" #Dtype, tl_nan_to_num_##Dtype##_dev, kc::in(x, n), kc::out(y, n), n, nan,    \
                         posinf, neginf);                                                                              \
  }
TL_CUDA_SELECT_HALF(f16, F16)
TL_CUDA_SELECT_HALF(bf16, BF16)
#undef TL_CUDA_SELECT_HALF

TL_CUDA_EXPORT tl_status tl_argmax_axis_f32_dev(const float* x, const int64_t* shape, int64_t rank, int64_t axis,
                                                int32_t* index, tl_cuda_stream stream) {
  kt::AxisPlan p;
  if (tl_status s = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return s;
  const int64_t lines = p.outer * p.inner;
  if (lines == 0) return TL_OK;  // no index to write (a zero-length axis alone still has lines: all -1)
  kc::launch(kc::argmax_lines, kc::grid_for_lines(lines), kc::kLineThreads, stream, x, index, p.outer, p.length,
             p.inner);
  kc::check_launch("tl_argmax_axis_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis,
                                            int32_t* index) {
  kt::AxisPlan p;
  if (tl_status s = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return s;
  const int64_t lines = p.outer * p.inner;
  if (lines == 0) return TL_OK;
  return kc::on_device("tl_argmax_axis_f32", tl_argmax_axis_f32_dev, kc::in(x, lines * p.length), shape, rank, axis,
                       kc::out(index, lines));
}

// f16 and bf16: x widened exactly on the device by the casts' kernels into
// scratch (every NaN payload stays a NaN), then the f32 kernel's lines
// (waits for `stream`: the scratch).
#define TL_CUDA_ARGMAX_HALF(Dtype)                                                                                     \
  TL_CUDA_EXPORT tl_status tl_argmax_axis_##Dtype##_dev(const uint16_t* x, const int64_t* shape, int64_t rank,         \
                                                        int64_t axis, int32_t* index, tl_cuda_stream stream) {         \
    const char* where = "tl_argmax_axis_" #Dtype "_dev";                                                               \
    kt::AxisPlan p;                                                                                                    \
    if (tl_status s = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return s;                                   \
    const int64_t lines = p.outer * p.inner;                                                                           \
    if (lines == 0) return TL_OK;                                                                                      \
    const int64_t count = lines * p.length;                                                                            \
    kc::DeviceBuffer<float> wide(static_cast<size_t>(count), where, stream);                                           \
    if (count > 0) tl_cast_##Dtype##_to_f32_dev(x, wide.get(), count, stream);                                         \
    kc::launch(kc::argmax_lines, kc::grid_for_lines(lines), kc::kLineThreads, stream,                                  \
               static_cast<const float*>(wide.get()), index, p.outer, p.length, p.inner);                              \
    kc::check_launch(where);                                                                                           \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_argmax_axis_##Dtype(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, \
                                                  int32_t* index) {                                                    \
    kt::AxisPlan p;                                                                                                    \
    if (tl_status s = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return s;                                   \
    const int64_t lines = p.outer * p.inner;                                                                           \
    if (lines == 0) return TL_OK;                                                                                      \
    return kc::on_device("tl_argmax_axis_" #Dtype, tl_argmax_axis_##Dtype##_dev, kc::in(x, lines * p.length), shape,   \
                         rank, axis, kc::out(index, lines));                                                           \
  }
TL_CUDA_ARGMAX_HALF(f16)
TL_CUDA_ARGMAX_HALF(bf16)
#undef TL_CUDA_ARGMAX_HALF

TL_CUDA_EXPORT tl_status tl_transpose_f32_dev(const float* x, const int64_t* shape, int64_t rank, float* y,
                                              tl_cuda_stream stream) {
  kt::MovePlan plan;
  if (tl_status s = kt::PlanTranspose(x, shape, rank, y, &plan)) return s;
  run_move(x, y, plan, "tl_transpose_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  kt::MovePlan plan;
  if (tl_status s = kt::PlanTranspose(x, shape, rank, y, &plan)) return s;
  if (plan.count == 0) return TL_OK;
  return kc::on_device("tl_transpose_f32", tl_transpose_f32_dev, kc::in(x, plan.count), shape, rank,
                       kc::out(y, plan.count));
}

TL_CUDA_EXPORT tl_status tl_permute_f32_dev(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm,
                                            float* y, tl_cuda_stream stream) {
  kt::MovePlan plan;
  if (tl_status s = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return s;
  run_move(x, y, plan, "tl_permute_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm,
                                        float* y) {
  kt::MovePlan plan;
  if (tl_status s = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return s;
  if (plan.count == 0) return TL_OK;
  return kc::on_device("tl_permute_f32", tl_permute_f32_dev, kc::in(x, plan.count), shape, rank, perm,
                       kc::out(y, plan.count));
}

// The f16 and bf16 Transpose and Permute: one body, the patterns copied.
#define TL_CUDA_MOVE_HALF(Dtype)                                                                                      \
  TL_CUDA_EXPORT tl_status tl_transpose_##Dtype##_dev(const uint16_t* x, const int64_t* shape, int64_t rank,          \
                                                      uint16_t* y, tl_cuda_stream stream) {                           \
    kt::MovePlan plan;                                                                                                \
    if (tl_status s = kt::PlanTranspose(x, shape, rank, y, &plan)) return s;                                          \
    run_move(x, y, plan, "tl_transpose_" #Dtype "_dev", stream);                                                      \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_transpose_##Dtype(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) { \
    kt::MovePlan plan;                                                                                                \
    if (tl_status s = kt::PlanTranspose(x, shape, rank, y, &plan)) return s;                                          \
    if (plan.count == 0) return TL_OK;                                                                                \
    return kc::on_device("tl_transpose_" #Dtype, tl_transpose_##Dtype##_dev, kc::in(x, plan.count), shape, rank,      \
                         kc::out(y, plan.count));                                                                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_permute_##Dtype##_dev(const uint16_t* x, const int64_t* shape, int64_t rank,            \
                                                    const int64_t* perm, uint16_t* y, tl_cuda_stream stream) {        \
    kt::MovePlan plan;                                                                                                \
    if (tl_status s = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return s;                               \
    run_move(x, y, plan, "tl_permute_" #Dtype "_dev", stream);                                                        \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_permute_##Dtype(const uint16_t* x, const int64_t* shape, int64_t rank,                  \
                                              const int64_t* perm, uint16_t* y) {                                     \
    kt::MovePlan plan;                                                                                                \
    if (tl_status s = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return s;                               \
    if (plan.count == 0) return TL_OK;                                                                                \
    return kc::on_device("tl_permute_" #Dtype, tl_permute_##Dtype##_dev, kc::in(x, plan.count), shape, rank, perm,    \
                         kc::out(y, plan.count));                                                                     \
  }
TL_CUDA_MOVE_HALF(f16)
TL_CUDA_MOVE_HALF(bf16)
#undef TL_CUDA_MOVE_HALF

// y == x is the view (nothing moves); a distinct y gets x's words.
TL_CUDA_EXPORT tl_status tl_reshape_f32_dev(const float* x, const int64_t* shape, int64_t rank, float* y,
                                            const int64_t* new_shape, int64_t new_rank, tl_cuda_stream stream) {
  int64_t count = 0;
  if (tl_status s = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &count)) return s;
  if (y != x) kc::copy_on_device(y, x, static_cast<size_t>(count), stream, "tl_reshape_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y,
                                        const int64_t* new_shape, int64_t new_rank) {
  int64_t count = 0;
  if (tl_status s = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &count)) return s;
  if (y == x || count == 0) return TL_OK;
  return kc::on_device("tl_reshape_f32", tl_reshape_f32_dev, kc::in(x, count), shape, rank, kc::out(y, count),
                       new_shape, new_rank);
}

// The half twins: y == x the view; a distinct y gets x's 16-bit patterns.
#define TL_CUDA_RESHAPE_HALF(Dtype)                                                                               \
  TL_CUDA_EXPORT tl_status tl_reshape_##Dtype##_dev(const uint16_t* x, const int64_t* shape, int64_t rank,        \
                                                    uint16_t* y, const int64_t* new_shape, int64_t new_rank,      \
                                                    tl_cuda_stream stream) {                                      \
    int64_t count = 0;                                                                                            \
    if (tl_status s = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &count)) return s;                 \
    if (y != x) kc::copy_on_device(y, x, static_cast<size_t>(count), stream, "tl_reshape_" #Dtype "_dev");        \
    return TL_OK;                                                                                                 \
  }                                                                                                               \
  TL_CUDA_EXPORT tl_status tl_reshape_##Dtype(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, \
                                              const int64_t* new_shape, int64_t new_rank) {                       \
    int64_t count = 0;                                                                                            \
    if (tl_status s = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &count)) return s;                 \
    if (y == x || count == 0) return TL_OK;                                                                       \
    return kc::on_device("tl_reshape_" #Dtype, tl_reshape_##Dtype##_dev, kc::in(x, count), shape, rank,           \
                         kc::out(y, count), new_shape, new_rank);                                                 \
  }
TL_CUDA_RESHAPE_HALF(f16)
TL_CUDA_RESHAPE_HALF(bf16)
#undef TL_CUDA_RESHAPE_HALF

namespace {

// Concat, Split and Chunk for E float or the uint16_t patterns of the half
// twins: `where` names the C function; the host functions copy in, call
// the device twin `dev` and copy out.
template <class E>
tl_status concat_dev(const char* where, const E* const* xs, const int64_t* shapes, int64_t count, int64_t rank,
                     int64_t axis, E* y, tl_cuda_stream stream) {
  kt::ConcatPlan p;
  if (tl_status s = kt::PlanConcat(xs, shapes, count, rank, axis, y, &p)) return s;
  if (p.out.count == 0) return TL_OK;
  const kt::Around a = kt::AroundAxis(p.out, p.axis);
  const int64_t line = p.out.d[p.axis] * a.inner;  // one outer step of y
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = p.in[k].d[p.axis] * a.inner;
    if (run > 0) launch_copy_runs(xs[k], run, y + start * a.inner, line, a.outer, run, where, stream);
    start += p.in[k].d[p.axis];
  }
  return TL_OK;
}

template <class E, class Dev>
tl_status concat_host(const char* where, Dev dev, const E* const* xs, const int64_t* shapes, int64_t count,
                      int64_t rank, int64_t axis, E* y) {
  kt::ConcatPlan p;
  if (tl_status s = kt::PlanConcat(xs, shapes, count, rank, axis, y, &p)) return s;
  if (p.out.count == 0) return TL_OK;
  std::vector<std::unique_ptr<kc::DeviceBuffer<E>>> inputs;
  std::vector<const E*> dxs;
  for (int64_t k = 0; k < count; ++k) {
    inputs.push_back(std::make_unique<kc::DeviceBuffer<E>>(xs[k], static_cast<size_t>(p.in[k].count), where));
    dxs.push_back(inputs.back()->get());
  }
  return kc::on_device(where, dev, dxs.data(), shapes, count, rank, axis, kc::out(y, p.out.count));
}

template <class E>
tl_status split_dev(const char* where, const E* x, const int64_t* shape, int64_t rank, int64_t axis,
                    const int64_t* sizes, int64_t count, E* const* ys, tl_cuda_stream stream) {
  kt::CutPlan p;
  if (tl_status s = kt::CheckSplit(x, shape, rank, axis, sizes, count, ys, &p)) return s;
  cut(
      x, p, [sizes](int64_t k) { return sizes[k]; }, count, ys, where, stream);
  return TL_OK;
}

template <class E, class Dev>
tl_status split_host(const char* where, Dev dev, const E* x, const int64_t* shape, int64_t rank, int64_t axis,
                     const int64_t* sizes, int64_t count, E* const* ys) {
  kt::CutPlan p;
  if (tl_status s = kt::CheckSplit(x, shape, rank, axis, sizes, count, ys, &p)) return s;
  cut_on_device(
      x, p, [sizes](int64_t k) { return sizes[k]; }, count, ys, where,
      [&](const E* dx, E* const* dys) { dev(dx, shape, rank, axis, sizes, count, dys, nullptr); });
  return TL_OK;
}

template <class E>
tl_status chunk_dev(const char* where, const E* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                    E* const* ys, tl_cuda_stream stream) {
  kt::CutPlan p;
  if (tl_status s = kt::CheckChunk(x, shape, rank, axis, chunks, ys, &p)) return s;
  const int64_t length = p.x.d[p.axis];
  cut(
      x, p, [&](int64_t k) { return tl_chunk_length(length, chunks, k); }, chunks, ys, where, stream);
  return TL_OK;
}

template <class E, class Dev>
tl_status chunk_host(const char* where, Dev dev, const E* x, const int64_t* shape, int64_t rank, int64_t axis,
                     int64_t chunks, E* const* ys) {
  kt::CutPlan p;
  if (tl_status s = kt::CheckChunk(x, shape, rank, axis, chunks, ys, &p)) return s;
  const int64_t length = p.x.d[p.axis];
  cut_on_device(
      x, p, [&](int64_t k) { return tl_chunk_length(length, chunks, k); }, chunks, ys, where,
      [&](const E* dx, E* const* dys) { dev(dx, shape, rank, axis, chunks, dys, nullptr); });
  return TL_OK;
}

}  // namespace

// f32, f16 and bf16 alike: Elem the element (the half twins' 16-bit
// patterns are copied as they are).
#define TL_CUDA_CUT(Dtype, Elem)                                                                                   \
  TL_CUDA_EXPORT tl_status tl_concat_##Dtype##_dev(const Elem* const* xs, const int64_t* shapes, int64_t count,    \
                                                   int64_t rank, int64_t axis, Elem* y, tl_cuda_stream stream) {   \
    return concat_dev("tl_concat_" #Dtype "_dev", xs, shapes, count, rank, axis, y, stream);                       \
  }                                                                                                                \
  TL_CUDA_EXPORT tl_status tl_concat_##Dtype(const Elem* const* xs, const int64_t* shapes, int64_t count,          \
                                             int64_t rank, int64_t axis, Elem* y) {                                \
    return concat_host("tl_concat_" #Dtype, tl_concat_##Dtype##_dev, xs, shapes, count, rank, axis, y);            \
  }                                                                                                                \
  TL_CUDA_EXPORT tl_status tl_split_##Dtype##_dev(const Elem* x, const int64_t* shape, int64_t rank, int64_t axis, \
                                                  const int64_t* sizes, int64_t count, Elem* const* ys,            \
                                                  tl_cuda_stream stream) {                                         \
    return split_dev("tl_split_" #Dtype "_dev", x, shape, rank, axis, sizes, count, ys, stream);                   \
  }                                                                                                                \
  TL_CUDA_EXPORT tl_status tl_split_##Dtype(const Elem* x, const int64_t* shape, int64_t rank, int64_t axis,       \
                                            const int64_t* sizes, int64_t count, Elem* const* ys) {                \
    return split_host("tl_split_" #Dtype, tl_split_##Dtype##_dev, x, shape, rank, axis, sizes, count, ys);         \
  }                                                                                                                \
  TL_CUDA_EXPORT tl_status tl_chunk_##Dtype##_dev(const Elem* x, const int64_t* shape, int64_t rank, int64_t axis, \
                                                  int64_t chunks, Elem* const* ys, tl_cuda_stream stream) {        \
    return chunk_dev("tl_chunk_" #Dtype "_dev", x, shape, rank, axis, chunks, ys, stream);                         \
  }                                                                                                                \
  TL_CUDA_EXPORT tl_status tl_chunk_##Dtype(const Elem* x, const int64_t* shape, int64_t rank, int64_t axis,       \
                                            int64_t chunks, Elem* const* ys) {                                     \
    return chunk_host("tl_chunk_" #Dtype, tl_chunk_##Dtype##_dev, x, shape, rank, axis, chunks, ys);               \
  }
TL_CUDA_CUT(f32, float)
TL_CUDA_CUT(f16, uint16_t)
TL_CUDA_CUT(bf16, uint16_t)
#undef TL_CUDA_CUT
