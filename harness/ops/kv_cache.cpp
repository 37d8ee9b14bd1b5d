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
//
// KvCache_f16 and KvCache_bf16 are the same session on the half caches
// (tl_kv_cache_f16_api_v1, _bf16_): k_new and v_new stay f32, `views` holds
// the stored bit patterns, and the oracle's views are the f32 values, which
// the comparison rounds once to the dtype (to nearest, ties to even; a NaN
// any NaN) as it does the casts'. Their cases are few small sessions of the
// values where a demotion decides: ties, their neighbours, f16's overflow
// threshold, subnormals, NaN payloads in the low bits, signed zeros.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "konform/reference/kv_cache.hpp"
#include "konform/values.hpp"
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

// The bytes of one element of a cache of dtype t.
int element_bytes(DType t) { return static_cast<int>(dtype_size(t)); }

// The views' total size and each step's lengths, from the reference.
int64_t views_floats(const Session& n, const std::vector<float>& k, const std::vector<float>& v, DType t) {
  if (!reference::KvCache<double>::check_create(n.layers, n.kv_heads, n.head_dim, n.max_seq, element_bytes(t)).ok())
    return 0;
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

// A random script of `steps` steps for a cache of max_seq: a prefill first
// (or after a reset), decode steps after; now and then a step that
// overflows, and one that fills the cache exactly.
std::vector<std::pair<int32_t, int32_t>> random_script(Rng& rng, int64_t max_seq, int64_t steps) {
  std::vector<std::pair<int32_t, int32_t>> script;
  int64_t past = 0;
  for (int64_t i = 0; i < steps; ++i) {
    const bool reset = i > 0 && rng.chance(0.15);
    if (reset) past = 0;
    int32_t s = past == 0 ? static_cast<int32_t>(rng.range(1, max_seq)) : 1;
    if (rng.chance(0.15)) s = static_cast<int32_t>(max_seq - past + rng.range(0, 2));
    if (s < 1) s = 1;
    script.push_back({s, reset ? 1 : 0});
    if (past + s <= max_seq) past += s;
  }
  return script;
}

// The script's steps into n; returns the floats of its k_new (v_new alike):
// none where create is refused (`bad`).
int64_t set_script(Session* n, const std::vector<std::pair<int32_t, int32_t>>& script, const std::string& bad) {
  for (const auto& [s, r] : script) {
    n->s.push_back(s);
    n->reset.push_back(r);
  }
  int64_t floats = 0;
  for (int64_t i = 0; i < steps_of(*n); ++i) floats += bad.empty() ? step_floats(*n, i) : 0;
  return floats;
}

// A case of session n with its k_new then v_new in kv (floats each); t:
// the cache's dtype (the views').
Case session_case(const Session& n, const std::vector<float>& kv, int64_t floats, const std::string& label,
                  const std::string& bad, DType t) {
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
  c.args.push_back({"views", Access::out, Tensor::zeros(t, {ok ? std::max<int64_t>(views_floats(n, k, v, t), 1) : 1}),
                    Match::exact});
  c.args.push_back({"stable", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "layers=" + std::to_string(n.layers) + " kv_heads=" + std::to_string(n.kv_heads) +
            " head_dim=" + std::to_string(n.head_dim) + " max_seq=" + std::to_string(n.max_seq) + " steps [" +
            steps_label + "] " + label + (bad.empty() ? "" : " " + bad);
  return c;
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
    script = random_script(rng, n.max_seq, rng.range(1, 10));
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
  const int64_t floats = set_script(&n, script, bad);
  std::string label;
  std::vector<float> kv = layout_values(rng, 2 * floats, &label);
  return session_case(n, kv, floats, label, bad, DType::f32);
}

// ------------------------------------------------- the f16 and bf16 caches

// f32 values where rounding to t decides (the demotion's classes): the
// midpoint between two neighbours of t (a tie, to the even one) and the
// floats either side of it, the overflow threshold of t and its neighbour
// below (f16: 65520 is +Inf, the float below it 65504), subnormals of t
// and of f32, signed zeros and infinities, NaNs whose payload is only in
// the low 16 bits (a NaN that truncation or a rounding bias turns into an
// infinity or wraps), and otherwise random f32 bit patterns and uniform in (-4, 4).
float half_decision(Rng& rng, DType t) {
  const auto from_bits = [](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  const double top = largest_finite(t), below = half_value(t, t == DType::f16 ? 0x7bfeu : 0x7f7eu);
  switch (rng.range(0, 6)) {
    case 0:
    case 1: {  // a tie between neighbours p and p + 1 (finite both), or a float beside it
      const auto p = static_cast<uint16_t>(rng.range(0, t == DType::f16 ? 0x7bfe : 0x7f7e));
      const float mid = static_cast<float>((half_value(t, p) + half_value(t, static_cast<uint16_t>(p + 1))) / 2);
      const float x = rng.chance(0.5) ? mid : std::nextafter(mid, rng.chance(0.5) ? 0.0f : INFINITY);
      return rng.chance(0.5) ? -x : x;
    }
    case 2: {  // the specials
      static const uint32_t kBits[] = {
          0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,  // signed zeros, infinities
          0x7f800001u, 0xff800001u, 0x7f80ffffu, 0x7fffffffu,  // NaNs: payload in the low bits, all ones
          0x7fc00000u, 0xffc00001u, 0x7fbf8000u, 0x00000001u,  // quiet NaNs, a NaN that rounds up, the least f32
          0x007fffffu, 0x80400000u,                            // f32 subnormals
      };
      const float top_tie = static_cast<float>(top + (top - below) / 2);  // rounds to +Inf (even)
      const float specials_of_t[] = {
          static_cast<float>(top),
          top_tie,
          std::nextafter(top_tie, 0.0f),
          0x1p-24f,  // f16's least subnormal
          0x1p-25f,
          0x3p-25f,
          0x1p-14f,
          0x1.ff8p-15f,
          0x1p-133f,  // ties at 2^-24; 2^-133: bf16's
          0x1.8p-133f,
          0x1p-126f,
          65519.0f,
          65520.0f,
          1e5f,
      };
      float x = rng.chance(0.5) ? from_bits(kBits[rng.range(0, static_cast<int64_t>(std::size(kBits)) - 1)])
                                : specials_of_t[rng.range(0, static_cast<int64_t>(std::size(specials_of_t)) - 1)];
      if (!std::isnan(x) && rng.chance(0.5)) x = -x;
      return x;
    }
    case 3:
    case 4: return from_bits(static_cast<uint32_t>(rng.range(0, 0xffffffffLL)));
    default: return static_cast<float>(rng.uniform(-4, 4));
  }
}

// Small sessions (1-2 layers and KV heads, head_dim 1-8, max_seq 1-8, 1-4
// steps): the f32 op's rules once more on fewer elements; the values are
// the demotion's. Case 0 is the first of the f32 op's edge sessions.
Case make_half_case(DType t, Rng& rng, int64_t index) {
  Session n;
  std::vector<std::pair<int32_t, int32_t>> script;
  std::string bad;
  if (index == 0) {
    const EdgeSession& e = edge_sessions()[0];
    n = {e.layers, e.kv_heads, e.head_dim, e.max_seq, {}, {}};
    script = e.script;
  } else {
    n.layers = rng.range(1, 2);
    n.kv_heads = rng.range(1, 2);
    n.head_dim = rng.pick(std::vector<int64_t>{1, 2, 3, 8});
    n.max_seq = rng.range(1, 8);
    script = random_script(rng, n.max_seq, rng.range(1, 4));
    if (rng.chance(0.05)) {  // refused at create: 2 * 2 * 2^61 bytes of f16 pass int64_t
      n.layers = n.kv_heads = n.head_dim = 1;
      n.max_seq = int64_t{1} << 61;
      bad = "bad: a size that overflows int64_t";
    }
  }
  const int64_t floats = set_script(&n, script, bad);
  std::vector<float> kv(static_cast<size_t>(2 * floats));
  for (float& x : kv) x = half_decision(rng, t);
  return session_case(n, kv, floats, "the demotion's values", bad, t);
}

// ---------------------------------------------------------------- the call

// The four tables' append and view: the device tables' append takes a
// stream, the half tables' views (tl_kv_view_half) come from view_half.
template <class Api>
constexpr bool kOnDevice = std::is_same_v<Api, tl_kv_cache_dev_api> || std::is_same_v<Api, tl_kv_cache_half_dev_api>;
template <class Api>
using ViewOf = std::conditional_t<std::is_same_v<Api, tl_kv_cache_api> || std::is_same_v<Api, tl_kv_cache_dev_api>,
                                  tl_kv_view_f32, tl_kv_view_half>;

template <class Api>
tl_status append_of(const Api* a, tl_kv_cache* c, int64_t l, const float* k, const float* v, const KernelFn& fn) {
  if constexpr (kOnDevice<Api>) return a->append_f32(c, l, k, v, static_cast<tl_cuda_stream>(fn.stream()));
  else return a->append_f32(c, l, k, v);
}

template <class Api>
tl_status view_of(const Api* a, const tl_kv_cache* c, int64_t l, ViewOf<Api>* out) {
  if constexpr (std::is_same_v<ViewOf<Api>, tl_kv_view_half>) return a->view_half(c, l, out);
  else return a->view_f32(c, l, out);
}

// The session, through the host table (tinyllm/kv_cache.h) or the device
// table (tinyllm/cuda/kv_cache.h): the same functions but for append's
// stream and the views' device pointers; f32 or the half tables.
template <class Api>
void run_session(const KernelFn& fn, const Api* api, const char* symbol, const Case& c, const Pointers& p) {
  using View = ViewOf<Api>;
  using Elem = std::remove_cv_t<std::remove_pointer_t<decltype(View::k)>>;
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
  auto* views = static_cast<Elem*>(p.get("views"));
  const int64_t views_size = c.arg("views").value.elements();
  int64_t written = 0, at = 0;
  std::vector<const Elem*> first_k(static_cast<size_t>(n.layers), nullptr);
  bool stable = true;
  // Copies a view's rows; a view longer than the room left is cut there and
  // a shorter one leaves NaN: either way the bits differ from the oracle's.
  // Rows past max_seq are not read (they are outside the cache): the wrong
  // length is already in `lengths`.
  auto copy_view = [&](const Elem* base, const View& view) {
    const int64_t rows = std::clamp<int64_t>(view.length, 0, n.max_seq);
    for (int64_t h = 0; h < n.kv_heads; ++h) {  // a head's rows are contiguous
      const int64_t count = std::min(rows * n.head_dim, views_size - written);
      if (count <= 0) break;
      fn.read(views + written, base + h * view.head_stride, static_cast<size_t>(count) * sizeof(Elem));
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
      st = append_of(api, cache, l, k_new + at + l * chunk, v_new + at + l * chunk, fn);
      View view{};
      if (st == TL_OK) st = view_of(api, cache, l, &view);
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
  const DType t = c.arg("views").value.dtype;
  while (written < views_size) {
    if constexpr (std::is_same_v<Elem, float>) views[written++] = std::numeric_limits<float>::quiet_NaN();
    else views[written++] = half_bits(t, std::numeric_limits<double>::quiet_NaN());
  }
  *p.i32("stable") = stable ? 1 : 0;
  api->destroy(cache);
}

void invoke(const KernelFn& fn, const Case& c, const Pointers& p) {
  if (fn.on_a_device())
    run_session(fn, reinterpret_cast<decltype(&tl_kv_cache_dev_api_v1)>(fn.address())(), "tl_kv_cache_dev_api_v1", c,
                p);
  else run_session(fn, reinterpret_cast<decltype(&tl_kv_cache_api_v1)>(fn.address())(), "tl_kv_cache_api_v1", c, p);
}

// The half tables: the symbols are the op's own (tl_kv_cache_f16_api_v1 ...).
void invoke_half(const KernelFn& fn, const Case& c, const Pointers& p) {
  const bool bf16 = c.arg("views").value.dtype == DType::bf16;
  if (fn.on_a_device())
    run_session(fn, reinterpret_cast<decltype(&tl_kv_cache_f16_dev_api_v1)>(fn.address())(),
                bf16 ? "tl_kv_cache_bf16_dev_api_v1" : "tl_kv_cache_f16_dev_api_v1", c, p);
  else
    run_session(fn, reinterpret_cast<decltype(&tl_kv_cache_f16_api_v1)>(fn.address())(),
                bf16 ? "tl_kv_cache_bf16_api_v1" : "tl_kv_cache_f16_api_v1", c, p);
}

// The reference cache run through the session. For a half cache the views
// are the f32 values still: the comparison rounds each once to the views'
// dtype, which is what the cache must have stored.
Oracle oracle_of(const Case& c, DType dtype) {
  const Session n = session_of(c);
  const reference::Verdict created =
      reference::KvCache<double>::check_create(n.layers, n.kv_heads, n.head_dim, n.max_seq, element_bytes(dtype));
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

Oracle oracle(const Case& c) { return oracle_of(c, c.arg("views").value.dtype); }

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

  std::vector<OpSpec> ops = {o};
  for (const DType t : {DType::f16, DType::bf16}) {
    const std::string dtype(dtype_name(t));
    OpSpec h = o;
    h.name = "KvCache_" + dtype;
    h.dtype = t;
    h.symbol = "tl_kv_cache_" + dtype + "_api_v1";
    h.device_symbol = "tl_kv_cache_" + dtype + "_dev_api_v1";
    h.args[1].dtype = h.args[2].dtype = "f32";  // k_new, v_new: computed in f32, stored in the dtype
    h.summary = "KvCache's session on a cache of " + dtype +
                " elements: append takes f32 and stores each value rounded once to " + dtype +
                " (to nearest, ties to even), the views give the stored bits";
    h.params[0].range =
        "num_layers: >= 1; the cache's 2 * num_layers * kv_heads * max_seq * head_dim * 2 bytes within int64_t";
    h.domain =
        "1-2 layers and KV heads, head_dim 1-8, max_seq 1-8, 1-4 steps (KvCache's rules on fewer "
        "elements, its first edge session as case 0); values where the demotion to " +
        dtype +
        " decides: ties and the floats beside them, the overflow threshold, subnormals, NaN payloads in the "
        "low bits, signed zeros, infinities, random f32 bits; refused: a cache whose bytes overflow int64_t";
    h.edge_cases = 1;
    h.make_case = [t](Rng& rng, int64_t i) { return make_half_case(t, rng, i); };
    h.invoke = invoke_half;
    ops.push_back(std::move(h));
  }
  return ops;
}

}  // namespace konform::ops
