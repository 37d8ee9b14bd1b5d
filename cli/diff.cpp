#include "diff.hpp"

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "files.hpp"
#include "konform/report_diff.hpp"

namespace konform::cli {

namespace {

// A share or factor as the options take it: a decimal above 0.
double parse_positive(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(v > 0) || v > 1e6)
    throw UsageError(flag + " takes a decimal number above 0 (and at most 1e6), not '" + value + "'");
  return v;
}

nlohmann::json read_report(const std::string& path) {
  const auto j = nlohmann::json::parse(read_file(path), nullptr, false);
  if (j.is_discarded()) throw UsageError("'" + path + "' is not valid JSON");
  return j;
}

}  // namespace

int diff(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string report, markdown;
  DiffOptions opt;
  ArgReader in("diff", args);
  while (in.next()) {
    if (in.arg() == "--report") report = in.single_value();
    else if (in.arg() == "--markdown") markdown = in.single_value();
    else if (in.arg() == "--growth") opt.growth = parse_positive("--growth", in.single_value());
    else if (in.arg() == "--share") opt.share = parse_positive("--share", in.single_value());
    else if (in.arg().rfind("--", 0) == 0) throw unknown_option("diff", in.arg());
    else inputs.push_back(in.arg());
  }
  if (inputs.size() != 2)
    throw UsageError("diff takes two reports, OLD.json and NEW.json; got " + std::to_string(inputs.size()));
  check_distinct_paths({{"the old report", inputs[0]}, {"--report", report}, {"--markdown", markdown}});
  check_distinct_paths({{"the new report", inputs[1]}, {"--report", report}, {"--markdown", markdown}});
  ReportDiff d;
  try {
    d = diff_reports(read_report(inputs[0]), read_report(inputs[1]), opt, inputs[0], inputs[1]);
  } catch (const DiffError& e) {
    throw UsageError(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("a report does not follow the report schema: " + std::string(e.what()));
  }
  OutputFile report_file = report.empty() ? OutputFile() : OutputFile(report, "diff report");
  OutputFile markdown_file = markdown.empty() ? OutputFile() : OutputFile(markdown, "Markdown summary");
  std::fputs(diff_to_text(d).c_str(), stdout);
  report_file.write(diff_to_json(d, opt, inputs[0], inputs[1]).dump(2) + "\n");
  markdown_file.write(diff_to_markdown(d, inputs[0], inputs[1]));
  return d.regressions > 0 ? 1 : 0;
}

}  // namespace konform::cli
