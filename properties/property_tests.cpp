// ctest's driver of the properties: every property on every backend named by
// --backend (default: scalar and every SIMD target), one gtest test each.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "konform/op.hpp"
#include "konform/properties.hpp"

namespace {

std::vector<konform::Backend>& backends() {
  static std::vector<konform::Backend> b;
  return b;
}

struct Param {
  const konform::Backend* backend;
  const konform::Property* property;
};

class PropertyTest : public testing::TestWithParam<Param> {};

TEST_P(PropertyTest, Holds) {
  const auto& p = GetParam();
  const char* env = std::getenv("KONFORM_PROPERTY_RUNS");
  const int runs = env ? std::atoi(env) : 100;
  const auto outcome = konform::check_property(*p.property, *p.backend, 1, runs > 0 ? runs : 100);
  if (!outcome.not_run.empty()) GTEST_SKIP() << "not run: " << outcome.not_run;
  EXPECT_TRUE(outcome.passed) << p.property->name << " on " << p.backend->name << ": " << outcome.message;
  EXPECT_GT(outcome.runs, 0) << "the property ran no case";
}

std::string name_of(const testing::TestParamInfo<Param>& info) {
  std::string s = info.param.backend->name + "_" + info.param.property->op + "_" + info.param.property->name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const auto& b : backends())
    for (const auto& p : konform::properties())
      if (b.symbol(konform::find_op(p.op)->symbol) != nullptr) out.push_back({&b, &p});
  return out;
}

}  // namespace

// gtest evaluates the parameters inside InitGoogleTest, so main resolves
// --backend first.
INSTANTIATE_TEST_SUITE_P(Catalog, PropertyTest, testing::ValuesIn(params()), name_of);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PropertyTest);

int main(int argc, char** argv) {
  std::vector<char*> rest;
  std::vector<std::string> specs;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) specs.emplace_back(argv[++i]);
    else if (a.rfind("--backend=", 0) == 0) specs.push_back(a.substr(10));
    else rest.push_back(argv[i]);
  }
  if (specs.empty()) specs = {"scalar", "simd:all"};
  konform::load_rapidcheck_quietly();
  try {
    for (const auto& s : specs)
      for (auto& b : konform::resolve_backends(s)) backends().push_back(std::move(b));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "konform_properties: %s\n", e.what());
    return 2;
  }
  // 77: ctest's SKIP_RETURN_CODE convention: skipped and saying why, never passed.
  for (const auto& b : backends())
    if (!b.unavailable.empty()) {
      std::fprintf(stderr, "konform_properties: SKIPPED: backend %s cannot run here: %s\n", b.name.c_str(),
                   b.unavailable.c_str());
      return 77;
    }
  // gtest moves argv[argc] (the terminating null) along with the flags it
  // removes: the vector needs one.
  int n = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  testing::InitGoogleTest(&n, rest.data());
  return RUN_ALL_TESTS();
}
