// Machine-readable figures: with KONFORM_BENCH_JSON=path in the environment,
// a bench writes every figure it records into that file as one JSON array at
// exit, one object a figure:
//   {"kernel", "shape", "threads", "figure", "unit", "reference",
//    "reference_figure", "ratio"}
// so that a later run can be compared with this one (ratio = figure /
// reference_figure, both measured in the same run).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace konform::bench {

struct JsonFigure {
  std::string kernel, shape;
  int threads;
  double figure;
  std::string unit, reference;
  double reference_figure;
};

class JsonReport {
 public:
  static JsonReport& get() {
    static JsonReport r;
    return r;
  }
  void add(JsonFigure f) { figures_.push_back(std::move(f)); }
  ~JsonReport() {
    const char* path = std::getenv("KONFORM_BENCH_JSON");
    if (path == nullptr || *path == '\0') return;
    FILE* out = std::fopen(path, "w");
    if (out == nullptr) {
      std::fprintf(stderr, "KONFORM_BENCH_JSON: cannot write %s\n", path);
      return;
    }
    std::fprintf(out, "[\n");
    for (size_t i = 0; i < figures_.size(); ++i) {
      const auto& f = figures_[i];
      std::fprintf(out,
                   "  {\"kernel\": \"%s\", \"shape\": \"%s\", \"threads\": %d, \"figure\": %.4g, \"unit\": \"%s\", "
                   "\"reference\": \"%s\", \"reference_figure\": %.4g, \"ratio\": %.4f}%s\n",
                   f.kernel.c_str(), f.shape.c_str(), f.threads, f.figure, f.unit.c_str(), f.reference.c_str(),
                   f.reference_figure, f.reference_figure > 0 ? f.figure / f.reference_figure : 0.0,
                   i + 1 < figures_.size() ? "," : "");
    }
    std::fprintf(out, "]\n");
    std::fclose(out);
  }

 private:
  std::vector<JsonFigure> figures_;
};

// One figure beside the reference it is read against (names without quotes).
inline void record(const std::string& kernel, const std::string& shape, int threads, double figure,
                   const std::string& unit, const std::string& reference, double reference_figure) {
  JsonReport::get().add({kernel, shape, threads, figure, unit, reference, reference_figure});
}

}  // namespace konform::bench
