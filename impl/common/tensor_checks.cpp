#include "impl/common/tensor_checks.hpp"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "impl/common/status.hpp"

namespace konform::impl::tensor {

namespace {

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

std::string Text(const Dims& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank; ++i) out += (i ? ", " : "") + std::to_string(s.d[i]);
  return out + "]";
}

// Drops the dimensions of extent 1 and merges dimension i into i + 1 when
// every operand walks them as one (stride[i] == stride[i+1] * n[i+1]).
template <int kOperands>
int Coalesce(int rank, int64_t* n, int64_t* const (&stride)[kOperands]) {
  int out = 0;
  for (int i = 0; i < rank; ++i) {
    if (n[i] == 1) continue;
    bool merge = out > 0;
    for (int k = 0; k < kOperands && merge; ++k) merge = stride[k][out - 1] == stride[k][i] * n[i];
    if (merge) {
      n[out - 1] *= n[i];
      for (int k = 0; k < kOperands; ++k) stride[k][out - 1] = stride[k][i];
    } else {
      n[out] = n[i];
      for (int k = 0; k < kOperands; ++k) stride[k][out] = stride[k][i];
      ++out;
    }
  }
  if (out == 0) {  // a single element: one loop of one
    n[0] = 1;
    for (int k = 0; k < kOperands; ++k) stride[k][0] = 0;
    out = 1;
  }
  return out;
}

}  // namespace

tl_status ReadDims(const int64_t* shape, int64_t rank, int min_rank, const char* what, Dims* out) {
  if (rank < min_rank || rank > kMaxRank)
    return impl::fail(TL_ERR_INVALID_ARGUMENT,
                      Format("%s has rank %" PRId64 "; it must be %d..%d", what, rank, min_rank, kMaxRank));
  if (rank > 0 && shape == nullptr) return impl::fail(TL_ERR_INVALID_ARGUMENT, Format("%s's shape is NULL", what));
  out->rank = static_cast<int>(rank);
  bool empty = false;
  for (int i = 0; i < out->rank; ++i) {
    out->d[i] = shape[i];
    if (shape[i] < 0)
      return impl::fail(TL_ERR_INVALID_ARGUMENT,
                        Format("%s has dimension %d = %" PRId64 ", below 0", what, i, shape[i]));
    empty = empty || shape[i] == 0;
  }
  out->count = empty ? 0 : 1;
  for (int i = 0; i < out->rank && !empty; ++i) {  // (no division: this runs on every call)
    int64_t next;
    if (__builtin_mul_overflow(out->count, out->d[i], &next) || next > INT64_MAX / 4)
      return impl::fail(TL_ERR_INVALID_ARGUMENT,
                        Format("%s of shape %s has too many elements", what, Text(*out).c_str()));
    out->count = next;
  }
  return TL_OK;
}

tl_status NeedData(const void* p, int64_t count, const char* what) {
  if (p == nullptr && count > 0) return impl::fail(TL_ERR_INVALID_ARGUMENT, Format("%s is NULL", what));
  return TL_OK;
}

tl_status ResolveAxis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank)
    return impl::fail(TL_ERR_INVALID_ARGUMENT,
                      Format("axis %" PRId64 " is out of range for rank %d (%d..%d)", axis, rank, -rank, rank - 1));
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return TL_OK;
}

tl_status PlanBroadcast(const void* a, const int64_t* a_shape, int64_t a_rank, const void* b, const int64_t* b_shape,
                        int64_t b_rank, const void* y, const int64_t* y_shape, int64_t y_rank, BroadcastPlan* plan) {
  Dims da, db, dy;
  if (tl_status s = ReadDims(a_shape, a_rank, 0, "a", &da)) return s;
  if (tl_status s = ReadDims(b_shape, b_rank, 0, "b", &db)) return s;
  if (tl_status s = ReadDims(y_shape, y_rank, 0, "y", &dy)) return s;
  const int rank = da.rank > db.rank ? da.rank : db.rank;
  // Both operands padded on the left with 1s to the result's rank.
  int64_t pa[kMaxRank], pb[kMaxRank];
  for (int i = 0; i < rank; ++i) {
    pa[i] = i < rank - da.rank ? 1 : da.d[i - (rank - da.rank)];
    pb[i] = i < rank - db.rank ? 1 : db.d[i - (rank - db.rank)];
    if (pa[i] != pb[i] && pa[i] != 1 && pb[i] != 1)
      return impl::fail(TL_ERR_SHAPE, Format("shapes %s and %s do not broadcast: dimension %d of the result "
                                             "would need %" PRId64 " and %" PRId64,
                                             Text(da).c_str(), Text(db).c_str(), i, pa[i], pb[i]));
  }
  bool fits = dy.rank == rank;
  for (int i = 0; i < rank && fits; ++i) fits = dy.d[i] == (pa[i] == 1 ? pb[i] : pa[i]);
  if (!fits) {
    Dims want;
    want.rank = rank;
    for (int i = 0; i < rank; ++i) want.d[i] = pa[i] == 1 ? pb[i] : pa[i];
    return impl::fail(TL_ERR_SHAPE, Format("y has shape %s but a %s and b %s broadcast to %s", Text(dy).c_str(),
                                           Text(da).c_str(), Text(db).c_str(), Text(want).c_str()));
  }
  if (tl_status s = NeedData(a, da.count, "a")) return s;
  if (tl_status s = NeedData(b, db.count, "b")) return s;
  if (tl_status s = NeedData(y, dy.count, "y")) return s;

  plan->count = dy.count;
  int64_t step_a = 1, step_b = 1;
  for (int i = rank - 1; i >= 0; --i) {  // a broadcast dimension is walked with stride 0
    plan->n[i] = dy.d[i];
    plan->sa[i] = pa[i] == 1 ? 0 : step_a;
    plan->sb[i] = pb[i] == 1 ? 0 : step_b;
    step_a *= pa[i];
    step_b *= pb[i];
  }
  int64_t* const strides[2] = {plan->sa, plan->sb};
  plan->rank = Coalesce<2>(rank, plan->n, strides);
  return TL_OK;
}

MovePlan PlanPermute(const Dims& x, const int64_t* perm) {
  int64_t stride[kMaxRank];
  int64_t step = 1;
  for (int i = x.rank - 1; i >= 0; --i) {
    stride[i] = step;
    step *= x.d[i];
  }
  MovePlan plan;
  plan.count = x.count;
  int64_t ystride[kMaxRank];  // the output's own row-major strides, merged alongside
  step = 1;
  for (int i = x.rank - 1; i >= 0; --i) {
    plan.n[i] = x.d[perm[i]];
    plan.src[i] = stride[perm[i]];
    ystride[i] = step;
    step *= plan.n[i];
  }
  int64_t* const strides[2] = {plan.src, ystride};
  plan.rank = Coalesce<2>(x.rank, plan.n, strides);
  return plan;
}

}  // namespace konform::impl::tensor
