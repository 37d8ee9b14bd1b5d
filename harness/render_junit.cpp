#include <map>
#include <sstream>

#include "konform/render.hpp"
#include "konform/report.hpp"

namespace konform {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += ' ';
        else out += c;
    }
  }
  return out;
}

// f has been validated (validate_report): the required fields are there;
// optional ones are read with value().
std::string finding_text(const nlohmann::json& f) {
  std::ostringstream s;
  s << f.at("message").get<std::string>();
  if (f.at("case").get<int64_t>() >= 0)
    s << "\ncase " << f.at("case").dump() << ": " << f.at("case_label").get<std::string>();
  if (f.contains("expected"))
    s << "\n"
      << f.value("output", "") << f.value("element", "") << ": expected " << f.at("expected").dump() << ", got "
      << f.at("got").dump() << ", error " << f.at("error").dump() << " u, limit " << f.at("limit").dump() << " u";
  if (!f.at("reproduce").get<std::string>().empty()) s << "\nreplay: " << f.at("reproduce").get<std::string>();
  return s.str();
}

// A backend's name for CI UIs, which split classnames at dots: a plugin's
// library file without its directory, "lib" and ".so" ("./libtheirs.so:AVX2"
// is "theirs:AVX2"); built-in names as they are. Its path goes in a property.
std::string short_backend_name(const std::string& name) {
  std::string base = name, target;
  const size_t so = base.find(".so");
  if (so == std::string::npos && base.find('/') == std::string::npos) return base;
  if (so != std::string::npos) {
    const size_t colon = base.find(':', so);
    if (colon != std::string::npos) target = base.substr(colon), base = base.substr(0, colon);
    base = base.substr(0, so);
  }
  const size_t slash = base.rfind('/');
  if (slash != std::string::npos) base = base.substr(slash + 1);
  if (base.rfind("lib", 0) == 0 && base.size() > 3) base = base.substr(3);
  for (char& c : base)
    if (c == '.') c = '_';
  return base + target;
}

}  // namespace

std::string render_junit(const nlohmann::json& report) {
  validate_report(report);  // the whole report, before any output
  // Group results by backend: each backend is a suite.
  std::map<std::string, std::vector<const nlohmann::json*>> suites;
  for (const auto& r : report.at("results")) suites[r.at("backend").get<std::string>()].push_back(&r);

  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"konform\">\n";
  std::map<std::string, std::string> library;  // backend name -> its library's path
  for (const auto& b : report.at("backends")) library[b.at("name")] = b.at("library");
  for (const auto& [backend, results] : suites) {
    int tests = 0, failures = 0, skipped = 0;
    std::ostringstream cases;
    const std::string short_name = short_backend_name(backend);
    for (const auto* r : results) {
      const std::string op = r->at("op"), verdict = r->at("verdict");
      const std::string classname = "konform." + short_name + "." + op;
      if (verdict == "unsupported") {
        ++tests, ++skipped;
        cases << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\"unsupported\">"
              << "<skipped message=\"the backend does not export " << xml_escape(r->at("symbol").get<std::string>())
              << "\"/></testcase>\n";
        continue;
      }
      if (verdict == "not_run") {  // the backend cannot run here: skipped, with its reason
        ++tests, ++skipped;
        cases << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\"not_run\">"
              << "<skipped message=\"not run: " << xml_escape(r->at("reason").get<std::string>())
              << "\"/></testcase>\n";
        continue;
      }
      for (const auto& c : r->at("checks")) {
        ++tests;
        const std::string name = c.at("name");
        cases << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\"" << xml_escape(name)
              << "\" time=\"" << (name == "matches_oracle" ? r->at("seconds").get<double>() : 0.0) << "\">";
        // A strict-profile check fails the suite only in a run under --profile strict; else it is shown as skipped.
        const bool counted = !c.contains("profile") || report.value("profile", "default") == "strict";
        if (c.at("verdict") == "fail" && !counted) {
          ++skipped;
          cases << "<skipped message=\""
                << xml_escape(name + " fails the strict profile (run with --profile strict to count it)") << "\"/>";
        } else if (c.at("verdict") == "mistrusted") {  // never a pass: a failure that says why
          ++failures;
          const std::string why = c.at("reason");
          cases << "<failure type=\"mistrusted\" message=\""
                << xml_escape(name + " is mistrusted: its data could not have caught a wrong kernel") << "\">"
                << xml_escape(why +
                              "\n(no finding: a kernel that is wrong could pass this data too; "
                              "run more cases, or fix the op's case generator)")
                << "</failure>";
        } else if (c.at("verdict") == "fail") {
          ++failures;
          std::string text;
          for (const auto& f : r->at("findings"))
            if (f.at("check") == name) text += finding_text(f) + "\n";
          cases << "<failure message=\"" << xml_escape(name + " failed") << "\">" << xml_escape(text) << "</failure>";
        }
        cases << "</testcase>\n";
      }
    }
    x << "  <testsuite name=\"" << xml_escape(short_name) << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" skipped=\"" << skipped << "\" errors=\"0\">\n    <properties><property name=\"backend\" value=\""
      << xml_escape(backend) << "\"/><property name=\"library\" value=\""
      << xml_escape(library.count(backend) ? library[backend] : "") << "\"/></properties>\n"
      << cases.str() << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace konform
