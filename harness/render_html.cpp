#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "konform/render.hpp"
#include "konform/report.hpp"

namespace konform {

namespace {

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string str(const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

double num(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  return j.is_string() && j.get<std::string>() == "Infinity" ? INFINITY : NAN;
}

const char* colour(const std::string& verdict) {
  if (verdict == "pass") return "#2e7d32";
  if (verdict == "unsupported") return "#757575";
  if (verdict == "not_run") return "#b0b0b0";
  return "#c62828";
}

// A horizontal bar per op x backend: the worst error as a fraction of its
// limit, on a log axis from 1e-3 to 1e3 of the limit; the line at 1 is the
// limit. Exact ops (no tolerance entry) are not plotted.
std::string error_plot(const nlohmann::json& results) {
  std::vector<const nlohmann::json*> rows;
  for (const auto& r : results)
    if (!str(r.at("tolerance").at("why")).empty() && r.at("verdict") != "unsupported" && r.at("verdict") != "not_run")
      rows.push_back(&r);
  if (rows.empty()) return "<p>No toleranced results to plot.</p>";
  const int left = 260, width = 480, bar = 14, gap = 4, top = 24;
  const int height = top + static_cast<int>(rows.size()) * (bar + gap) + 24;
  auto x_of = [&](double ratio) {
    const double l = std::log10(std::fmax(ratio, 1e-3));
    return left + static_cast<int>((std::fmin(l, 3.0) + 3.0) / 6.0 * width);
  };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 60 << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  for (int p = -3; p <= 3; ++p) {
    const int x = x_of(std::pow(10.0, p));
    s << "<line x1=\"" << x << "\" y1=\"" << top - 6 << "\" x2=\"" << x << "\" y2=\"" << height - 20
      << "\" stroke=\"" << (p == 0 ? "#c62828" : "#ddd") << "\"/><text x=\"" << x - 10 << "\" y=\"" << top - 10
      << "\">1e" << p << "</text>\n";
  }
  int y = top;
  for (const auto* r : rows) {
    const double limit = num((*r).at("tolerance").at("limit")), err = num((*r).at("metrics").at("max_r"));
    const double ratio = limit > 0 ? err / limit : (err > 0 ? INFINITY : 0.0);
    s << "<text x=\"4\" y=\"" << y + bar - 3 << "\">" << esc(str((*r).at("op")) + "  " + str((*r).at("backend")))
      << "</text><rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << std::max(1, x_of(ratio) - left)
      << "\" height=\"" << bar << "\" fill=\"" << colour(str((*r).at("verdict"))) << "\"><title>"
      << esc(str((*r).at("metrics").at("max_r")) + " u of " + str((*r).at("tolerance").at("limit"))) << "</title></rect>\n";
    y += bar + gap;
  }
  s << "<text x=\"" << left << "\" y=\"" << height - 4 << "\">worst error / limit (log scale; the red line is the limit)</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace

// Everything read here with at() is required by the schema, and the report
// has been validated before: no const operator[] on an absent key.
std::string render_html(const nlohmann::json& report) {
  validate_report(report);  // the whole report, before any output
  const auto& results = report.at("results");
  std::set<std::string> backends;
  std::map<std::string, std::map<std::string, const nlohmann::json*>> grid;  // op -> backend -> result
  for (const auto& r : results) {
    backends.insert(str(r.at("backend")));
    grid[str(r.at("op"))][str(r.at("backend"))] = &r;
  }
  const auto& sum = report.at("summary");
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>konform report</title><style>"
       "body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}th{background:#f4f4f4}"
       "code{font-size:12px;background:#f6f6f6;padding:1px 3px}.v{color:#fff;font-weight:bold}"
       "</style></head><body>\n";
  h << "<h1>konform conformance report</h1>\n<p><b>" << esc(str(sum.at("verdict"))) << "</b>: " << str(sum.at("passed"))
    << " passed, " << str(sum.at("failed")) << " failed, " << str(sum.at("unsupported")) << " unsupported"
    << (sum.value("not_run", 0) > 0 ? ", " + str(sum.at("not_run")) + " not run" : "")
    << (sum.value("strict_failed", 0) > 0 ? "; " + str(sum.at("strict_failed")) + " fail the strict profile" : "")
    << " (profile " << esc(report.value("profile", "default")) << "). Seed "
    << str(report.at("seed")) << ", " << str(report.at("cases_per_op")) << " cases per op, created " << esc(str(report.at("created")))
    << ".</p>\n<p><code>" << esc(str(report.at("command"))) << "</code></p>\n";
  h << "<p>Machine: " << esc(str(report.at("machine").at("cpu"))) << ", " << str(report.at("machine").at("cores"))
    << " cores. Build: konform " << esc(str(report.at("build").at("konform_version"))) << " (" << esc(str(report.at("build").at("git")))
    << "), " << esc(str(report.at("build").at("compiler"))) << ".</p>\n";

  h << "<h2>Verdicts</h2>\n<table><tr><th>op</th>";
  for (const auto& b : backends) h << "<th>" << esc(b) << "</th>";
  h << "</tr>\n";
  for (const auto& [op, by_backend] : grid) {
    h << "<tr><td>" << esc(op) << "</td>";
    for (const auto& b : backends) {
      auto it = by_backend.find(b);
      if (it == by_backend.end()) {
        h << "<td></td>";
        continue;
      }
      const auto& r = *it->second;
      const std::string v = str(r.at("verdict"));
      const std::string title = v == "not_run" ? "not run: " + str(r.at("reason"))
                                               : str(r.at("metrics").at("max_r")) + " u of " + str(r.at("tolerance").at("limit"));
      h << "<td class=\"v\" style=\"background:" << colour(v) << "\" title=\"" << esc(title) << "\">"
        << (v == "not_run" ? "not run" : esc(v)) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n<h2>Worst error against the limit</h2>\n" << error_plot(results);

  h << "<h2>Metrics</h2>\n<table><tr><th>op</th><th>backend</th><th>cases</th><th>max error (u)</th><th>limit (u)</th>"
       "<th>max abs</th><th>max rel</th><th>max ULP</th><th>NMSE</th></tr>\n";
  for (const auto& r : results) {
    if (r.at("verdict") == "unsupported" || r.at("verdict") == "not_run") continue;
    const auto& m = r.at("metrics");
    h << "<tr><td>" << esc(str(r.at("op"))) << "</td><td>" << esc(str(r.at("backend"))) << "</td><td>" << str(r.at("cases"))
      << "</td><td>" << str(m.at("max_r")) << "</td><td>" << str(r.at("tolerance").at("limit")) << "</td><td>" << str(m.at("max_abs"))
      << "</td><td>" << str(m.at("max_rel")) << "</td><td>" << str(m.at("max_ulp")) << "</td><td>" << str(m.at("nmse"))
      << "</td></tr>\n";
  }
  h << "</table>\n<h2>Findings</h2>\n";
  bool any = false;
  for (const auto& r : results)
    for (const auto& f : r.at("findings")) {
      any = true;
      h << "<h3>" << esc((f.contains("profile") ? "[strict profile] " : "") + str(r.at("op")) + " on " + str(r.at("backend")) +
                         ": " + str(f.at("check")))
        << "</h3>\n<p>"
        << esc(str(f.at("message"))) << "</p>\n";
      if (f.value("case", -1) >= 0) h << "<p>case " << str(f.at("case")) << ": " << esc(str(f.at("case_label"))) << "</p>\n";
      if (f.contains("expected"))
        h << "<p>" << esc(str(f.value("output", "")) + str(f.value("element", ""))) << ": expected " << str(f.at("expected"))
          << ", got " << str(f.at("got")) << ", error " << str(f.at("error")) << " u, limit " << str(f.at("limit")) << " u</p>\n";
      if (!str(f.at("reproduce")).empty()) h << "<p>replay: <code>" << esc(str(f.at("reproduce"))) << "</code></p>\n";
    }
  if (!any) h << "<p>None.</p>\n";
  // What could not run here, and why: not a finding, and not a pass either.
  bool header = false;
  for (const auto& r : results) {
    if (r.at("verdict") != "not_run") continue;
    if (!header) h << "<h2>Not run</h2>\n<ul style=\"color:#616161\">\n";
    header = true;
    h << "<li>" << esc(str(r.at("op")) + " on " + str(r.at("backend")) + ": " + str(r.at("reason"))) << "</li>\n";
  }
  if (header) h << "</ul>\n";
  h << "</body></html>\n";
  return h.str();
}

}  // namespace konform
