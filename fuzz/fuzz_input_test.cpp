// The pieces the fuzz targets stand on: the byte-driven Rng, value classes
// under fuzz bytes, fuzz inputs decoded into cases (and seed corpora encoded
// from the sweep), and reproducer files read back.
#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "konform/case_shape.hpp"
#include "konform/fuzz_input.hpp"
#include "konform/repro.hpp"
#include "konform/sha256.hpp"
#include "konform/values.hpp"

namespace konform {
namespace {

std::vector<uint8_t> pseudo_random_bytes(uint64_t seed, size_t n) {
  Rng r(seed);
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = static_cast<uint8_t>(r.next());
  return b;
}

TEST(FuzzRng, EachDecisionReadsItsOwnBytes) {
  const uint8_t bytes[] = {7, 0x34, 0x12, 0x00, 200, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};
  Rng r = Rng::from_bytes(bytes, sizeof bytes);
  EXPECT_EQ(r.range(0, 9), 7);           // one byte for a span of 10
  EXPECT_EQ(r.range(0, 65535), 0x1234);  // two bytes for 2^16
  EXPECT_TRUE(r.chance(0.5));            // byte 0: (0 + .5) / 256 < .5
  EXPECT_FALSE(r.chance(0.5));           // byte 200
  EXPECT_EQ(r.unit(), 0.5);              // seven bytes, their top 53 bits
}

TEST(FuzzRng, AfterTheBytesAStreamThatDependsOnThem) {
  const uint8_t a[] = {1, 2, 3}, b[] = {1, 2, 4};
  Rng ra = Rng::from_bytes(a, 3), ra2 = Rng::from_bytes(a, 3), rb = Rng::from_bytes(b, 3);
  for (int i = 0; i < 3; ++i) (void)ra.range(0, 255), (void)ra2.range(0, 255), (void)rb.range(0, 255);
  const uint64_t x = ra.next();
  EXPECT_EQ(x, ra2.next()) << "the same input gives the same case";
  EXPECT_NE(x, rb.next()) << "the tail is seeded by every byte";
}

TEST(FuzzRng, RecordingKeepsTheSeededStreamAndReplaysItsDecisions) {
  std::vector<uint8_t> tape;
  Rng plain(99), rec = Rng::recording(99, &tape);
  std::vector<int64_t> want;
  for (int i = 0; i < 50; ++i) {
    const int64_t a = plain.range(-3, 1000), b = rec.range(-3, 1000);
    EXPECT_EQ(a, b);
    EXPECT_EQ(plain.chance(0.3), rec.chance(0.3));
    want.push_back(a);
  }
  Rng replay = Rng::from_bytes(tape.data(), tape.size());
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(replay.range(-3, 1000), want[i]);
    (void)replay.chance(0.3);
  }
}

TEST(FuzzValues, RawBitsOfTheClassAreUsedAsTheyAre) {
  const float specials[] = {INFINITY, -0.0f, 3.4028235e38f};
  uint8_t bytes[12];
  std::memcpy(bytes, specials, 12);
  Rng r = Rng::from_bytes(bytes, 12);
  float out[3];
  fill_values(r, ValueClass::specials, out, 3);
  EXPECT_EQ(out[0], INFINITY);
  EXPECT_TRUE(out[1] == 0.0f && std::signbit(out[1]));
  EXPECT_EQ(out[2], 3.4028235e38f);
}

TEST(FuzzValues, BitsOutsideTheClassBecomeAValueOfIt) {
  // Whatever the bytes, every value stays in its class: the op's domain holds.
  const auto bytes = pseudo_random_bytes(5, 4 * 4096);
  for (ValueClass c : kAllValueClasses) {
    Rng r = Rng::from_bytes(bytes.data(), bytes.size());
    std::vector<float> v(4096);
    fill_values(r, c, v.data(), 4096, 1e15);
    for (float x : v) {
      switch (c) {
        case ValueClass::normal: EXPECT_TRUE(std::fabs(x) <= 3.47f && std::fabs(x) >= 0x1p-20f) << x; break;
        case ValueClass::tiny: EXPECT_TRUE(std::fabs(x) >= 0x1p-126f && std::fabs(x) < 0x1p-108f) << x; break;
        case ValueClass::huge: EXPECT_TRUE(std::fabs(x) <= 1e15f) << x; break;
        case ValueClass::zeros: EXPECT_EQ(x, 0.0f); break;
        case ValueClass::subnormal: EXPECT_TRUE(x != 0 && std::fabs(x) < 0x1p-126f) << x; break;
        case ValueClass::ties: EXPECT_TRUE(x == std::trunc(x) && std::fabs(x) <= 2) << x; break;
        case ValueClass::wide: EXPECT_TRUE(std::fabs(x) >= 0x1p-40f && std::fabs(x) < 0x1p41f) << x; break;
        case ValueClass::specials: EXPECT_TRUE(std::isnan(x) || std::isinf(x) || std::fabs(x) <= 1e15f) << x; break;
      }
    }
  }
}

TEST(FuzzInput, SeedCorpusDecodesToTheSweepsDecisions) {
  for (const OpSpec& op : catalog()) {
    for (int64_t i : {int64_t{0}, op.edge_cases / 2, op.edge_cases + 3}) {
      const auto bytes = encode_sweep_case(0, op, 1, i, size_t{1} << 30);
      const FuzzCase fc = decode_fuzz_input({&op}, bytes.data(), bytes.size());
      Rng rng(case_seed(1, op.case_key(), i));
      const Case c = op.make_case(rng, i);
      EXPECT_EQ(fc.index, i) << op.name;
      EXPECT_EQ(fc.misalign, static_cast<size_t>(i % 2) * 4) << op.name;
      EXPECT_EQ(fc.c.label, c.label) << op.name << " case " << i;
      EXPECT_EQ(fc.c.params, c.params) << op.name << " case " << i;
    }
  }
}

TEST(FuzzInput, AnyBytesDecodeToACaseOfTheOpsStructure) {
  for (const OpSpec& op : catalog())
    for (uint64_t seed = 0; seed < 16; ++seed) {
      const auto bytes = pseudo_random_bytes(seed, seed * 7);
      const FuzzCase fc = decode_fuzz_input({&op}, bytes.data(), bytes.size());
      EXPECT_EQ(check_case_shape(op, fc.c), "") << op.name << " seed " << seed;
    }
}

// The reproducer reader holds a file's parameters to the declared types.
TEST(CaseShape, ParamsAreHeldToTheirDeclaredTypes) {
  const OpSpec* op = find_op("Clamp");
  ASSERT_NE(op, nullptr);
  Rng rng(case_seed(1, op->case_key(), 0));
  Case c = op->make_case(rng, 0);
  EXPECT_EQ(check_case_params(*op, c).first, "");
  auto with = [&](const std::string& name, double v) {
    Case d = c;
    d.params[name] = v;
    return check_case_params(*op, d);
  };
  EXPECT_EQ(with("n", 0.5).second, "0.5 is not an integer, and Clamp passes 'n' as i64");
  EXPECT_EQ(with("n", NAN).second, "NaN is not an integer, and Clamp passes 'n' as i64");
  EXPECT_EQ(with("lo", 1e300).second,
            "1e+300 is beyond float's range (+-3.4028235e38; write Infinity for an infinity), and "
            "Clamp passes 'lo' as f32");
  EXPECT_EQ(with("lo", -INFINITY).first, "");
  EXPECT_EQ(with("hi", NAN).first, "");
  EXPECT_EQ(with("eps", 1).second, "no parameter 'eps' in Clamp (it takes n, lo, hi)");
  const OpSpec* greedy = find_op("SampleGreedy");
  ASSERT_NE(greedy, nullptr);
  Rng r2(case_seed(1, greedy->case_key(), 0));
  Case g = greedy->make_case(r2, 0);
  g.params["seed"] = -1;
  EXPECT_EQ(check_case_params(*greedy, g).second,
            "-1 is out of range for u64 (0 .. 2^64 - 1), and SampleGreedy passes 'seed' as u64");
}

// The shapes an op declares (ArgSpec::shape, OpSpec::declared_count) are
// the ones its cases have: a case it accepts with another shape would be
// refused here. Past the edge cases, so the rare tensors come up. One test
// per op: a case whose size the oracle gives runs it in a child process,
// which the sanitizer build makes slow.
class DeclaredShapes : public testing::TestWithParam<std::string> {};

TEST_P(DeclaredShapes, FitEveryGeneratedCase) {
  const OpSpec* op = find_op(GetParam());
  ASSERT_NE(op, nullptr);
  for (int64_t i = 0; i < op->edge_cases + 128; ++i) {
    Rng rng(case_seed(3, op->case_key(), i));
    const Case c = op->make_case(rng, i);
    EXPECT_EQ(check_case_shape(*op, c), "") << op->name << " case " << i << ": " << c.label;
  }
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const OpSpec& op : catalog()) names.push_back(op.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(CaseShape, DeclaredShapes, testing::ValuesIn(op_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(Reproducer, WrittenAndReadBackTheSame) {
  const auto dir = std::filesystem::temp_directory_path() / "konform_repro_test";
  for (const OpSpec& op : catalog()) {
    const auto bytes = pseudo_random_bytes(11, 300);
    const FuzzCase fc = decode_fuzz_input({&op}, bytes.data(), bytes.size());
    Reproducer r;
    r.op = op.name;
    r.c = fc.c;
    r.misalign = fc.misalign;
    r.backend = "scalar";
    r.source = "fuzz";
    r.finding = Finding{};
    r.finding->check = "matches_oracle";
    r.finding->message = "test";
    r.finding->has_values = true;
    r.finding->expected = NAN;
    r.finding->got = -INFINITY;
    const std::string path = write_reproducer(r, dir.string());
    const Reproducer back = read_reproducer_file(path);
    EXPECT_EQ(reproducer_to_json(back), reproducer_to_json(r)) << op.name;
    ASSERT_EQ(back.c.args.size(), fc.c.args.size());
    for (size_t k = 0; k < back.c.args.size(); ++k)
      if (back.c.args[k].access != Access::out)
        EXPECT_EQ(back.c.args[k].value.bytes, fc.c.args[k].value.bytes) << op.name << " " << back.c.args[k].name;
  }
  std::filesystem::remove_all(dir);
}

TEST(Reproducer, MalformedFilesNameTheField) {
  const auto fails_with = [](const std::string& text, const std::string& fragment) {
    try {
      (void)parse_reproducer(text, "t.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ReproError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("t.json", 0), 0u) << e.what();
    }
  };
  fails_with("[1]", "expected a JSON object");
  fails_with(R"({"schema": "konform-repro/1", "op": "elementwise_add"})", "missing field 'params'");
  fails_with(R"({"schema": "konform-repro/1", "op": "elementwise_add", "params": {"n": "x"}, "args": []})", "params.n");
  fails_with(R"({"schema": "konform-repro/1", "op": "elementwise_add", "params": {"n": 1}, "args": [{"name": "a"}]})",
             "missing field 'access'");
}

TEST(Reproducer, SHA256IsTheStandardOne) {  // FIPS 180-4's examples; 56 bytes need a second padding block
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Reproducer, LibraryFieldIsStrict) {
  const std::string head = R"({"schema": "konform-repro/1", "op": "elementwise_add", "params": {"n": 1}, "args": [)"
                           R"({"name": "a", "access": "in", "dtype": "f32", "shape": [1], "values": [1]},)"
                           R"({"name": "b", "access": "in", "dtype": "f32", "shape": [1], "values": [2]},)"
                           R"({"name": "y", "access": "out", "dtype": "f32", "shape": [1]}],)"
                           R"("finding": {"check": "no_crash", "message": "m"}, "source": "sweep", )";
  const std::string hash(64, 'a');
  const auto with = [&](const std::string& tail) { return head + tail + "}"; };
  const Reproducer r = parse_reproducer(
      with(R"("backend": "/x/lib.so", "library": {"path": "/x/lib.so", "sha256": ")" + hash + R"(", "bytes": 7})"),
      "t.json");
  ASSERT_TRUE(r.library);
  EXPECT_EQ(r.library->path, "/x/lib.so");
  EXPECT_EQ(r.library->sha256, hash);
  EXPECT_EQ(r.library->bytes, 7);
  EXPECT_FALSE(parse_reproducer(with(R"("backend": "scalar")"), "t.json").library);  // older files have none
  const auto fails_with = [&](const std::string& tail, const std::string& fragment) {
    try {
      (void)parse_reproducer(with(tail), "t.json");
      ADD_FAILURE() << "accepted: " << tail;
    } catch (const ReproError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("t.json: ", 0), 0u) << e.what();
    }
  };
  const std::string ok_hash = R"(", "sha256": ")" + hash + R"(", "bytes": 7})";
  fails_with(R"("backend": "scalar", "library": {"path": "lib.so)" + ok_hash,
             "library.path: 'lib.so' is not an absolute");
  fails_with(R"("backend": "scalar", "library": {"path": "/l.so", "sha256": "ABC", "bytes": 7})",
             "library.sha256: 'ABC' is not 64 lowercase hex digits");
  fails_with(R"("backend": "scalar", "library": {"path": "/l.so", "sha256": ")" + hash + R"(", "bytes": -1})",
             "library.bytes: out of range");
  fails_with(R"("backend": "scalar", "library": {"path": "/l.so", "sha256": ")" + hash + R"("})",
             "library: missing field 'bytes'");
  fails_with(R"("backend": "scalar", "library": {"path": "/l.so", "sha256": ")" + hash + R"(", "bytes": 7, "x": 1})",
             "library.x: unknown field 'x'");
  fails_with(R"("backend": "scalar", "library": "/l.so")", "library: expected an object");
  fails_with(R"("backend": "", "library": {"path": "/l.so)" + ok_hash, "library: a file that names no backend");
}

}  // namespace
}  // namespace konform
