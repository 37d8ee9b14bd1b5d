#include "konform/repro.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <sstream>

#include "konform/case_shape.hpp"
#include "konform/json_number.hpp"
#include "konform/op.hpp"
#include "konform/read_file.hpp"
#include "konform/replay.hpp"
#include "konform/sha256.hpp"

namespace konform {

using nlohmann::json;

namespace {

constexpr int64_t kMaxElements = kMaxCaseElements;

const char* access_name(Access a) { return a == Access::in ? "in" : a == Access::out ? "out" : "inout"; }
const char* match_name(Match m) { return m == Match::exact ? "exact" : "tolerance"; }

// One hex word per element: 8 digits for 4-byte elements, 2 for u8.
std::string hex_words(const Tensor& t) {
  std::string s;
  const int digits = 2 * static_cast<int>(dtype_size(t.dtype));  // a word per element: 2, 4 or 8 hex digits
  s.reserve(static_cast<size_t>(t.elements()) * static_cast<size_t>(digits + 1));
  char word[10];
  for (int64_t k = 0; k < t.elements(); ++k) {
    std::snprintf(word, sizeof word, k == 0 ? "%0*x" : " %0*x", digits, t.bits(k));
    s += word;
  }
  return s;
}

// Reads a reproducer, naming the field of every complaint.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw ReproError(source_ + ": " + where + ": " + what);
  }
  const json& member(const json& obj, const std::string& where, const char* key) const {
    if (!obj.is_object()) fail(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing field '") + key + "'");
    return *it;
  }
  // Refuses a key outside `known`: a typo ("misalgin") would otherwise be
  // ignored and the case replayed without it.
  void only_keys(const json& obj, const std::string& where, std::initializer_list<const char*> known) const {
    for (const auto& [key, v] : obj.items()) {
      bool ok = false;
      for (const char* k : known) ok |= key == k;
      if (!ok) fail(where.empty() ? key : where + "." + key, "unknown field '" + key + "'");
    }
  }
  std::string string(const json& v, const std::string& where) const {
    if (!v.is_string()) fail(where, "expected a string");
    return v.get<std::string>();
  }
  std::string string_field(const json& obj, const std::string& where, const char* key) const {
    return string(member(obj, where, key), where + "." + key);
  }
  double number(const json& v, const std::string& where) const {
    if (const auto n = json_to_number(v)) return *n;
    fail(where, "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\")");
  }
  int64_t integer(const json& v, const std::string& where, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) fail(where, "expected an integer");
    if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(hi)
                               : (v.get<int64_t>() < lo || v.get<int64_t>() > hi))
      fail(where, "out of range " + std::to_string(lo) + " .. " + std::to_string(hi));
    return v.get<int64_t>();
  }

  Tensor tensor(const json& a, const std::string& where, DType dtype, bool needs_data) const {
    const json& shape = member(a, where, "shape");
    if (!shape.is_array() || shape.size() > 8) fail(where + ".shape", "expected an array of at most 8 sizes");
    std::vector<int64_t> dims;
    int64_t count = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
      dims.push_back(integer(shape[k], where + ".shape[" + std::to_string(k) + "]", 0, kMaxElements));
      count = dims.back() == 0 ? 0 : (count > kMaxElements / dims.back() ? kMaxElements + 1 : count * dims.back());
    }
    if (count > kMaxElements) fail(where + ".shape", "more than 2^26 elements");
    Tensor t = Tensor::zeros(dtype, dims);
    const bool has_bits = a.contains("bits"), has_values = a.contains("values");
    if (has_bits && has_values) fail(where, "give bits or values, not both");
    if (!needs_data && (has_bits || has_values))
      fail(where + (has_bits ? ".bits" : ".values"), "an output (access out) has no contents to give: its shape only");
    if (!has_bits && !has_values) {
      if (needs_data) fail(where, "an input needs 'bits' (or 'values')");
      return t;
    }
    if (has_bits) {
      const std::string hex = string(a.at("bits"), where + ".bits");
      int64_t k = 0;
      size_t i = 0;
      while (true) {
        while (i < hex.size() && hex[i] == ' ') ++i;
        if (i == hex.size()) break;
        if (k == count) fail(where + ".bits", "more words than the shape's " + std::to_string(count) + " elements");
        uint32_t word = 0;
        const int digits = 2 * static_cast<int>(dtype_size(dtype));
        for (int d = 0; d < digits; ++d, ++i) {
          const char ch = i < hex.size() ? hex[i] : ' ';
          const int v = ch >= '0' && ch <= '9'   ? ch - '0'
                        : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                        : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                 : -1;
          if (v < 0)
            fail(where + ".bits", "word " + std::to_string(k) + " is not " + std::to_string(digits) + " hex digits");
          word = word << 4 | static_cast<uint32_t>(v);
        }
        if (i < hex.size() && hex[i] != ' ')
          fail(where + ".bits",
               "word " + std::to_string(k) + " is longer than " + std::to_string(digits) + " hex digits");
        std::memcpy(t.bytes.data() + dtype_size(dtype) * k, &word, dtype_size(dtype));
        ++k;
      }
      if (k != count)
        fail(where + ".bits", std::to_string(k) + " words for a shape of " + std::to_string(count) + " elements");
      return t;
    }
    const json& values = a.at("values");
    if (!values.is_array() || static_cast<int64_t>(values.size()) != count)
      fail(where + ".values", "expected an array of " + std::to_string(count) + " numbers");
    for (int64_t k = 0; k < count; ++k) {
      const std::string at = where + ".values[" + std::to_string(k) + "]";
      if (dtype == DType::i32) {
        t.i32()[k] = static_cast<int32_t>(integer(values[k], at, INT32_MIN, INT32_MAX));
      } else if (dtype == DType::u8) {
        t.u8()[k] = static_cast<uint8_t>(integer(values[k], at, 0, 255));
      } else if (dtype == DType::f32) {
        const double v = number(values[k], at);
        if (std::isfinite(v) && std::fabs(v) > 3.4028235677973366e38) fail(at, "beyond the range of f32");
        t.f32()[k] = static_cast<float>(v);
      } else {  // f16, bf16: a value of the dtype exactly, as the bits would give it
        const double v = number(values[k], at);
        if (!std::isnan(v) && round_to(dtype, v) != v)
          fail(at, json_number(v).dump() + " is not a " + std::string(dtype_name(dtype)) + " value (the nearest is " +
                       json_number(round_to(dtype, v)).dump() + "); give its bits");
        const uint16_t h = half_bits(dtype, v);
        std::memcpy(t.bytes.data() + 2 * k, &h, 2);
      }
    }
    return t;
  }

  LibraryFile library(const json& l) const {
    if (l.is_object()) only_keys(l, "library", {"path", "sha256", "bytes"});
    LibraryFile out;
    out.path = string_field(l, "library", "path");
    if (out.path.empty() || out.path.front() != '/') fail("library.path", "'" + out.path + "' is not an absolute path");
    out.sha256 = string_field(l, "library", "sha256");
    if (out.sha256.size() != 64 || out.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
      fail("library.sha256", "'" + out.sha256 + "' is not 64 lowercase hex digits");
    out.bytes = integer(member(l, "library", "bytes"), "library.bytes", 0, INT64_MAX);
    return out;
  }

  Finding finding(const json& f, const std::string& where) const {
    Finding out;
    if (f.is_object())
      only_keys(f, where, {"check", "message", "output", "element", "expected", "got", "error", "limit"});
    out.check = string_field(f, where, "check");
    if (out.check.empty()) fail(where + ".check", "empty");
    out.message = string_field(f, where, "message");
    if (f.contains("output")) out.output = string(f.at("output"), where + ".output");
    if (f.contains("element")) out.element = string(f.at("element"), where + ".element");
    const char* keys[] = {"expected", "got", "error", "limit"};
    int present = 0;
    for (const char* k : keys) present += f.contains(k);
    if (present != 0 && present != 4) fail(where, "give all of expected, got, error and limit, or none");
    if (present == 4) {
      out.has_values = true;
      out.expected = number(f.at("expected"), where + ".expected");
      out.got = number(f.at("got"), where + ".got");
      out.error = number(f.at("error"), where + ".error");
      out.limit = number(f.at("limit"), where + ".limit");
    }
    return out;
  }

 private:
  std::string source_;
};

}  // namespace

json reproducer_to_json(const Reproducer& r) {
  json j;
  j["schema"] = kReproSchema;
  j["op"] = r.op;
  if (const OpSpec* op = find_op(r.op)) {
    j["symbol"] = op->symbol;
    j["dtype"] = dtype_name(op->dtype);
  }
  j["label"] = r.c.label;
  j["source"] = r.source;
  j["backend"] = r.backend;
  if (r.library) j["library"] = {{"path", r.library->path}, {"sha256", r.library->sha256}, {"bytes", r.library->bytes}};
  j["misalign"] = r.misalign;
  json params = json::object();
  for (const auto& [name, v] : r.c.params) params[name] = json_number(v);
  j["params"] = params;
  json args = json::array();
  for (const Arg& a : r.c.args) {
    json ja;
    ja["name"] = a.name;
    ja["access"] = access_name(a.access);
    ja["match"] = match_name(a.match);
    if (!a.alias_of.empty()) ja["alias_of"] = a.alias_of;
    ja["dtype"] = dtype_name(a.value.dtype);
    ja["shape"] = a.value.shape;
    if (a.access != Access::out) ja["bits"] = hex_words(a.value);
    args.push_back(ja);
  }
  j["args"] = args;
  j["finding"] = r.finding ? finding_to_json(*r.finding) : json(nullptr);
  j["provenance"] = r.provenance;
  return j;
}

json finding_to_json(const Finding& f) {
  json j = {{"check", f.check}, {"message", f.message}};
  if (!f.output.empty()) j["output"] = f.output;
  if (!f.element.empty()) j["element"] = f.element;
  if (f.has_values) {
    j["expected"] = json_number(f.expected);
    j["got"] = json_number(f.got);
    j["error"] = json_number(f.error);
    j["limit"] = json_number(f.limit);
  }
  return j;
}

Finding finding_from_json(const json& j, const std::string& source) { return Reader(source).finding(j, "finding"); }

Reproducer reproducer_from_json(const json& j, const std::string& source) {
  const Reader in(source);
  if (!j.is_object()) in.fail("the file", "expected a JSON object");
  in.only_keys(j, "",
               {"schema", "op", "symbol", "dtype", "label", "source", "backend", "library", "misalign", "params",
                "args", "finding", "provenance"});
  const std::string schema = in.string_field(j, "the file", "schema");
  if (schema != kReproSchema) in.fail("schema", "'" + schema + "' is not " + kReproSchema);
  Reproducer r;
  r.op = in.string_field(j, "the file", "op");
  const OpSpec* op = find_op(r.op);
  if (op == nullptr) in.fail("op", "no op '" + r.op + "' in this konform's catalog (konform list shows them)");
  r.op_note = former_name_note(r.op, *op);
  r.op = op->name;
  if (j.contains("symbol") && in.string(j.at("symbol"), "symbol") != op->symbol)
    in.fail("symbol", "'" + j.at("symbol").get<std::string>() + "' is not " + r.op + "'s " + op->symbol);
  if (j.contains("dtype") && in.string(j.at("dtype"), "dtype") != dtype_name(op->dtype))
    in.fail("dtype",
            "'" + j.at("dtype").get<std::string>() + "' is not " + r.op + "'s " + std::string(dtype_name(op->dtype)));
  if (j.contains("label")) r.c.label = in.string(j.at("label"), "label");
  if (j.contains("source")) {
    r.source = in.string(j.at("source"), "source");
    if (r.source != "fuzz" && r.source != "sweep" && r.source != "property" && r.source != "fixture")
      in.fail("source", "'" + r.source + "' is not fuzz, sweep, property or fixture");
  }
  if (j.contains("backend")) r.backend = in.string(j.at("backend"), "backend");
  if (j.contains("library")) {
    if (r.backend.empty()) in.fail("library", "a file that names no backend has no library to record");
    r.library = in.library(j.at("library"));
  }
  if (j.contains("misalign")) {
    r.misalign = static_cast<size_t>(in.integer(j.at("misalign"), "misalign", 0, 60));
    if (r.misalign % 4 != 0) in.fail("misalign", "must be a multiple of 4 (elements stay aligned)");
  }
  const json& params = in.member(j, "the file", "params");
  if (!params.is_object()) in.fail("params", "expected an object of numbers");
  for (const auto& [name, v] : params.items()) r.c.params[name] = in.number(v, "params." + name);
  if (const auto [name, what] = check_case_params(*op, r.c); !name.empty()) in.fail("params." + name, what);
  const json& args = in.member(j, "the file", "args");
  if (!args.is_array() || args.empty()) in.fail("args", "expected a non-empty array of arguments");
  int64_t total = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string where = "args[" + std::to_string(i) + "]";
    const json& a = args[i];
    if (a.is_object())
      in.only_keys(a, where, {"name", "access", "match", "alias_of", "dtype", "shape", "bits", "values"});
    Arg arg;
    arg.name = in.string_field(a, where, "name");
    const std::string access = in.string_field(a, where, "access");
    if (access == "in") arg.access = Access::in;
    else if (access == "out") arg.access = Access::out;
    else if (access == "inout") arg.access = Access::inout;
    else in.fail(where + ".access", "'" + access + "' is not in, out or inout");
    const std::string match = a.contains("match") ? in.string(a.at("match"), where + ".match") : "tolerance";
    if (match == "exact") arg.match = Match::exact;
    else if (match != "tolerance") in.fail(where + ".match", "'" + match + "' is not tolerance or exact");
    if (a.contains("alias_of")) arg.alias_of = in.string(a.at("alias_of"), where + ".alias_of");
    DType dtype;
    if (!parse_dtype(in.string_field(a, where, "dtype"), &dtype)) in.fail(where + ".dtype", "not a known dtype");
    arg.value = in.tensor(a, where, dtype, arg.access != Access::out);
    total += arg.value.elements();
    if (total > kMaxElements) in.fail(where, "the arguments hold more than 2^26 elements together");
    r.c.args.push_back(std::move(arg));
  }
  const std::string shape = check_case_shape(*op, r.c);
  if (!shape.empty()) in.fail("args", shape);
  if (j.contains("finding") && !j.at("finding").is_null()) r.finding = in.finding(j.at("finding"), "finding");
  if (r.source != "fixture" && !r.finding) in.fail("finding", "a reproducer from " + r.source + " needs its finding");
  if (j.contains("provenance")) {
    if (!j.at("provenance").is_object()) in.fail("provenance", "expected an object");
    r.provenance = j.at("provenance");
  }
  return r;
}

Reproducer parse_reproducer(const std::string& text, const std::string& source) {
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) throw ReproError(source + ": not valid JSON");
  return reproducer_from_json(j, source);
}

Reproducer read_reproducer_file(const std::string& path) { return parse_reproducer(read_file(path), path); }

LibraryFile library_file(const std::string& path) {
  static std::map<std::string, LibraryFile> hashed;
  LibraryFile f;
  f.path = absolute_path(path);
  if (const auto known = hashed.find(f.path); known != hashed.end()) return known->second;
  const std::string bytes = read_file(f.path);
  f.sha256 = sha256_hex(bytes);
  f.bytes = static_cast<int64_t>(bytes.size());
  return hashed[f.path] = f;
}

std::string write_reproducer(const Reproducer& r, const std::string& dir) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create '" + dir + "': " + std::strerror(errno));
  const std::string text = reproducer_to_json(r).dump(1, ' ', true, json::error_handler_t::replace) + "\n";
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char ch : text) h = (h ^ ch) * 0x100000001B3ull;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(h));
  std::string check = r.finding ? r.finding->check : "fixture";
  for (char& ch : check)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  const std::string path = dir + "/" + r.op + "-" + check + "-" + std::string(hash, 12) + ".json";
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();  // a full disk shows when the buffer goes out, so check after closing
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  return path;
}

}  // namespace konform
