#include "calls.hpp"

#include <stdexcept>

#include "konform/call.hpp"
#include "konform/op.hpp"

namespace konform::calls {

namespace {

const OpSpec& op(const char* name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error(std::string("no op ") + name + " in the catalog");
  return *o;
}

std::vector<float> floats(const Tensor& t) { return {t.f32(), t.f32() + t.elements()}; }

}  // namespace

std::vector<float> rmsnorm(const Backend& b, const std::vector<float>& x, const std::vector<float>& w, int64_t rows,
                           int64_t d, float eps, bool in_place) {
  Case c;
  c.params = {{"rows", double(rows)}, {"d", double(d)}, {"eps", double(eps)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({rows, d}, x)});
  c.args.push_back({"w", Access::in, Tensor::of_f32({d}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {rows, d}), Match::tolerance, in_place ? "x" : ""});
  return floats(run_op(b, op("elementwise_rmsnorm"), c).at("y"));
}

std::vector<float> rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T,
                        int64_t H, int64_t D, int64_t d_rot, const std::vector<float>& inv_freq, float attn_scaling,
                        int layout) {
  Case c;
  c.params = {{"T", double(T)},
              {"H", double(H)},
              {"D", double(D)},
              {"d_rot", double(d_rot)},
              {"attn_scaling", double(attn_scaling)},
              {"layout", double(layout)}};
  c.args.push_back({"x", Access::inout, Tensor::of_f32({T, H, D}, x)});
  c.args.push_back({"pos", Access::in, Tensor::of_i32({T}, pos)});
  c.args.push_back({"inv_freq", Access::in, Tensor::of_f32({d_rot / 2}, inv_freq)});
  return floats(run_op(b, op("elementwise_rope"), c).at("x"));
}

std::vector<float> silu_mul(const Backend& b, const std::vector<float>& gate, const std::vector<float>& up) {
  const int64_t n = static_cast<int64_t>(gate.size());
  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"gate", Access::in, Tensor::of_f32({n}, gate)});
  c.args.push_back({"up", Access::in, Tensor::of_f32({n}, up)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n})});
  return floats(run_op(b, op("elementwise_silu_mul"), c).at("y"));
}

std::vector<float> embedding(const Backend& b, const std::vector<float>& table, int64_t V,
                             const std::vector<int32_t>& ids, int64_t d) {
  const int64_t n = static_cast<int64_t>(ids.size());
  Case c;
  c.params = {{"n", double(n)}, {"d", double(d)}, {"V", double(V)}};
  c.args.push_back({"table", Access::in, Tensor::of_f32({V, d}, table)});
  c.args.push_back({"ids", Access::in, Tensor::of_i32({n}, ids)});
  c.args.push_back({"out", Access::out, Tensor::zeros(DType::f32, {n, d}), Match::exact});
  return floats(run_op(b, op("elementwise_embedding"), c).at("out"));
}

std::vector<float> add(const Backend& b, const std::vector<float>& a, const std::vector<float>& bv, bool in_place) {
  const int64_t n = static_cast<int64_t>(a.size());
  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"a", Access::in, Tensor::of_f32({n}, a)});
  c.args.push_back({"b", Access::in, Tensor::of_f32({n}, bv)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, in_place ? "a" : ""});
  return floats(run_op(b, op("elementwise_add"), c).at("y"));
}

int32_t argmax(const Backend& b, const std::vector<float>& x) {
  const int64_t n = static_cast<int64_t>(x.size());
  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"index", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact});
  return run_op(b, op("elementwise_argmax"), c).at("index").i32()[0];
}

}  // namespace konform::calls
