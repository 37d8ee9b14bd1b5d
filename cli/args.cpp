#include "args.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "konform/isolate.hpp"
#include "konform/op.hpp"

namespace konform::cli {

namespace {

// Each command's part of the usage text, in the order `konform --help` shows them.
const std::vector<std::pair<std::string, std::string>>& usage_sections() {
  static const std::vector<std::pair<std::string, std::string>> sections = {
      {"list", R"(  konform list [PATTERN] [--family F] [--backend B] [--format text|json] [--tolerances]
      The ops of the catalog: C symbol, family, parameters, domain, tolerance and
      properties. PATTERN: only ops whose name contains it (case ignored);
      --family F: only that family (elementwise, tensor, norm, ...); --backend B:
      only the ops B exports; --format json: one JSON array; --tolerances: the
      built-in tolerance table of those ops, the format --tolerances FILE reads.
  konform --version
      The version, the git revision and the catalog's size and fingerprint.
)"},
      {"render", R"(  konform render REPORT.json [--junit FILE] [--html FILE] [--sarif FILE]
      Renders a saved JSON report as JUnit XML, HTML and/or SARIF 2.1.0 (each FILE a
      different path).
)"},
      {"repro", R"(  konform repro FILE [--backend B ...] [--op NAME] [--tolerances FILE] [--timeout S]
      Replays a reproducer (from a fuzzer, check --repro-dir, or fixtures/) on the
      backend it names or each --backend; with --op NAME, FILE is a fuzz target's
      raw input (crash-*, timeout-*, a corpus file) that decodes to op NAME in NAME's
      target. --tolerances FILE: judge with that table, as the check that found it
      did (its replay line says so). Prints expected, got, the error and its limit;
      exit 0 when it conforms, 1 when it still fails, 3 when a backend cannot run
      here (NOT RUN, with its reason).
)"},
      {"diff", R"(  konform diff OLD.json NEW.json [--report FILE] [--markdown FILE] [--growth X] [--share X]
      Compares two reports per op and backend: new failures, checks failing anew,
      ops newly unsupported, and error growth (the worst error, as a share of the
      limit, above X times the old share and above the --share of the limit;
      defaults 1.5 and 0.5). Exit 1 on a regression, 0 otherwise. --report FILE:
      the changes as JSON; --markdown FILE: a summary for a pull-request comment.
)"},
      {"check", R"(  konform check --backend B [--backend B ...] [options]
      Runs every op each backend exports against the oracle.
      B: scalar | simd | simd:TARGET | simd:all | cuda | PATH.so | PATH.so:TARGET | PATH.so:all
         | cuda:device | PATH.so:device
      (cuda: libtl_cuda, when this konform was built with nvcc; :device checks the
      library's device-pointer twins, tl_*_dev of tinyllm/cuda/*.h.) A backend whose
      library's tl_backend_unavailable gives a reason (tinyllm/backend.h; cuda
      without a GPU) runs nothing: each op is NOT RUN with that reason.
    --op NAME          only this op (repeatable, or comma-separated)
    --family F         also every op of family F (repeatable, or comma-separated)
    --dtype D          also every op of dtype D: f32, f16, bf16 (repeatable, or comma-separated)
    --seed N           seed of the cases and properties, 0 to 2^64-1 (default 1)
    --cases N          sweep cases per op, at most 1e9 (default 300)
    --case N           replay case N alone (needs exactly one --op; no --cases, no --property)
    --property NAME    only this property of a chosen op (repeatable); runs no sweep;
                       --no-properties for none
    --property-runs N  RapidCheck runs per property, 1 to 1e6 (default 100); the strict
                       matmul and convolution properties run a quarter of N
    --report FILE      write the JSON report (schema: reports/report.schema.json)
    --junit FILE       write JUnit XML (one suite per backend, one test per op and check)
    --html FILE        write a self-contained HTML page with plots
    --sarif FILE       write SARIF 2.1.0 (one result per finding), for code-scanning UIs
    --baseline FILE    diff the run against this older report (as konform diff); a
                       regression makes the run exit 1
    --tolerances FILE  use this tolerance table instead of the built-in one
    --repro-dir DIR    write a reproducer file per finding (sweep, property, crash) into DIR
    --timeout S        the longest wait, above 0 and at most 1e6, decimal (default 600);
                       without it each case's deadline comes from its size (60 s plus
                       1 s per 100k elements) and each property's is 120 s; given, it is
                       every case's and property's deadline
    --jobs N           ops checked at once, each in its own worker process, 1 to 256
                       (default: the CPUs, at most 4; 1 under --verbose); results print
                       in the same order whatever N
    --verbose          one line per case, and a FAIL line after each failing case
    --quiet            print only FAIL, MISTRUSTED and NOT RUN lines with their findings, the summary
                       line and the --baseline comparison: no progress, PASS, SKIP or
                       file lines (the exit status is the same)
    --flush-subnormals an element that differs only because a subnormal input or result
                       was flushed to zero (FTZ/DAZ) passes, counted (default: strict)
    --profile P        default (the spec's limits) or strict (also fail on pairwise-accurate
                       sums and batch invariance beyond the spec); strict checks are measured
                       and reported either way (docs/tolerances.md#profiles)
    --exhaustive       case 0 of the f16 and bf16 Add, Sub, Mul and Div: every pattern of a
                       against 512 values of b (256 exponents, both signs), not 32: 2^25
                       results per op, minutes on every backend (the unary half ops are
                       exhaustive in every run)
    --fail-fast        stop checking an op at its first failure (a case, a property, a crash
                       or a hang; under --profile strict a strict failure too): its later
                       cases and properties are not run, and the report says so
    Options other than --backend, --op and --property may be given once; output
    files are opened, and DIR created, before anything runs.
)"},
  };
  return sections;
}

}  // namespace

std::string usage(const std::string& command) {
  std::string text = "usage:\n";
  for (const auto& [name, section] : usage_sections())
    if (command.empty() || command == name) text += section;
  text +=
      "exit status: 0 everything supported conforms, 1 a finding or a result MISTRUSTED (data that\n"
      "  could not have caught a wrong kernel), 2 bad usage or unreadable input, 3 no finding but\n"
      "  something asked for was not run (its backend cannot run here)\n";
  return text;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto lower = [](std::string t) {
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  const std::string w = lower(word);
  std::string best;
  size_t best_distance = std::max<size_t>(2, w.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::string c = lower(candidate);
    // Levenshtein distance, one row at a time.
    std::vector<size_t> row(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= w.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= c.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (w[i - 1] == c[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    if (row[c.size()] < best_distance) best_distance = row[c.size()], best = candidate;
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

UsageError unknown_option(const std::string& command, const std::string& flag) {
  std::vector<std::string> options;
  const std::string text = usage(command);
  for (size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    size_t end = at + 2;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) ++end;
    if (end > at + 2) options.push_back(text.substr(at, end - at));
  }
  return UsageError("unknown option '" + flag + "'" + did_you_mean(flag, options));
}

UsageError unknown_op(const std::string& name) {
  std::vector<std::string> names;
  for (const OpSpec& op : catalog()) names.push_back(op.name);
  return UsageError("unknown op '" + name + "'" + did_you_mean(name, names) + " (konform list shows them all)");
}

bool ArgReader::next() { return ++i_ < args_.size(); }

std::string ArgReader::value() {
  const std::string& flag = args_[i_];
  if (i_ + 1 >= args_.size()) throw UsageError(flag + " needs a value");
  const std::string& v = args_[i_ + 1];
  if (v.rfind("--", 0) == 0) throw UsageError(flag + " needs a value, got the option '" + v + "'");
  ++i_;
  return v;
}

void ArgReader::once() {
  if (!seen_.insert(args_[i_]).second) throw UsageError(args_[i_] + " is given twice (" + command_ + " takes it once)");
}

namespace {

// Plain decimal digits: no sign, no spaces, no hex, not empty.
bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  return true;
}

}  // namespace

// The CPUs this process may run on (its affinity mask), 1 if unknown.
int usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

int64_t parse_int(const std::string& flag, const std::string& value, int64_t min, int64_t max) {
  const bool negative = value.size() > 1 && value[0] == '-' && all_digits(value.substr(1));
  if (!all_digits(value) && !negative) throw UsageError(flag + ": '" + value + "' is not an integer");
  if (negative) throw UsageError(flag + ": " + value + " is below the minimum " + std::to_string(min));
  errno = 0;
  const unsigned long long v = std::strtoull(value.c_str(), nullptr, 10);
  if (errno == ERANGE || v > static_cast<unsigned long long>(max))
    throw UsageError(flag + ": " + value + " is above the maximum " + std::to_string(max));
  if (static_cast<int64_t>(v) < min)
    throw UsageError(flag + ": " + value + " is below the minimum " + std::to_string(min));
  return static_cast<int64_t>(v);
}

uint64_t parse_uint64(const std::string& flag, const std::string& value) {
  if (!all_digits(value)) throw UsageError(flag + ": '" + value + "' is not an integer from 0 to 2^64-1");
  errno = 0;
  const unsigned long long v = std::strtoull(value.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError(flag + ": " + value + " is above the maximum 18446744073709551615");
  return v;
}

double parse_seconds(const std::string& flag, const std::string& value) {
  const size_t dot = value.find('.');
  const std::string whole = value.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : value.substr(dot + 1);
  const bool decimal = (all_digits(whole) && (dot == std::string::npos || fraction.empty() || all_digits(fraction))) ||
                       (whole.empty() && all_digits(fraction));
  if (!decimal) throw UsageError(flag + ": '" + value + "' is not a decimal number of seconds");
  const double s = std::strtod(value.c_str(), nullptr);
  if (!(s > 0)) throw UsageError(flag + ": " + value + " is not above 0 seconds");
  if (!(s <= kMaxTimeoutSeconds))
    throw UsageError(flag + ": " + value + " is above the maximum of " +
                     std::to_string(static_cast<int64_t>(kMaxTimeoutSeconds)) + " seconds");
  return s;
}

void add_name(const std::string& flag, const std::string& name, std::vector<std::string>* list) {
  if (name.empty()) throw UsageError(flag + ": empty name");
  for (const auto& n : *list)
    if (n == name) throw UsageError(flag + ": '" + name + "' is given twice");
  list->push_back(name);
}

void check_family(const std::string& family) {
  std::vector<std::string> families;
  for (const OpSpec& op : catalog())
    if (std::find(families.begin(), families.end(), op.group) == families.end()) families.push_back(op.group);
  if (std::find(families.begin(), families.end(), family) != families.end()) return;
  std::string known;
  for (const auto& f : families) known += (known.empty() ? "" : ", ") + f;
  throw UsageError("unknown family '" + family + "'" + did_you_mean(family, families) + "; the families: " + known);
}

void check_dtype(const std::string& dtype) {
  std::vector<std::string> dtypes;
  for (const OpSpec& op : catalog())
    if (std::find(dtypes.begin(), dtypes.end(), dtype_name(op.dtype)) == dtypes.end())
      dtypes.emplace_back(dtype_name(op.dtype));
  if (std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end()) return;
  std::string known;
  for (const auto& d : dtypes) known += (known.empty() ? "" : ", ") + d;
  throw UsageError("no op has dtype '" + dtype + "'" + did_you_mean(dtype, dtypes) + "; the ops' dtypes: " + known);
}

void warn_former_name(const std::string& note) {
  if (!note.empty()) std::fprintf(stderr, "konform: warning: %s\n", note.c_str());
}

std::string current_op_name(const std::string& name) {
  const OpSpec* op = find_op(name);
  if (op == nullptr) return name;  // refused, with the catalog's names, where the ops are chosen
  warn_former_name(former_name_note(name, *op));
  return op->name;
}

void add_names(const std::string& flag, const std::string& value, std::vector<std::string>* list) {
  size_t start = 0;
  for (;;) {
    const size_t comma = value.find(',', start);
    add_name(flag, value.substr(start, comma == std::string::npos ? std::string::npos : comma - start), list);
    if (comma == std::string::npos) return;
    start = comma + 1;
  }
}

void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& paths) {
  // Compared as absolute, normalized paths, links resolved where they exist.
  auto key = [](const std::string& p) {
    std::error_code ec;
    const auto k = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
    return ec ? std::filesystem::path(p).lexically_normal().string() : k.string();
  };
  for (size_t i = 0; i < paths.size(); ++i)
    for (size_t j = i + 1; j < paths.size(); ++j)
      if (!paths[i].second.empty() && !paths[j].second.empty() && key(paths[i].second) == key(paths[j].second))
        throw UsageError(paths[i].first + " and " + paths[j].first + " name the same file '" + paths[j].second + "'");
}

CheckArgs parse_check(const std::vector<std::string>& args) {
  CheckArgs a;
  CheckOptions& o = a.check;
  ArgReader in("check", args);
  bool cases_given = false, runs_given = false, jobs_given = false;
  std::vector<std::string> families, dtypes;
  while (in.next()) {
    const std::string flag = in.arg();
    if (flag == "--backend") add_name(flag, in.value(), &a.backends);
    else if (flag == "--op") add_names(flag, in.value(), &a.ops);
    else if (flag == "--family") add_names(flag, in.value(), &families);
    else if (flag == "--dtype") add_names(flag, in.value(), &dtypes);
    else if (flag == "--property") add_names(flag, in.value(), &o.properties);
    else if (flag == "--seed") o.sweep.seed = parse_uint64(flag, in.single_value());
    else if (flag == "--cases") o.sweep.cases = parse_int(flag, in.single_value(), 0, kMaxCases), cases_given = true;
    else if (flag == "--case") o.sweep.only_case = parse_int(flag, in.single_value(), 0, kMaxCases - 1);
    else if (flag == "--property-runs")
      o.property_runs = parse_int(flag, in.single_value(), 1, kMaxPropertyRuns), runs_given = true;
    else if (flag == "--no-properties") in.once(), o.no_properties = true;
    else if (flag == "--report") a.report = in.single_value();
    else if (flag == "--junit") a.junit = in.single_value();
    else if (flag == "--html") a.html = in.single_value();
    else if (flag == "--sarif") a.sarif = in.single_value();
    else if (flag == "--baseline") a.baseline = in.single_value();
    else if (flag == "--tolerances") o.sweep.tolerances_file = in.single_value();
    else if (flag == "--repro-dir") o.repro_dir = in.single_value();
    else if (flag == "--timeout") o.timeout_s = parse_seconds(flag, in.single_value()), o.timeout_given = true;
    else if (flag == "--jobs") a.jobs = static_cast<int>(parse_int(flag, in.single_value(), 1, 256)), jobs_given = true;
    else if (flag == "--verbose") in.once(), o.verbose = true;
    else if (flag == "--quiet") in.once(), a.quiet = true;
    else if (flag == "--flush-subnormals") in.once(), o.sweep.flush_subnormals = true;
    else if (flag == "--exhaustive") in.once(), o.exhaustive = true;
    else if (flag == "--fail-fast") in.once(), o.sweep.fail_fast = true;
    else if (flag == "--profile") o.profile = in.single_value();
    else throw unknown_option("check", flag);
  }
  if (a.backends.empty()) throw UsageError("check needs at least one --backend");
  std::vector<std::string> ops;  // former names replaced; then 'add,elementwise_add' is one op given twice
  for (const auto& name : a.ops) add_name("--op", current_op_name(name), &ops);
  for (const auto& family : families) {
    check_family(family);
    for (const OpSpec& op : catalog())  // an op also given by --op is chosen once
      if (op.group == family && std::find(ops.begin(), ops.end(), op.name) == ops.end()) ops.push_back(op.name);
  }
  for (const auto& dtype : dtypes) {
    check_dtype(dtype);
    for (const OpSpec& op : catalog())
      if (dtype_name(op.dtype) == dtype && std::find(ops.begin(), ops.end(), op.name) == ops.end())
        ops.push_back(op.name);
  }
  a.ops = std::move(ops);
  if (o.profile != "default" && o.profile != "strict")
    throw UsageError("--profile '" + o.profile + "' is not default or strict");
  o.sweep.strict_counts = o.profile == "strict";
  if (o.sweep.only_case >= 0 && a.ops.size() != 1) throw UsageError("--case needs exactly one --op");
  if (o.sweep.only_case >= 0 && !o.properties.empty())
    throw UsageError("--case replays a sweep case and --property runs no sweep: give one or the other");
  if (!jobs_given) a.jobs = o.verbose ? 1 : std::clamp(usable_cpus(), 1, 4);  // --verbose: lines in case order
  if (o.sweep.only_case >= 0 && cases_given) throw UsageError("--case replays one case: --cases does not apply");
  if (!o.properties.empty() && cases_given) throw UsageError("--property runs no sweep: --cases does not apply");
  if (o.no_properties && !o.properties.empty())
    throw UsageError("--property and --no-properties contradict each other");
  if (a.quiet && o.verbose) throw UsageError("--quiet and --verbose contradict each other");
  if (runs_given && (o.no_properties || o.sweep.only_case >= 0))
    throw UsageError("--property-runs does not apply: " + std::string(o.no_properties ? "--no-properties" : "--case") +
                     " runs no property");
  if (o.sweep.cases == 0 && o.no_properties) throw UsageError("--cases 0 with --no-properties checks nothing");
  check_distinct_paths({{"--report", a.report},
                        {"--junit", a.junit},
                        {"--html", a.html},
                        {"--sarif", a.sarif},
                        {"--baseline", a.baseline},
                        {"--tolerances", o.sweep.tolerances_file},
                        {"--repro-dir", o.repro_dir}});
  return a;
}

}  // namespace konform::cli
