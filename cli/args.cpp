#include "args.hpp"

#include <cerrno>
#include <cstdlib>

namespace konform::cli {

const char* usage() {
  return R"(usage:
  konform list
      Every op in the catalog: its C symbol, parameters, tolerance and properties.
  konform render REPORT.json [--junit FILE] [--html FILE]
      Renders a saved JSON report as JUnit XML and/or HTML.
  konform repro FILE [--backend B ...] [--op NAME] [--timeout S]
      Replays a reproducer (from a fuzzer, check --repro-dir, or fixtures/) on the
      backend it names or each --backend; with --op NAME, FILE is a fuzz target's
      raw input (crash-*, timeout-*, a corpus file). Prints expected, got, the
      error and its limit; exit 0 when it conforms, 1 when it still fails.
  konform check --backend B [--backend B ...] [options]
      Runs every op each backend exports against the oracle.
      B: scalar | simd | simd:TARGET | simd:all | PATH.so | PATH.so:TARGET | PATH.so:all
    --op NAME          only this op (repeatable, or comma-separated)
    --seed N           seed of the cases and properties (default 1)
    --cases N          sweep cases per op (default 300)
    --case N           replay case N alone (needs exactly one --op)
    --property NAME    only this property (repeatable); --no-properties for none
    --property-runs N  RapidCheck runs per property (default 100)
    --report FILE      write the JSON report (schema: reports/report.schema.json)
    --junit FILE       write JUnit XML (one suite per backend, one test per op and check)
    --html FILE        write a self-contained HTML page with plots
    --tolerances FILE  use this tolerance table instead of the built-in one
    --repro-dir DIR    write a reproducer file per finding (sweep, property, crash) into DIR
    --timeout S        seconds per op and backend before it counts as a hang (default 600)
    --verbose          one line per case
exit status: 0 everything supported conforms, 1 a finding, 2 bad usage or unreadable input
)";
}

namespace {

int64_t parse_int(const std::string& flag, const std::string& value, int64_t min) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0)
    throw UsageError(flag + ": '" + value + "' is not an integer");
  if (v < min) throw UsageError(flag + ": " + value + " is below the minimum " + std::to_string(min));
  return v;
}

void split_into(const std::string& value, std::vector<std::string>* out) {
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = value.find(',', start);
    const std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out->push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

}  // namespace

CheckArgs parse_check(const std::vector<std::string>& args) {
  CheckArgs a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
      return args[++i];
    };
    if (flag == "--backend") a.backends.push_back(value());
    else if (flag == "--op") split_into(value(), &a.ops);
    else if (flag == "--property") split_into(value(), &a.properties);
    else if (flag == "--seed") a.seed = static_cast<uint64_t>(parse_int(flag, value(), 0));
    else if (flag == "--cases") a.cases = parse_int(flag, value(), 0);
    else if (flag == "--case") a.only_case = parse_int(flag, value(), 0);
    else if (flag == "--property-runs") a.property_runs = parse_int(flag, value(), 1);
    else if (flag == "--no-properties") a.no_properties = true;
    else if (flag == "--report") a.report = value();
    else if (flag == "--junit") a.junit = value();
    else if (flag == "--html") a.html = value();
    else if (flag == "--tolerances") a.tolerances = value();
    else if (flag == "--repro-dir") a.repro_dir = value();
    else if (flag == "--timeout") a.timeout_s = static_cast<double>(parse_int(flag, value(), 1));
    else if (flag == "--verbose") a.verbose = true;
    else throw UsageError("unknown option '" + flag + "'");
  }
  if (a.backends.empty()) throw UsageError("check needs at least one --backend");
  if (a.only_case >= 0 && a.ops.size() != 1) throw UsageError("--case needs exactly one --op");
  if (a.no_properties && !a.properties.empty()) throw UsageError("--property and --no-properties contradict each other");
  return a;
}

}  // namespace konform::cli
