// The ops of tinyllm/pos.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, and, for a refused call, the check
// that nothing was written), with plain vectors in and out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "konform/backend.hpp"
#include "calls.hpp"

namespace konform::pos_calls {

// What a validating op gives back: its status and its output (left as the
// poison the harness put there when the call was refused).
struct Result {
  int32_t status = 0;
  std::vector<float> out;
};

inline Result run(const Backend& b, const char* name, const CaseInputs& in, const std::string& output) {
  const calls::Outcome o = calls::call(b, name, in);
  return {o.status, o.f32(output)};
}

inline Result rope_cache(const Backend& b, int64_t max_seq, int64_t rot_dim, float base) {
  return run(b, "Rope_cache", {{{"max_seq", double(max_seq)}, {"rot_dim", double(rot_dim)}, {"base", double(base)}}},
             "cache");
}

inline Result rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T, int64_t H,
                   int64_t D, int64_t rot_dim, const std::vector<float>& cache, int64_t max_seq, int layout,
                   bool in_place = false) {
  return run(b, "Rope",
             {{{"T", double(T)},
               {"H", double(H)},
               {"D", double(D)},
               {"rot_dim", double(rot_dim)},
               {"max_seq", double(max_seq)},
               {"layout", double(layout)}},
              {{"x", flat(x)}, {"pos", flat(pos)}, {"cache", flat(cache)}},
              {{"y", in_place ? "x" : ""}}},
             "y");
}

inline Result multi_axis_rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T,
                              int64_t H, int64_t D, const std::vector<int64_t>& dims, const std::vector<float>& bases,
                              int layout, bool in_place = false) {
  CaseInputs in{{{"T", double(T)},
                 {"H", double(H)},
                 {"D", double(D)},
                 {"n_axes", double(dims.size())},
                 {"layout", double(layout)}},
                {{"x", flat(x)}, {"pos", flat(pos)}},
                {{"y", in_place ? "x" : ""}}};
  for (size_t a = 0; a < dims.size(); ++a) {
    in.params["dim" + std::to_string(a)] = double(dims[a]);
    in.params["base" + std::to_string(a)] = double(bases[a]);
  }
  return run(b, "MultiAxisRope", in, "y");
}

inline Result sinusoidal_embed(const Backend& b, const std::vector<float>& t, int64_t dim, float max_period,
                               float freq_shift, int layout) {
  return run(b, "SinusoidalEmbed",
             {{{"n", double(t.size())},
               {"dim", double(dim)},
               {"max_period", double(max_period)},
               {"freq_shift", double(freq_shift)},
               {"layout", double(layout)}},
              {{"t", flat(t)}}},
             "y");
}

// TokenEmbed (rows = vocab) or PosEmbed (rows = max_pos).
inline Result embed(const Backend& b, const char* name, const std::vector<float>& table, int64_t rows, int64_t d,
                    const std::vector<int32_t>& index) {
  return run(b, name,
             {{{"n", double(index.size())}, {"rows", double(rows)}, {"d", double(d)}},
              {{"table", flat(table)}, {"index", flat(index)}}},
             "out");
}

inline Result relative_pos_embedding(const Backend& b, const std::vector<float>& table, const std::vector<int32_t>& q,
                                     const std::vector<int32_t>& k, int64_t H, int64_t num_buckets,
                                     int64_t max_distance, bool bidirectional) {
  return run(b, "RelativePosEmbedding",
             {{{"Lq", double(q.size())},
               {"Lk", double(k.size())},
               {"H", double(H)},
               {"num_buckets", double(num_buckets)},
               {"max_distance", double(max_distance)},
               {"bidirectional", bidirectional ? 1.0 : 0.0}},
              {{"table", flat(table)}, {"q_pos", flat(q)}, {"k_pos", flat(k)}}},
             "bias");
}

}  // namespace konform::pos_calls
