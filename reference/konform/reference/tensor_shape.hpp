// Shapes of the tensor ops (tinyllm/tensor.h): which arguments are valid,
// what the output shape is, and which status a call must return otherwise.
//
// This is the oracle's own reading of the header's rules, written apart from
// the kernels' checks (impl/) so that a wrong rule shows up as a difference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinyllm/status.h"
#include "tinyllm/tensor.h"

namespace konform::reference {

using Shape = std::vector<int64_t>;

// TL_OK, or the status a refused call returns and why.
struct Verdict {
  tl_status status = TL_OK;
  std::string message;
  bool ok() const { return status == TL_OK; }
};

inline Verdict refuse(tl_status status, std::string message) { return {status, std::move(message)}; }

inline std::string to_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Elements of a valid shape (every dimension >= 0, count checked by check_shape).
inline int64_t element_count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Row-major strides, in elements.
inline Shape strides_of(const Shape& s) {
  Shape st(s.size());
  int64_t step = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = step;
    step *= s[i];
  }
  return st;
}

// The largest element count the ABI accepts: its bytes fit in an int64_t.
constexpr int64_t kMaxElements = INT64_MAX / 4;

// A shape read from the ABI: rank in [min_rank, max_rank], a pointer when the
// rank is not 0, dimensions >= 0, and a byte size that fits. `what` names the
// argument in the message.
inline Verdict read_shape(const int64_t* dims, int64_t rank, int64_t min_rank, int64_t max_rank,
                          const std::string& what, Shape* out) {
  if (rank < min_rank || rank > max_rank)
    return refuse(TL_ERR_INVALID_ARGUMENT, what + " has rank " + std::to_string(rank) + "; it must be " +
                                               std::to_string(min_rank) + ".." + std::to_string(max_rank));
  if (rank > 0 && dims == nullptr) return refuse(TL_ERR_INVALID_ARGUMENT, what + "'s shape pointer is NULL");
  out->assign(dims, dims + rank);
  bool empty = false;
  for (int64_t i = 0; i < rank; ++i) {
    if ((*out)[i] < 0)
      return refuse(TL_ERR_INVALID_ARGUMENT,
                    what + " has dimension " + std::to_string(i) + " = " + std::to_string((*out)[i]) + " < 0");
    empty = empty || (*out)[i] == 0;
  }
  if (!empty) {
    int64_t n = 1;
    for (int64_t d : *out) {
      if (d > kMaxElements / n)
        return refuse(TL_ERR_INVALID_ARGUMENT, what + " of shape " + to_string(*out) + " has too many elements");
      n *= d;
    }
  }
  return {};
}

// A data pointer may be NULL only for a tensor without elements.
inline Verdict check_data(const void* p, const Shape& s, const std::string& what) {
  if (p == nullptr && element_count(s) > 0) return refuse(TL_ERR_INVALID_ARGUMENT, what + " is NULL");
  return {};
}

// `axis` in [-rank, rank), negative counting from the end; *out in [0, rank).
inline Verdict resolve_axis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank)
    return refuse(TL_ERR_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " is out of range for rank " +
                                               std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                                               std::to_string(rank - 1) + ")");
  *out = axis < 0 ? axis + rank : axis;
  return {};
}

// NumPy's rule, aligned at the last dimension: equal, or one of them 1.
inline Verdict broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = a.size() > b.size() ? a.size() : b.size();
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {  // i counts from the last dimension
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return refuse(TL_ERR_SHAPE, "shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast: dimension " +
                                      std::to_string(rank - 1 - i) + " of the result would need " + std::to_string(da) +
                                      " and " + std::to_string(db));
    (*out)[rank - 1 - i] = da == 1 ? db : da;
  }
  return {};
}

// The strides, in `out`'s dimensions, with which an operand of shape `in`
// broadcast to `out` is read: aligned right, 0 where `in` has no dimension or
// a 1 (the same element repeats), row-major steps elsewhere.
inline Shape broadcast_strides(const Shape& out, const Shape& in) {
  Shape st(out.size(), 0);
  int64_t step = 1;
  for (size_t i = 0; i < in.size(); ++i) {  // from the last dimension
    const size_t d = out.size() - 1 - i;
    const int64_t extent = in[in.size() - 1 - i];
    st[d] = extent == 1 ? 0 : step;
    step *= extent;
  }
  return st;
}

// Walks the row-major indices of `extents`, keeping for each of `strides`
// the offset it reads: offset[j] = sum over d of index[d] * strides[j][d].
class Odometer {
 public:
  Odometer(Shape extents, std::vector<Shape> strides)
      : extents_(std::move(extents)),
        strides_(std::move(strides)),
        index_(extents_.size(), 0),
        offset_(strides_.size(), 0) {}
  int64_t offset(size_t j) const { return offset_[j]; }
  void next() {
    for (size_t d = extents_.size(); d-- > 0;) {
      for (size_t j = 0; j < strides_.size(); ++j) offset_[j] += strides_[j][d];
      if (++index_[d] < extents_[d]) return;
      for (size_t j = 0; j < strides_.size(); ++j) offset_[j] -= strides_[j][d] * extents_[d];
      index_[d] = 0;
    }
  }

 private:
  Shape extents_;
  std::vector<Shape> strides_;
  Shape index_, offset_;
};

}  // namespace konform::reference
