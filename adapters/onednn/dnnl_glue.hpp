// The plumbing every oneDNN call of the adapter shares: one CPU engine, a
// stream per thread, plain row-major memory over the caller's buffers, and
// the conversion of oneDNN's exceptions into a tl_status with its words.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "impl/common/status.hpp"

namespace konform::peer::onednn {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using Args = std::unordered_map<int, dnnl::memory>;

inline dnnl::engine& cpu() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

inline dnnl::stream& stream() {
  thread_local dnnl::stream s(cpu());
  return s;
}

inline int64_t count(const dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

inline dims row_major_strides(const dims& d) {
  dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// f32, row-major (strides given or the plain ones).
inline dnnl::memory::desc plain(const dims& d) {
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, row_major_strides(d));
}
inline dnnl::memory::desc strided(const dims& d, const dims& strides) {
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, strides);
}
// A descriptor that lets the primitive choose its layout.
inline dnnl::memory::desc any(const dims& d) { return dnnl::memory::desc(d, dnnl::memory::data_type::f32, tag::any); }

// The caller's buffer seen as oneDNN memory (oneDNN takes a void*; inputs are
// only read).
inline dnnl::memory wrap(const dnnl::memory::desc& d, const void* p) {
  return dnnl::memory(d, cpu(), const_cast<void*>(p));
}

inline void run(const dnnl::primitive& p, const Args& args) {
  p.execute(stream(), args);
  stream().wait();
}

// `user` reordered into the layout `wanted` when it differs (a copy oneDNN
// makes, exact); `user` itself otherwise.
inline dnnl::memory as_layout(const dnnl::memory& user, const dnnl::memory::desc& wanted) {
  if (user.get_desc() == wanted) return user;
  dnnl::memory m(wanted, cpu());
  run(dnnl::reorder(user, m), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, m}});
  return m;
}

// The copy of a permuted view: y (row-major, dims out) gets x read through
// `in_strides` (x's stride of each output dimension). Transpose, Permute and
// the shuffles of spatial.h are this one oneDNN reorder.
inline void permuted_copy(const float* x, float* y, const dims& out, const dims& in_strides) {
  if (count(out) == 0) return;
  dnnl::memory src = wrap(strided(out, in_strides), x), dst = wrap(plain(out), y);
  run(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

// x of row-major dims `in`, axes reordered: output axis i is input axis perm[i].
inline void permute(const float* x, float* y, const dims& in, const std::vector<int>& perm) {
  const dims s = row_major_strides(in);
  dims out(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = in[perm[i]], strides[i] = s[perm[i]];
  permuted_copy(x, y, out, strides);
}

// Runs `body`; a oneDNN refusal (an unimplemented case, a shape it rejects)
// becomes TL_ERR_UNSUPPORTED with oneDNN's own words, so a case the library
// cannot do is counted unsupported, never judged on made-up numbers.
template <class Body>
tl_status guarded(const char* fn, Body&& body) {
  try {
    body();
    return TL_OK;
  } catch (const dnnl::error& e) {
    return impl::fail(TL_ERR_UNSUPPORTED, std::string(fn) + ": oneDNN cannot run this case: " + e.what() +
                                              " (dnnl_status " + std::to_string(static_cast<int>(e.status)) + ")");
  } catch (const std::bad_alloc&) {
    return impl::fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": out of memory");
  }
}

// The same for the functions of the ABI that return nothing: a failure there
// cannot be reported, so it stops the process with the reason.
template <class Body>
void must(const char* fn, Body&& body) {
  if (guarded(fn, static_cast<Body&&>(body)) != TL_OK) {
    std::fprintf(stderr, "%s (a call that cannot return a status)\n", tl_last_error());
    std::abort();
  }
}

}  // namespace konform::peer::onednn
