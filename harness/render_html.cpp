// The report as one self-contained HTML page for people: a results table
// with failures first that sorts and filters (inline script, no network),
// the worst error against the limit on an axis that reaches the largest
// value, every finding with its replay line and reproducer, and the metrics.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "konform/op.hpp"
#include "konform/render.hpp"
#include "konform/replay.hpp"
#include "konform/report.hpp"

namespace konform {

namespace {

using nlohmann::json;

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

std::string str(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

double num(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string() && j.get<std::string>() == "Infinity") return INFINITY;
  return NAN;
}

// Failures first, then what could not be judged, then passes.
int rank(const std::string& verdict) {
  if (verdict == "fail" || verdict == "crashed" || verdict == "timeout") return 0;
  if (verdict == "mistrusted") return 1;
  if (verdict == "not_run") return 2;
  if (verdict == "pass") return 3;
  return 4;  // unsupported
}

const char* colour(const std::string& verdict) {
  switch (rank(verdict)) {
    case 0: return "#c62828";
    case 1: return "#ef6c00";
    case 2: return "#9e9e9e";
    case 3: return "#2e7d32";
    default: return "#bdbdbd";
  }
}

// The worst error as a share of the limit; NaN for exact ops and results
// that compared nothing.
double share(const json& r) {
  const std::string v = str(r.at("verdict"));
  if (str(r.at("tolerance").at("why")).empty() || v == "unsupported" || v == "not_run") return NAN;
  const double limit = num(r.at("tolerance").at("limit")), err = num(r.at("metrics").at("max_r"));
  if (std::isnan(err)) return NAN;
  if (!(limit > 0)) return err > 0 ? INFINITY : 0;  // a table's limit of 0: any error is off the axis
  return err / limit;
}

// A log axis of error / limit from 1e-3 to the decade above the largest
// finite share (at least 1e1): every bar ends at its value, and an infinite
// share is drawn to the end with a break mark.
struct Axis {
  int top_decade = 1;
  explicit Axis(const json& results) {
    for (const auto& r : results) {
      const double s = share(r);
      if (std::isfinite(s) && s > 0) top_decade = std::max(top_decade, static_cast<int>(std::ceil(std::log10(s))));
    }
  }
  double fraction(double s) const {  // 0..1 along the axis
    if (!(s > 0)) return 0;
    if (std::isinf(s)) return 1;
    const double l = std::clamp(std::log10(s), -3.0, static_cast<double>(top_decade));
    return (l + 3.0) / (top_decade + 3.0);
  }
};

std::string finding_id(size_t result, size_t finding) {
  return "finding-" + std::to_string(result) + "-" + std::to_string(finding);
}

std::string error_plot(const json& results, const Axis& axis) {
  std::vector<const json*> rows;
  for (const auto& r : results)
    if (!std::isnan(share(r))) rows.push_back(&r);
  if (rows.empty()) return "<p>No toleranced results to plot.</p>\n";
  std::stable_sort(rows.begin(), rows.end(), [](const json* a, const json* b) { return share(*a) > share(*b); });
  const int left = 260, width = 520, bar = 14, gap = 4, top = 24;
  const int height = top + static_cast<int>(rows.size()) * (bar + gap) + 24;
  auto x_of = [&](double s) { return left + static_cast<int>(axis.fraction(s) * width); };
  std::ostringstream s;
  s << "<svg id=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 70 << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  for (int p = -3; p <= axis.top_decade; ++p) {
    const int x = x_of(std::pow(10.0, p));
    s << "<line x1=\"" << x << "\" y1=\"" << top - 6 << "\" x2=\"" << x << "\" y2=\"" << height - 20 << "\" stroke=\""
      << (p == 0 ? "#c62828" : "#ddd") << "\"/><text x=\"" << x - 10 << "\" y=\"" << top - 10 << "\">1e" << p
      << "</text>\n";
  }
  int y = top;
  for (const auto* r : rows) {
    const double v = share(*r);
    const int end = std::max(left + 1, x_of(v));
    s << "<text x=\"4\" y=\"" << y + bar - 3 << "\">" << esc(str(r->at("op")) + "  " + str(r->at("backend")))
      << "</text><rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << end - left << "\" height=\"" << bar
      << "\" fill=\"" << colour(str(r->at("verdict"))) << "\"><title>"
      << esc(str(r->at("metrics").at("max_r")) + " u of " + str(r->at("tolerance").at("limit"))) << "</title></rect>";
    if (std::isinf(v))  // off any axis: a break mark at the end
      s << "<text x=\"" << end + 4 << "\" y=\"" << y + bar - 3 << "\">// inf</text>";
    s << "\n";
    y += bar + gap;
  }
  s << "<text x=\"" << left << "\" y=\"" << height - 4
    << "\">worst error / limit (log scale to the largest value; the red line is the limit)</text>\n</svg>\n";
  return s.str();
}

// Sorting by any column, and filters by verdict, family, backend and op name.
// When done it marks the body data-ready="1", which the browser test reads.
const char* kScript = R"JS(
(function () {
  var table = document.getElementById('results');
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var sortKey = null, sortUp = true;
  function value(row, key) {
    var v = row.getAttribute('data-' + key);
    return table.querySelector('th[data-key="' + key + '"]').hasAttribute('data-num') ? parseFloat(v) : v;
  }
  function sortBy(key) {
    sortUp = sortKey === key ? !sortUp : true;
    sortKey = key;
    rows.sort(function (a, b) {
      var x = value(a, key), y = value(b, key);
      if (typeof x === 'number') { x = isNaN(x) ? -1 : x; y = isNaN(y) ? -1 : y; }
      var c = x < y ? -1 : x > y ? 1 : 0;
      return sortUp ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.setAttribute('aria-sort', th.getAttribute('data-key') === key ? (sortUp ? 'ascending' : 'descending') : 'none');
    });
  }
  function filter() {
    var want = {};
    ['verdict', 'family', 'backend'].forEach(function (k) { want[k] = document.getElementById('f-' + k).value; });
    var text = document.getElementById('f-op').value.toLowerCase();
    var shown = 0;
    rows.forEach(function (r) {
      var ok = text === '' || r.getAttribute('data-op').toLowerCase().indexOf(text) >= 0;
      ['verdict', 'family', 'backend'].forEach(function (k) {
        if (want[k] !== '' && r.getAttribute('data-' + k) !== want[k]) ok = false;
      });
      r.style.display = ok ? '' : 'none';
      shown += ok ? 1 : 0;
    });
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' shown';
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
    if (th.hasAttribute('data-key')) th.addEventListener('click', function () { sortBy(th.getAttribute('data-key')); });
  });
  ['f-verdict', 'f-family', 'f-backend', 'f-op'].forEach(function (id) {
    document.getElementById(id).addEventListener('input', filter);
  });
  window.konformReport = { sortBy: sortBy, filter: filter };
  filter();
  document.body.setAttribute('data-ready', '1');
})();
)JS";

std::string select_of(const std::string& id, const std::string& label, const std::set<std::string>& values) {
  std::string s = "<label>" + label + " <select id=\"" + id + "\"><option value=\"\">all</option>";
  for (const auto& v : values) s += "<option>" + esc(v) + "</option>";
  return s + "</select></label>\n";
}

}  // namespace

// Everything read here with at() is required by the schema, and the report
// has been validated before: no const operator[] on an absent key.
std::string render_html(const json& report) {
  validate_report(report);  // the whole report, before any output
  const auto& results = report.at("results");
  const Axis axis(results);
  std::vector<size_t> order(results.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rank(str(results[a].at("verdict"))) < rank(str(results[b].at("verdict")));
  });
  std::set<std::string> verdicts, families, backends;
  auto family_of = [](const std::string& op) {
    const OpSpec* o = find_op(op);
    return o ? o->group : std::string("?");
  };
  for (const auto& r : results) {
    verdicts.insert(str(r.at("verdict")));
    families.insert(family_of(str(r.at("op"))));
    backends.insert(str(r.at("backend")));
  }

  const auto& sum = report.at("summary");
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>konform report: "
    << esc(str(sum.at("verdict")))
    << "</title><style>"
       "body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}th{background:#f4f4f4}"
       "th[data-key]{cursor:pointer}th[aria-sort=ascending]::after{content:' \\25B2'}"
       "th[aria-sort=descending]::after{content:' \\25BC'}"
       "code{font-size:12px;background:#f6f6f6;padding:1px 3px;word-break:break-all}.v{color:#fff;font-weight:bold}"
       ".bar{position:relative;width:220px;height:12px;background:#f4f4f4}"
       ".bar span{position:absolute;left:0;top:0;height:12px}.bar i{position:absolute;top:-2px;height:16px;"
       "border-left:2px solid #c62828}#controls label{margin-right:1em}"
       "</style></head><body>\n";
  h << "<h1>konform conformance report</h1>\n<p id=\"summary\"><b>" << esc(str(sum.at("verdict")))
    << "</b>: " << str(sum.at("passed")) << " passed, " << str(sum.at("failed")) << " failed, "
    << str(sum.at("unsupported")) << " unsupported"
    << (sum.value("mistrusted", 0) > 0 ? ", " + str(sum.at("mistrusted")) + " mistrusted" : "")
    << (sum.value("not_run", 0) > 0 ? ", " + str(sum.at("not_run")) + " not run" : "")
    << (sum.value("strict_failed", 0) > 0 ? "; " + str(sum.at("strict_failed")) + " fail the strict profile" : "")
    << " (profile " << esc(report.value("profile", "default")) << "). Seed " << str(report.at("seed")) << ", "
    << str(report.at("cases_per_op")) << " cases per op, created " << esc(str(report.at("created")))
    << ".</p>\n<p><code>" << esc(str(report.at("command"))) << "</code></p>\n";
  h << "<p>Machine: " << esc(str(report.at("machine").at("cpu"))) << ", " << str(report.at("machine").at("cores"))
    << " cores. Build: konform " << esc(str(report.at("build").at("konform_version"))) << " ("
    << esc(str(report.at("build").at("git"))) << "), " << esc(str(report.at("build").at("compiler"))) << ".</p>\n";

  h << "<h2>Results</h2>\n<div id=\"controls\">" << select_of("f-verdict", "verdict", verdicts)
    << select_of("f-family", "family", families) << select_of("f-backend", "backend", backends)
    << "<label>op <input id=\"f-op\" placeholder=\"name contains\"></label> <span id=\"shown\"></span></div>\n";
  h << "<p>Worst error / limit on a log axis from 1e-3 to 1e" << axis.top_decade
    << "; the red mark is the limit. Click a column to sort.</p>\n";
  h << "<table id=\"results\"><thead><tr><th data-key=\"rank\" data-num>verdict</th><th data-key=\"op\">op</th>"
       "<th data-key=\"family\">family</th><th data-key=\"backend\">backend</th><th data-key=\"cases\" "
       "data-num>cases</th>"
       "<th data-key=\"share\" data-num>worst / limit</th><th>error</th><th data-key=\"findings\" "
       "data-num>findings</th>"
       "</tr></thead><tbody>\n";
  const int limit_mark = static_cast<int>(axis.fraction(1.0) * 220);
  for (size_t i : order) {
    const auto& r = results[i];
    const std::string v = str(r.at("verdict")), op = str(r.at("op"));
    const double s = share(r);
    const size_t findings = r.at("findings").size();
    char share_text[48] = "-";
    if (std::isinf(s)) std::snprintf(share_text, sizeof share_text, "inf");
    else if (!std::isnan(s)) std::snprintf(share_text, sizeof share_text, "%.3g", s);
    h << "<tr data-rank=\"" << rank(v) << "\" data-verdict=\"" << esc(v) << "\" data-op=\"" << esc(op)
      << "\" data-family=\"" << esc(family_of(op)) << "\" data-backend=\"" << esc(str(r.at("backend")))
      << "\" data-cases=\"" << str(r.at("cases")) << "\" data-share=\""
      << (std::isnan(s)   ? "NaN"
          : std::isinf(s) ? "1e308"
                          : share_text)
      << "\" data-findings=\"" << findings << "\"><td class=\"v\" style=\"background:" << colour(v) << "\">"
      << (v == "not_run" ? "not run" : esc(v)) << "</td><td>" << esc(op) << "</td><td>" << esc(family_of(op))
      << "</td><td>" << esc(str(r.at("backend"))) << "</td><td>" << str(r.at("cases")) << "</td><td>" << share_text
      << "</td><td>";
    if (!std::isnan(s))
      h << "<div class=\"bar\" title=\""
        << esc(str(r.at("metrics").at("max_r")) + " u of " + str(r.at("tolerance").at("limit")))
        << "\"><span style=\"width:" << std::max(1, static_cast<int>(axis.fraction(s) * 220))
        << "px;background:" << colour(v) << "\"></span><i style=\"left:" << limit_mark << "px\"></i></div>";
    h << "</td><td>";
    if (findings > 0) h << "<a href=\"#" << finding_id(i, 0) << "\">" << findings << "</a>";
    else if (v == "not_run" || v == "mistrusted") h << esc(str(r.at("reason")));
    else h << "0";
    h << "</td></tr>\n";
  }
  h << "</tbody></table>\n";

  h << "<h2>Findings</h2>\n";
  bool any = false;
  for (size_t i : order) {
    const auto& r = results[i];
    const auto& fs = r.at("findings");
    for (size_t k = 0; k < fs.size(); ++k) {
      const auto& f = fs[k];
      any = true;
      h << "<h3 id=\"" << finding_id(i, k) << "\">"
        << esc((f.contains("profile") ? "[strict profile] " : "") + str(r.at("op")) + " on " + str(r.at("backend")) +
               ": " + str(f.at("check")))
        << "</h3>\n<p>" << esc(str(f.at("message"))) << "</p>\n";
      if (f.value("case", -1) >= 0)
        h << "<p>case " << str(f.at("case")) << ": " << esc(str(f.at("case_label"))) << "</p>\n";
      if (f.contains("expected"))
        h << "<p>" << esc(str(f.value("output", "")) + str(f.value("element", ""))) << ": expected "
          << str(f.at("expected")) << ", got " << str(f.at("got")) << ", error " << str(f.at("error")) << " u, limit "
          << str(f.at("limit")) << " u</p>\n";
      const std::string replay = str(f.at("reproduce"));
      if (!replay.empty()) h << "<p>replay: <code>" << esc(replay) << "</code></p>\n";
      const std::string path = reproducer_path(replay);
      if (!path.empty()) h << "<p>reproducer: <a href=\"" << esc(path) << "\">" << esc(path) << "</a></p>\n";
    }
  }
  if (!any) h << "<p>None.</p>\n";

  h << "<h2>Worst error against the limit</h2>\n" << error_plot(results, axis);
  h << "<h2>Metrics</h2>\n<table><tr><th>op</th><th>backend</th><th>cases</th><th>max error (u)</th><th>limit (u)</th>"
       "<th>max abs</th><th>max rel</th><th>max ULP</th><th>NMSE</th></tr>\n";
  for (size_t i : order) {
    const auto& r = results[i];
    if (r.at("verdict") == "unsupported" || r.at("verdict") == "not_run") continue;
    const auto& m = r.at("metrics");
    h << "<tr><td>" << esc(str(r.at("op"))) << "</td><td>" << esc(str(r.at("backend"))) << "</td><td>"
      << str(r.at("cases")) << "</td><td>" << str(m.at("max_r")) << "</td><td>" << str(r.at("tolerance").at("limit"))
      << "</td><td>" << str(m.at("max_abs")) << "</td><td>" << str(m.at("max_rel")) << "</td><td>"
      << str(m.at("max_ulp")) << "</td><td>" << str(m.at("nmse")) << "</td></tr>\n";
  }
  h << "</table>\n";
  // What ran on data that could not have caught a wrong kernel, and why.
  bool mistrusted_header = false;
  for (size_t i : order) {
    const auto& r = results[i];
    for (const auto& c : r.at("checks")) {
      if (c.at("verdict") != "mistrusted") continue;
      if (!mistrusted_header)
        h << "<h2 id=\"mistrusted\">Mistrusted</h2>\n<p>Checks that found nothing on data that could not have "
             "caught a wrong kernel: no finding, and no pass either.</p>\n<ul style=\"color:"
          << colour("mistrusted") << "\">\n";
      mistrusted_header = true;
      h << "<li>"
        << esc(str(r.at("op")) + " on " + str(r.at("backend")) + ", " + str(c.at("name")) + ": " + str(c.at("reason")))
        << "</li>\n";
    }
  }
  if (mistrusted_header) h << "</ul>\n";
  // What could not run here, and why: not a finding, and not a pass either.
  bool header = false;
  for (const auto& r : results) {
    if (r.at("verdict") != "not_run") continue;
    if (!header) h << "<h2>Not run</h2>\n<ul style=\"color:#616161\">\n";
    header = true;
    h << "<li>" << esc(str(r.at("op")) + " on " + str(r.at("backend")) + ": " + str(r.at("reason"))) << "</li>\n";
  }
  if (header) h << "</ul>\n";
  h << "<script>" << kScript << "</script>\n</body></html>\n";
  return h.str();
}

}  // namespace konform
