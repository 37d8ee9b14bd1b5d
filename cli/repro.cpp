#include "repro.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <utility>

#include "args.hpp"
#include "files.hpp"
#include "op_fuzzer.hpp"
#include "konform/backend.hpp"
#include "konform/fuzz_input.hpp"
#include "konform/isolate.hpp"
#include "konform/judge.hpp"
#include "konform/replay.hpp"
#include "konform/repro.hpp"
#include "konform/tolerance.hpp"

namespace konform::cli {

namespace {

struct ReproArgs {
  std::string file, op, tolerances;
  std::vector<std::string> backends;
  double timeout_s = 60;
};

ReproArgs parse(const std::vector<std::string>& args) {
  ReproArgs a;
  ArgReader in("repro", args);
  while (in.next()) {
    const std::string flag = in.arg();
    if (flag == "--backend") add_name(flag, in.value(), &a.backends);
    else if (flag == "--op") {
      a.op = current_op_name(in.single_value());
      if (a.op.empty()) throw UsageError("--op: empty name");
    } else if (flag == "--tolerances") a.tolerances = in.single_value();
    else if (flag == "--timeout") a.timeout_s = parse_seconds(flag, in.single_value());
    else if (flag.rfind("--", 0) == 0) throw unknown_option("repro", flag);
    else if (a.file.empty()) a.file = flag;
    else throw UsageError("repro takes one file, got '" + a.file + "' and '" + flag + "'");
  }
  if (a.file.empty()) throw UsageError("repro needs a reproducer file (or a raw fuzz input with --op)");
  return a;
}

// The fuzz target whose ops include op: its family's ops, in the order
// byte 0 of an input picks among them.
std::pair<std::string, std::vector<const OpSpec*>> family_of(const OpSpec& op) {
  for (const std::string& family : fuzz::family_names()) {
    std::vector<const OpSpec*> ops = fuzz::family_ops(family);
    for (const OpSpec* o : ops)
      if (o == &op) return {family, std::move(ops)};
  }
  throw std::logic_error("op " + op.name + " is in no fuzz target's family");
}

// A raw fuzz input, decoded exactly as the fuzz target of op_name's family
// decodes it; the input must pick op_name there.
Reproducer from_raw_input(const std::string& path, const std::string& op_name) {
  const OpSpec* op = find_op(op_name);
  if (op == nullptr) throw unknown_op(op_name);
  const std::string text = read_file(path);
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_object() && json.contains("schema"))
    throw UsageError("'" + path + "' is a konform JSON file (\"schema\": " + json["schema"].dump() +
                     "), not a raw fuzz input: drop --op to replay a reproducer");
  const auto [family, ops] = family_of(*op);
  // A target of one op takes any bytes as that op's: a corpus file of another
  // target (fuzz/corpus/FAMILY/...) is caught by its directory.
  const std::string dir = std::filesystem::absolute(path).parent_path().filename().string();
  for (const std::string& other : fuzz::family_names())
    if (other == dir && other != family)
      throw UsageError("'" + path + "' is in the corpus of fuzz target konform_fuzz_" + other + ", and " + op->name +
                       " is fuzzed by konform_fuzz_" + family + ": give --op one of " + other + "'s ops");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  FuzzCase fc = decode_fuzz_input(ops, bytes.data(), bytes.size());
  if (fc.op != op)
    throw UsageError("'" + path + "' is an input of op " + fc.op->name + " in fuzz target konform_fuzz_" + family +
                     ", not of " + op->name + " (its first byte picks op " +
                     std::to_string(bytes.empty() ? 0 : bytes[0] % ops.size()) + " of the target's " +
                     std::to_string(ops.size()) + "): use --op " + fc.op->name);
  Reproducer r;
  r.op = op->name;
  r.c = std::move(fc.c);
  r.misalign = fc.misalign;
  r.source = "fuzz";
  r.provenance = {{"input", path}, {"index", fc.index}, {"fuzz_target", "konform_fuzz_" + family}};
  return r;
}

void print_value_line(const Finding& f) {
  if (f.has_values)
    std::printf("      %s%s: expected %.9g, got %.9g, error %.3g u, limit %.3g u\n", f.output.c_str(),
                f.element.c_str(), f.expected, f.got, f.error, f.limit);
  else if (!f.output.empty())
    std::printf("      at '%s'%s%s\n", f.output.c_str(), f.element.empty() ? "" : " ", f.element.c_str());
}

// Runs the case on one backend in a child process: a crash or a hang is a
// finding like any other. Returns the exit status's share: 0, 1, or
// kExitNotRun when the backend cannot run here (nothing is called).
int replay_on(const Reproducer& r, const OpSpec& op, const Backend& b, const Tolerance* tol, double timeout_s) {
  if (!b.load_failure.empty()) {
    std::printf("FAIL  %s on %s\n      library_loads: %s %s\n", op.name.c_str(), b.name.c_str(), b.library.c_str(),
                b.load_failure.c_str());
    return 1;
  }
  void* fn = b.symbol(op.symbol);
  if (fn != nullptr && !b.unavailable.empty()) {
    std::printf("NOT RUN  %s on %s: %s\n", op.name.c_str(), b.name.c_str(), b.unavailable.c_str());
    return kExitNotRun;
  }
  if (fn == nullptr) {
    std::printf("SKIP  %s on %s: unsupported, the backend does not export %s\n", op.name.c_str(), b.name.c_str(),
                op.symbol.c_str());
    return 0;
  }
  const ChildOutcome o = run_isolated(
      [&](ChildChannel&) {
        const CaseVerdict v = judge_case(b, op, fn, r.c, tol, CallOptions{r.misalign, true});
        nlohmann::json j = {{"findings", nlohmann::json::array()}, {"refused", v.refused}};
        for (const Finding& f : v.findings) j["findings"].push_back(finding_to_json(f));
        j["worst"] = v.worst ? finding_to_json(*v.worst) : nlohmann::json(nullptr);
        return j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
      },
      timeout_s);
  if (o.status == ChildOutcome::harness_error)
    throw std::runtime_error("the case does not fit " + op.name + ": " + o.detail);
  if (o.status != ChildOutcome::ok) {
    const bool hang = o.status == ChildOutcome::timeout;
    std::printf("FAIL  %s on %s: %s: %s %s\n", op.name.c_str(), b.name.c_str(), hang ? "no_hang" : "no_crash",
                hang ? "hung:" : "crashed:", o.detail.c_str());
    return 1;
  }
  // Once more with each input's end against unmapped memory, in its own child
  // (as check does): a crash there is a read past the end of an input.
  const ChildOutcome fenced = run_isolated(
      [&](ChildChannel&) {
        call_fenced(b, op, fn, r.c);
        return std::string();
      },
      timeout_s);
  if (fenced.status == ChildOutcome::crashed || fenced.status == ChildOutcome::timeout) {
    std::printf("FAIL  %s on %s: no_read_out_of_bounds: %s, called with each input's end against unmapped memory\n",
                op.name.c_str(), b.name.c_str(),
                fenced.status == ChildOutcome::timeout ? "hung" : ("crashed: " + fenced.detail).c_str());
    return 1;
  }
  const auto j = nlohmann::json::parse(o.payload);
  if (j.at("findings").empty()) {
    std::printf("PASS  %s on %s: conforms%s", op.name.c_str(), b.name.c_str(),
                j.at("refused").get<bool>() ? " (refused its arguments, as the oracle does)" : "");
    if (!j.at("worst").is_null()) {
      const Finding w = finding_from_json(j.at("worst"), "child");
      if (w.has_values)
        std::printf(" (largest error %.3g u of %.3g at %s%s)", w.error, w.limit, w.output.c_str(), w.element.c_str());
    }
    std::printf("\n");
    return 0;
  }
  for (const auto& jf : j.at("findings")) {
    const Finding f = finding_from_json(jf, "child");
    std::printf("FAIL  %s on %s: %s: %s\n", op.name.c_str(), b.name.c_str(), f.check.c_str(), f.message.c_str());
    print_value_line(f);
  }
  return 1;
}

// Before a reproducer replays on the backend it names: whether that
// backend's library is still the file it was found on. A changed file, or a
// reproducer that records no hash, is one warning; the replay goes on.
void check_library(const Reproducer& r, const Backend& b, const std::string& file) {
  std::fflush(stdout);  // after the header it follows, in a log of both
  if (!r.library) {
    std::fprintf(stderr,
                 "konform: warning: %s records no hash of its backend's library: cannot verify that %s is the "
                 "library it was found on\n",
                 file.c_str(), absolute_path(b.library).c_str());
    return;
  }
  const LibraryFile now = library_file(b.library);
  if (now.sha256 == r.library->sha256 && now.bytes == r.library->bytes) return;
  std::fprintf(stderr,
               "konform: warning: the library of backend %s has changed since %s was written: recorded %s "
               "sha256 %s (%lld bytes), now %s sha256 %s (%lld bytes)\n",
               r.backend.c_str(), file.c_str(), r.library->path.c_str(), r.library->sha256.c_str(),
               static_cast<long long>(r.library->bytes), now.path.c_str(), now.sha256.c_str(),
               static_cast<long long>(now.bytes));
}

}  // namespace

int repro(const std::vector<std::string>& args) {
  const ReproArgs a = parse(args);
  // A malformed file is a ReproError: exit 2 with its message, no usage text.
  const Reproducer r = a.op.empty() ? parse_reproducer(read_file(a.file), a.file) : from_raw_input(a.file, a.op);
  warn_former_name(r.op_note);
  const OpSpec& op = *find_op(r.op);
  // The table to judge by: --tolerances FILE (as the check that found it used), else the built-in one.
  std::unique_ptr<ToleranceTable> custom;
  if (!a.tolerances.empty())
    custom = std::make_unique<ToleranceTable>(ToleranceTable::parse(read_file(a.tolerances), a.tolerances));
  if (custom)
    for (const std::string& note : custom->notes()) warn_former_name(note);
  const ToleranceTable& table = custom ? *custom : ToleranceTable::builtin();
  const Tolerance* tol = table.find(op.name, op.dtype);
  if (tol == nullptr && needs_tolerance(r.c))
    throw TableError("the tolerance table " + table.source() + " has no entry for " + op.name + " " +
                     std::string(dtype_name(op.dtype)));
  std::vector<std::string> specs = a.backends;
  const bool own_backend = specs.empty();  // the backend it was found on: its library is checked
  if (own_backend) {
    if (r.backend.empty()) throw UsageError("'" + a.file + "' names no backend (a fixture): give --backend");
    specs.push_back(r.backend);
  }
  std::printf("konform repro: %s\n  %s (%s), %s%s%s\n  case: %s, misalign %zu\n", a.file.c_str(), op.name.c_str(),
              op.symbol.c_str(), r.source == "fixture" ? "a fixture" : ("found by " + r.source).c_str(),
              r.backend.empty() ? "" : (" on " + r.backend).c_str(), r.finding ? (": " + r.finding->check).c_str() : "",
              r.c.label.c_str(), r.misalign);
  if (r.finding) {
    std::printf("  recorded: %s\n", r.finding->message.c_str());
    print_value_line(*r.finding);
    if (r.finding->has_values && tol != nullptr && r.finding->limit != case_limit(op, r.c, tol))
      std::printf("  note: recorded with a limit of %.3g u; this replay judges with %.3g u from %s%s\n",
                  r.finding->limit, case_limit(op, r.c, tol), table.source().c_str(),
                  custom ? "" : " (give the check's --tolerances FILE to judge as it did)");
  }
  bool failed = false, not_run = false;
  for (const std::string& spec : specs)
    for (const Backend& b : resolve_backends(spec)) {
      if (own_backend) check_library(r, b, a.file);
      const int share = replay_on(r, op, b, tol, a.timeout_s);
      failed |= share == 1;
      not_run |= share == kExitNotRun;
    }
  return failed ? 1 : not_run ? kExitNotRun : 0;
}

}  // namespace konform::cli
