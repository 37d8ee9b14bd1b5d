// The KV cache of spec/operations.txt §5 (tinyllm/kv_cache.h) as one catalog
// op, KvCache: a case is a session -- create, then steps of "begin(s), append
// and read every layer, commit", with resets between some -- and every
// status, every past_seq_len and every view read is compared bit for bit
// with the reference cache run through the same session.
//
// Inputs: `script` [steps, 2] = (s, reset before the step); `k_new` and
// `v_new` hold each step's [layers, kv_heads, s, head_dim] one after another.
// Outputs: `status` (create), `statuses` (per step: the first failing call of
// begin, the appends, commit), `past` (past_seq_len after each step),
// `lengths` (each layer's view length after its append), `views` (each view
// of a step that began: K then V, [kv_heads, length, head_dim]), and
// `stable` (1 when every view of a layer had the same pointers and stride
// max_seq * head_dim, as views of one allocation must).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "konform/reference/kv_cache.hpp"
#include "tensor_support.hpp"
#include "tinyllm/cuda/kv_cache.h"
#include "tinyllm/kv_cache.h"

namespace konform::ops {

std::vector<OpSpec> kv_cache();

namespace {

using namespace tensor;

struct Session {
  int64_t layers = 1, kv_heads = 1, head_dim = 1, max_seq = 1;
  std::vector<int32_t> s, reset;  // per step
};

// The steps of `script`, (s, reset) pairs, into n.
void read_script(const Tensor& script, Session* n) {
  for (int64_t i = 0; i < script.elements() / 2; ++i) {
    n->s.push_back(script.i32()[2 * i]);
    n->reset.push_back(script.i32()[2 * i + 1]);
  }
}

Session session_of(const Case& c) {
  Session n{c.iparam("layers"), c.iparam("kv_heads"), c.iparam("head_dim"), c.iparam("max_seq"), {}, {}};
  read_script(c.in("script"), &n);
  return n;
}

int64_t steps_of(const Session& n) { return static_cast<int64_t>(n.s.size()); }

// The positions a step's new K (or V) holds: s, or none where the cache
// refuses s < 1, so that a file's negative s never moves the reads back.
int64_t step_positions(int32_t s) { return std::max<int32_t>(s, 0); }

// Floats of one step's new K (or V): [layers, kv_heads, s, head_dim].
int64_t step_floats(const Session& n, int64_t i) { return n.layers * n.kv_heads * step_positions(n.s[i]) * n.head_dim; }

// The counts no shape expression gives, since the script's contents set them:
// k_new and v_new hold every step's [layers, kv_heads, s, head_dim] one
// after another; the script is [steps, 2].
std::optional<Factors> declared_count(const std::string& arg, const Case& c) {
  const auto script = std::find_if(c.args.begin(), c.args.end(), [](const Arg& a) { return a.name == "script"; });
  if (script == c.args.end()) return std::nullopt;  // refused as missing
  const auto& rows = script->value.shape;           // its first dimension: the steps
  if (arg == "script") return Factors{{"script's rows", rows.empty() ? NAN : double(rows[0])}, {"2", 2}};
  if (arg != "k_new" && arg != "v_new") return std::nullopt;
  Session n;
  read_script(script->value, &n);
  double positions = 0;
  for (int32_t s : n.s) positions += double(step_positions(s));
  return Factors{param_factor(c, "layers"),
                 param_factor(c, "kv_heads"),
                 {"the steps' s summed", positions},
                 param_factor(c, "head_dim")};
}

// Runs the session on the reference cache; `read` sees each layer's view
// after its append: (step, layer, the cache).
template <typename Read>
std::vector<tl_status> run_reference(const Session& n, const float* k_new, const float* v_new,
                                     reference::KvCache<double>& cache, std::vector<int64_t>* past, Read read) {
  std::vector<tl_status> statuses;
  int64_t at = 0;
  for (int64_t i = 0; i < steps_of(n); ++i) {
    if (n.reset[i]) cache.reset();
    tl_status st = cache.begin(n.s[i]).status;
    const int64_t chunk = n.kv_heads * n.s[i] * n.head_dim;
    for (int64_t l = 0; st == TL_OK && l < n.layers; ++l) {
      st = cache.append(l, k_new + at + l * chunk, v_new + at + l * chunk).status;
      if (st == TL_OK) read(i, l, cache);
    }
    if (st == TL_OK) st = cache.commit().status;
    statuses.push_back(st);
    past->push_back(cache.past_seq_len());
    at += step_floats(n, i);
  }
  return statuses;
}

// The views' total size and each step's lengths, from the reference.
int64_t views_floats(const Session& n, const std::vector<float>& k, const std::vector<float>& v) {
  if (!reference::KvCache<double>::check_create(n.layers, n.kv_heads, n.head_dim, n.max_seq).ok()) return 0;
  reference::KvCache<double> cache(n.layers, n.kv_heads, n.head_dim, n.max_seq);
  std::vector<int64_t> past;
  int64_t total = 0;
  run_reference(n, k.data(), v.data(), cache, &past,
                [&](int64_t, int64_t l, const auto& c) { total += 2 * n.kv_heads * c.length(l) * n.head_dim; });
  return total;
}

// ---------------------------------------------------------------- cases

// Sessions that walk the rules: fill to exactly max_seq then overflow by one
// decode step; a prefill past max_seq refused with nothing written, then one
// that fits exactly; a reset mid-sequence and a second prefill over old data;
// a cache of one position.
struct EdgeSession {
  int64_t layers, kv_heads, head_dim, max_seq;
  std::vector<std::pair<int32_t, int32_t>> script;
};
const std::vector<EdgeSession>& edge_sessions() {
  static const std::vector<EdgeSession> e = {
      {2, 2, 4, 8, {{3, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {8, 1}}},
      {1, 1, 1, 1, {{1, 0}, {1, 0}, {1, 1}}},
      {3, 1, 5, 6, {{7, 0}, {6, 0}, {1, 0}, {2, 1}, {1, 0}}},
      {2, 4, 16, 20, {{5, 0}, {1, 0}, {1, 0}, {3, 1}, {1, 0}, {1, 0}, {16, 0}, {1, 0}}},
      {4, 2, 128, 33, {{32, 0}, {1, 0}, {1, 0}}},
  };
  return e;
}

Case make_case(Rng& rng, int64_t index) {
  Session n;
  std::vector<std::pair<int32_t, int32_t>> script;
  std::string bad;
  if (index < static_cast<int64_t>(edge_sessions().size())) {
    const EdgeSession& e = edge_sessions()[static_cast<size_t>(index)];
    n = {e.layers, e.kv_heads, e.head_dim, e.max_seq, {}, {}};
    script = e.script;
  } else {
    n.layers = rng.range(1, 4);
    n.kv_heads = rng.range(1, 4);
    n.head_dim = rng.pick(std::vector<int64_t>{1, 2, 3, 8, 16, 17, 64, 128});
    n.max_seq = rng.range(1, 48);
    const int64_t steps = rng.range(1, 10);
    int64_t past = 0;
    for (int64_t i = 0; i < steps; ++i) {
      const bool reset = i > 0 && rng.chance(0.15);
      if (reset) past = 0;
      // A prefill first (or after a reset), decode steps after; now and then
      // a step that overflows, and one that fills the cache exactly.
      int32_t s = past == 0 ? static_cast<int32_t>(rng.range(1, n.max_seq)) : 1;
      if (rng.chance(0.15)) s = static_cast<int32_t>(n.max_seq - past + rng.range(0, 2));
      if (s < 1) s = 1;
      script.push_back({s, reset ? 1 : 0});
      if (past + s <= n.max_seq) past += s;
    }
    if (rng.chance(0.08)) {  // refused at create: nothing is written
      switch (rng.range(0, 2)) {
        case 0:
          n.layers = 0;
          bad = "bad: num_layers 0";
          break;
        case 1:
          n.kv_heads = -rng.range(1, 3);
          bad = "bad: kv_heads < 0";
          break;
        default:
          n.max_seq = int64_t{1} << 60;
          bad = "bad: a size that overflows int64_t";
          break;
      }
    }
  }
  for (const auto& [s, r] : script) {
    n.s.push_back(s);
    n.reset.push_back(r);
  }
  int64_t floats = 0;
  for (int64_t i = 0; i < steps_of(n); ++i) floats += bad.empty() ? step_floats(n, i) : 0;
  std::string label;
  std::vector<float> kv = layout_values(rng, 2 * floats, &label);
  std::vector<float> k(kv.begin(), kv.begin() + floats), v(kv.begin() + floats, kv.end());
  if (floats == 0) k = v = {0.0f};  // a refused create reads nothing; keep the buffers non-empty

  Case c;
  c.params = {{"layers", double(n.layers)},
              {"kv_heads", double(n.kv_heads)},
              {"head_dim", double(n.head_dim)},
              {"max_seq", double(n.max_seq)}};
  std::vector<int32_t> flat;
  std::string steps_label;
  for (int64_t i = 0; i < steps_of(n); ++i) {
    flat.push_back(n.s[i]);
    flat.push_back(n.reset[i]);
    steps_label += std::string(i ? "," : "") + (n.reset[i] ? "R" : "") + std::to_string(n.s[i]);
  }
  const int64_t steps = steps_of(n);
  c.args.push_back({"script", Access::in, Tensor::of_i32({steps, 2}, flat)});
  c.args.push_back({"k_new", Access::in, Tensor::of_f32({static_cast<int64_t>(k.size())}, k)});
  c.args.push_back({"v_new", Access::in, Tensor::of_f32({static_cast<int64_t>(v.size())}, v)});
  const bool ok = bad.empty();
  c.args.push_back({"statuses", Access::out, Tensor::zeros(DType::i32, {ok ? steps : 1}), Match::exact});
  c.args.push_back({"past", Access::out, Tensor::zeros(DType::i32, {ok ? steps : 1}), Match::exact});
  c.args.push_back({"lengths", Access::out, Tensor::zeros(DType::i32, {ok ? steps * n.layers : 1}), Match::exact});
  c.args.push_back({"views", Access::out,
                    Tensor::zeros(DType::f32, {ok ? std::max<int64_t>(views_floats(n, k, v), 1) : 1}), Match::exact});
  c.args.push_back({"stable", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "layers=" + std::to_string(n.layers) + " kv_heads=" + std::to_string(n.kv_heads) +
            " head_dim=" + std::to_string(n.head_dim) + " max_seq=" + std::to_string(n.max_seq) + " steps [" +
            steps_label + "] " + label + (bad.empty() ? "" : " " + bad);
  return c;
}

// ---------------------------------------------------------------- the call

// The session, through the host table (tinyllm/kv_cache.h) or the device
// table (tinyllm/cuda/kv_cache.h): the same functions but for append's
// stream and the views' device pointers.
template <class Api>
void run_session(const KernelFn& fn, const Api* api, const char* symbol, const Case& c, const Pointers& p) {
  const Session n = session_of(c);
  if (api == nullptr || api->abi_version != 1)
    throw std::runtime_error(std::string(symbol) + " returned " +
                             std::string(api == nullptr ? "NULL" : "an abi_version other than 1"));
  tl_kv_cache* cache = nullptr;
  const tl_status created = api->create(n.layers, n.kv_heads, n.head_dim, n.max_seq, &cache);
  *p.i32("status") = created;
  if (created != TL_OK) return;

  const float* k_new = fn.arg(p.f32("k_new"));
  const float* v_new = fn.arg(p.f32("v_new"));
  float* views = p.f32("views");
  const int64_t views_size = c.arg("views").value.elements();
  int64_t written = 0, at = 0;
  std::vector<const float*> first_k(static_cast<size_t>(n.layers), nullptr);
  bool stable = true;
  // Copies a view's rows; a view longer than the room left is cut there and
  // a shorter one leaves NaN: either way the bits differ from the oracle's.
  // Rows past max_seq are not read (they are outside the cache): the wrong
  // length is already in `lengths`.
  auto copy_view = [&](const float* base, const tl_kv_view_f32& view) {
    const int64_t rows = std::clamp<int64_t>(view.length, 0, n.max_seq);
    for (int64_t h = 0; h < n.kv_heads; ++h) {  // a head's rows are contiguous
      const int64_t count = std::min(rows * n.head_dim, views_size - written);
      if (count <= 0) break;
      fn.read(views + written, base + h * view.head_stride, static_cast<size_t>(count) * sizeof(float));
      written += count;
    }
  };
  for (int64_t i = 0; i < steps_of(n); ++i) {
    if (n.reset[i]) api->reset(cache);
    tl_status st = api->begin(cache, n.s[i]);
    const int64_t chunk = n.kv_heads * n.s[i] * n.head_dim;
    for (int64_t l = 0; l < n.layers; ++l) {
      int32_t& length = p.i32("lengths")[i * n.layers + l];
      length = 0;
      if (st != TL_OK) continue;
      if constexpr (std::is_same_v<Api, tl_kv_cache_dev_api>)
        st = api->append_f32(cache, l, k_new + at + l * chunk, v_new + at + l * chunk,
                             static_cast<tl_cuda_stream>(fn.stream()));
      else st = api->append_f32(cache, l, k_new + at + l * chunk, v_new + at + l * chunk);
      tl_kv_view_f32 view{};
      if (st == TL_OK) st = api->view_f32(cache, l, &view);
      if (st != TL_OK) continue;
      length = static_cast<int32_t>(view.length);
      if (first_k[l] == nullptr) first_k[l] = view.k;
      stable = stable && view.k == first_k[l] && view.head_stride == n.max_seq * n.head_dim;
      copy_view(view.k, view);
      copy_view(view.v, view);
    }
    if (st == TL_OK) st = api->commit(cache);
    p.i32("statuses")[i] = st;
    p.i32("past")[i] = static_cast<int32_t>(api->past_seq_len(cache));
    at += step_floats(n, i);
  }
  while (written < views_size) views[written++] = std::numeric_limits<float>::quiet_NaN();
  *p.i32("stable") = stable ? 1 : 0;
  api->destroy(cache);
}

void invoke(const KernelFn& fn, const Case& c, const Pointers& p) {
  if (fn.on_a_device())
    run_session(fn, reinterpret_cast<decltype(&tl_kv_cache_dev_api_v1)>(fn.address())(), "tl_kv_cache_dev_api_v1", c,
                p);
  else run_session(fn, reinterpret_cast<decltype(&tl_kv_cache_api_v1)>(fn.address())(), "tl_kv_cache_api_v1", c, p);
}

Oracle oracle(const Case& c) {
  const Session n = session_of(c);
  const reference::Verdict created =
      reference::KvCache<double>::check_create(n.layers, n.kv_heads, n.head_dim, n.max_seq);
  if (!created.ok()) return {{"status", status_expected(created.status)}};
  reference::KvCache<double> cache(n.layers, n.kv_heads, n.head_dim, n.max_seq);
  std::vector<double> views, lengths;
  std::vector<int64_t> past;
  const auto statuses = run_reference(n, c.in("k_new").f32(), c.in("v_new").f32(), cache, &past,
                                      [&](int64_t, int64_t l, const reference::KvCache<double>& r) {
                                        lengths.push_back(static_cast<double>(r.length(l)));
                                        for (const double* base : {r.k(l), r.v(l)})
                                          for (int64_t h = 0; h < n.kv_heads; ++h)
                                            for (int64_t t = 0; t < r.length(l); ++t)
                                              for (int64_t d = 0; d < n.head_dim; ++d)
                                                views.push_back(base[h * r.head_stride() + t * n.head_dim + d]);
                                      });
  // The reference refuses only at begin: a refused step read nothing, its lengths are 0.
  std::vector<double> all_lengths;
  size_t next = 0;
  for (int64_t i = 0; i < steps_of(n); ++i)
    for (int64_t l = 0; l < n.layers; ++l) all_lengths.push_back(statuses[i] == TL_OK ? lengths[next++] : 0.0);
  if (views.empty()) views.push_back(std::numeric_limits<double>::quiet_NaN());
  std::vector<double> st(statuses.begin(), statuses.end()), pa(past.begin(), past.end());
  return {{"statuses", exact_expected(st)}, {"past", exact_expected(pa)},      {"lengths", exact_expected(all_lengths)},
          {"views", exact_expected(views)}, {"stable", exact_expected({1.0})}, {"status", status_expected(TL_OK)}};
}

}  // namespace

std::vector<OpSpec> kv_cache() {
  OpSpec o;
  o.name = "KvCache";
  // The script's rows, and so every other size, are the session's own:
  // declared_count below, and the oracle for the outputs.
  o.args = {{"script", Access::in, "i32", kShapeByCode},
            {"k_new", Access::in, "T", kShapeByCode},
            {"v_new", Access::in, "T", kShapeByCode},
            {"statuses", Access::out, "i32", kShapeByOracle, {Match::exact}},
            {"past", Access::out, "i32", kShapeByOracle, {Match::exact}},
            {"lengths", Access::out, "i32", kShapeByOracle, {Match::exact}},
            {"views", Access::out, "T", kShapeByOracle, {Match::exact}},
            {"stable", Access::out, "i32", "1", {Match::exact}},
            status_output()};
  o.group = "kv_cache";
  o.symbol = "tl_kv_cache_api_v1";
  o.device_symbol = "tl_kv_cache_dev_api_v1";
  o.summary = "a KV cache session: create, then per forward begin(s), append and view every layer, commit; resets";
  o.spec = "operations.txt 5. Attention: KvCache";
  o.params = {{"layers", ParamType::i64,
               "num_layers: >= 1; the cache's 2 * num_layers * kv_heads * max_seq * head_dim * 4 bytes within int64_t"},
              {"kv_heads", ParamType::i64, ">= 1 (in the cache's bytes, as layers)"},
              {"head_dim", ParamType::i64, ">= 1 (in the cache's bytes, as layers)"},
              {"max_seq", ParamType::i64, ">= 1 (in the cache's bytes, as layers)"}};
  o.domain =
      "1-4 layers and KV heads, head_dim 1-128, max_seq 1-48: a prefill then decode steps, steps that "
      "fill the cache exactly and ones that overflow it (refused, nothing written), resets over old data, "
      "NaN payloads and signed zeros; refused: a size < 1 or a cache whose bytes overflow int64_t; script: "
      "steps of (s >= 1, reset before the step)";
  o.status = "status";
  o.edge_cases = static_cast<int64_t>(edge_sessions().size());
  o.make_case = make_case;
  o.invoke = invoke;
  o.oracle = oracle;
  o.declared_count = declared_count;
  return {o};
}

}  // namespace konform::ops
