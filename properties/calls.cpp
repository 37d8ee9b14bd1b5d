#include "calls.hpp"

#include <stdexcept>
#include <utility>

#include "konform/call.hpp"
#include "konform/op.hpp"

namespace konform::calls {

const OpSpec& op(const std::string& name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error("no op " + name + " in the catalog");
  return *o;
}

bool exports(const Backend& b, const std::string& name) { return b.symbol(op(name).symbol) != nullptr; }

std::vector<float> Outcome::f32(const std::string& name) const {
  const Tensor& t = out.at(name);
  return {t.f32(), t.f32() + t.elements()};
}
std::vector<int32_t> Outcome::i32(const std::string& name) const {
  const Tensor& t = out.at(name);
  return {t.i32(), t.i32() + t.elements()};
}
std::vector<uint8_t> Outcome::u8(const std::string& name) const { return out.at(name).bytes; }

Outcome call(const Backend& b, const std::string& name, CaseInputs in) {
  const OpSpec& o = op(name);
  Outcome r;
  r.c = declared_case(o, std::move(in));
  r.out = run_op(b, o, r.c);
  if (!o.status.empty()) r.status = r.out.at(o.status).i32()[0];
  return r;
}

Outcome call_valid(const Backend& b, const std::string& name, CaseInputs in) {
  Outcome r = call(b, name, std::move(in));
  if (r.status != 0) throw std::runtime_error(name + " refused valid arguments: status " + std::to_string(r.status));
  return r;
}

std::vector<float> rmsnorm(const Backend& b, const std::vector<float>& x, const std::vector<float>& w, int64_t rows,
                           int64_t d, float eps, bool in_place) {
  return call(b, "elementwise_rmsnorm",
              {{{"rows", double(rows)}, {"d", double(d)}, {"eps", double(eps)}},
               {{"x", flat(x)}, {"w", flat(w)}},
               {{"y", in_place ? "x" : ""}}})
      .f32("y");
}

std::vector<float> rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T,
                        int64_t H, int64_t D, int64_t d_rot, const std::vector<float>& inv_freq, float attn_scaling,
                        int layout) {
  return call(b, "elementwise_rope",
              {{{"T", double(T)},
                {"H", double(H)},
                {"D", double(D)},
                {"d_rot", double(d_rot)},
                {"attn_scaling", double(attn_scaling)},
                {"layout", double(layout)}},
               {{"x", flat(x)}, {"pos", flat(pos)}, {"inv_freq", flat(inv_freq)}}})
      .f32("x");
}

std::vector<float> silu_mul(const Backend& b, const std::vector<float>& gate, const std::vector<float>& up) {
  return call(b, "elementwise_silu_mul", {{{"n", double(gate.size())}}, {{"gate", flat(gate)}, {"up", flat(up)}}})
      .f32("y");
}

std::vector<float> embedding(const Backend& b, const std::vector<float>& table, int64_t V,
                             const std::vector<int32_t>& ids, int64_t d) {
  return call(b, "elementwise_embedding",
              {{{"n", double(ids.size())}, {"d", double(d)}, {"V", double(V)}},
               {{"table", flat(table)}, {"ids", flat(ids)}}})
      .f32("out");
}

std::vector<float> add(const Backend& b, const std::vector<float>& a, const std::vector<float>& bv, bool in_place) {
  return call(b, "elementwise_add",
              {{{"n", double(a.size())}}, {{"a", flat(a)}, {"b", flat(bv)}}, {{"y", in_place ? "a" : ""}}})
      .f32("y");
}

int32_t argmax(const Backend& b, const std::vector<float>& x) {
  return call(b, "elementwise_argmax", {{{"n", double(x.size())}}, {{"x", flat(x)}}}).i32("index")[0];
}

}  // namespace konform::calls
