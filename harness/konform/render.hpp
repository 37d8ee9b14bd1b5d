// Other views of a JSON report: JUnit XML for CI systems and a
// self-contained HTML page (inline SVG plots, no scripts) for people. Both
// read the report's JSON, so a saved report can be rendered again later.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace konform {

// One <testsuite> per backend, one <testcase> per op and check.
std::string render_junit(const nlohmann::json& report);
std::string render_html(const nlohmann::json& report);
// SARIF 2.1.0: one result per finding (rule: its check; location: the op in the backend's library).
std::string render_sarif(const nlohmann::json& report);

}  // namespace konform
