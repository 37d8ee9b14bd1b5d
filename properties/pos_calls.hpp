// The ops of tinyllm/pos.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, and, for a refused call, the check
// that nothing was written), with plain vectors in and out.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/backend.hpp"
#include "konform/call.hpp"
#include "konform/op.hpp"

namespace konform::pos_calls {

// What a validating op gives back: its status and its output (left as the
// poison the harness put there when the call was refused).
struct Result {
  int32_t status = 0;
  std::vector<float> out;
};

inline const OpSpec& op(const char* name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error(std::string("no op ") + name + " in the catalog");
  return *o;
}

inline Result run(const Backend& b, const char* name, const Case& c, const std::string& output) {
  auto outs = run_op(b, op(name), c);
  Result r;
  r.status = outs.at("status").i32()[0];
  const Tensor& t = outs.at(output);
  r.out.assign(t.f32(), t.f32() + t.elements());
  return r;
}

inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }

inline Result rope_cache(const Backend& b, int64_t max_seq, int64_t rot_dim, float base) {
  Case c;
  c.params = {{"max_seq", double(max_seq)}, {"rot_dim", double(rot_dim)}, {"base", double(base)}};
  // A refused call gets a one-element buffer: it must not write there either.
  const int64_t rows = max_seq >= 1 && max_seq <= 4096 && rot_dim >= 1 ? max_seq : 1;
  c.args.push_back({"cache", Access::out, Tensor::zeros(DType::f32, {rows, rot_dim >= 1 ? rot_dim : 1})});
  c.args.push_back(status_arg());
  return run(b, "Rope_cache", c, "cache");
}

inline Result rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T, int64_t H,
                   int64_t D, int64_t rot_dim, const std::vector<float>& cache, int64_t max_seq, int layout,
                   bool in_place = false) {
  Case c;
  c.params = {{"T", double(T)},
              {"H", double(H)},
              {"D", double(D)},
              {"rot_dim", double(rot_dim)},
              {"max_seq", double(max_seq)},
              {"layout", double(layout)}};
  const int64_t n = static_cast<int64_t>(x.size());
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"pos", Access::in, Tensor::of_i32({static_cast<int64_t>(pos.size())}, pos)});
  c.args.push_back({"cache", Access::in, Tensor::of_f32({static_cast<int64_t>(cache.size())}, cache)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  return run(b, "Rope", c, "y");
}

inline Result multi_axis_rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T,
                              int64_t H, int64_t D, const std::vector<int64_t>& dims, const std::vector<float>& bases,
                              int layout, bool in_place = false) {
  Case c;
  c.params = {{"T", double(T)},
              {"H", double(H)},
              {"D", double(D)},
              {"n_axes", double(dims.size())},
              {"layout", double(layout)}};
  for (size_t a = 0; a < dims.size(); ++a) {
    c.params["dim" + std::to_string(a)] = double(dims[a]);
    c.params["base" + std::to_string(a)] = double(bases[a]);
  }
  const int64_t n = static_cast<int64_t>(x.size());
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"pos", Access::in, Tensor::of_i32({static_cast<int64_t>(pos.size())}, pos)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  return run(b, "MultiAxisRope", c, "y");
}

inline Result sinusoidal_embed(const Backend& b, const std::vector<float>& t, int64_t dim, float max_period,
                               float freq_shift, int layout) {
  Case c;
  const int64_t n = static_cast<int64_t>(t.size());
  c.params = {{"n", double(n)},
              {"dim", double(dim)},
              {"max_period", double(max_period)},
              {"freq_shift", double(freq_shift)},
              {"layout", double(layout)}};
  c.args.push_back({"t", Access::in, Tensor::of_f32({n}, t)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n, dim > 0 ? dim : 1})});
  c.args.push_back(status_arg());
  return run(b, "SinusoidalEmbed", c, "y");
}

// TokenEmbed (rows = vocab) or PosEmbed (rows = max_pos).
inline Result embed(const Backend& b, const char* name, const std::vector<float>& table, int64_t rows, int64_t d,
                    const std::vector<int32_t>& index) {
  Case c;
  const int64_t n = static_cast<int64_t>(index.size());
  c.params = {{"n", double(n)}, {"rows", double(rows)}, {"d", double(d)}};
  c.args.push_back({"table", Access::in, Tensor::of_f32({static_cast<int64_t>(table.size())}, table)});
  c.args.push_back({"index", Access::in, Tensor::of_i32({n}, index)});
  c.args.push_back({"out", Access::out, Tensor::zeros(DType::f32, {n, d}), Match::exact});
  c.args.push_back(status_arg());
  return run(b, name, c, "out");
}

inline Result relative_pos_embedding(const Backend& b, const std::vector<float>& table, const std::vector<int32_t>& q,
                                     const std::vector<int32_t>& k, int64_t H, int64_t num_buckets,
                                     int64_t max_distance, bool bidirectional) {
  Case c;
  const int64_t Lq = static_cast<int64_t>(q.size()), Lk = static_cast<int64_t>(k.size());
  c.params = {{"Lq", double(Lq)},
              {"Lk", double(Lk)},
              {"H", double(H)},
              {"num_buckets", double(num_buckets)},
              {"max_distance", double(max_distance)},
              {"bidirectional", bidirectional ? 1.0 : 0.0}};
  c.args.push_back({"table", Access::in, Tensor::of_f32({static_cast<int64_t>(table.size())}, table)});
  c.args.push_back({"q_pos", Access::in, Tensor::of_i32({Lq}, q)});
  c.args.push_back({"k_pos", Access::in, Tensor::of_i32({Lk}, k)});
  c.args.push_back({"bias", Access::out, Tensor::zeros(DType::f32, {H > 0 ? H : 1, Lq, Lk}), Match::exact});
  c.args.push_back(status_arg());
  return run(b, "RelativePosEmbedding", c, "bias");
}

}  // namespace konform::pos_calls
