#!/usr/bin/env python3
"""The HTML report in a real headless browser (Debian's chromium-headless-shell
or chromium): the page loads with no script error, failures come first, the
columns sort both ways, the filters hide what they should, the table fits a
1280-pixel window, and the error axis reaches the largest error.

usage: html_browser_test.py KONFORM PASS.json FAIL.json WORKDIR
The page under test is `konform render` of a report holding FAIL.json's
failing result and PASS.json's passing ones.
"""
import json
import os
import re
import shutil
import subprocess
import sys

konform, pass_json, fail_json, work = sys.argv[1:5]
browser = shutil.which("chromium-headless-shell") or shutil.which("chromium")
if not browser:
    print("SKIPPED: no chromium-headless-shell or chromium (apt-get install chromium-headless-shell)")
    sys.exit(77)
os.makedirs(work, exist_ok=True)

passing, failing = json.load(open(pass_json)), json.load(open(fail_json))
failed_ops = {(r["op"], r["backend"]) for r in failing["results"]}
report = dict(passing)
report["results"] = failing["results"] + [r for r in passing["results"] if (r["op"], r["backend"]) not in failed_ops]
report["summary"] = dict(passing["summary"], passed=len(report["results"]) - len(failing["results"]),
                         failed=len(failing["results"]), verdict="fail")
report_path = os.path.join(work, "mixed.json")
json.dump(report, open(report_path, "w"))
page = os.path.join(work, "mixed.html")
subprocess.run([konform, "render", report_path, "--html", page], check=True, capture_output=True)

# The harness page loads the report's text, adds an error trap in front of
# its own script, shows it in a frame and drives it; the verdicts go to the DOM.
harness = os.path.join(work, "drive.html")
open(harness, "w").write(r"""<!DOCTYPE html><html><body><iframe id="f" width="1280" height="900"></iframe><script>
var out = {errors: []};
var xhr = new XMLHttpRequest();
xhr.open('GET', 'mixed.html');
xhr.onload = function () {
  var trap = '<script>window.__errors = []; window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });<\/script>';
  var f = document.getElementById('f');
  f.onload = function () {
    var w = f.contentWindow, d = f.contentDocument;
    out.errors = w.__errors.slice();
    out.ready = d.body.getAttribute('data-ready') === '1';
    var rows = function () { return Array.prototype.slice.call(d.querySelectorAll('#results tbody tr')); };
    var visible = function () { return rows().filter(function (r) { return r.style.display !== 'none'; }); };
    out.rows = rows().length;
    out.first_verdict = rows()[0].getAttribute('data-verdict');
    var th = d.querySelector('th[data-key="op"]');
    th.click();
    out.asc = rows().map(function (r) { return r.getAttribute('data-op'); });
    th.click();
    out.desc = rows().map(function (r) { return r.getAttribute('data-op'); });
    var shareTh = d.querySelector('th[data-key="share"]');
    shareTh.click(); shareTh.click();
    out.top_share = rows()[0].getAttribute('data-share');
    var sel = d.getElementById('f-verdict');
    sel.value = 'pass'; sel.dispatchEvent(new Event('input'));
    out.pass_shown = visible().length;
    out.pass_all_pass = visible().every(function (r) { return r.getAttribute('data-verdict') === 'pass'; });
    sel.value = ''; sel.dispatchEvent(new Event('input'));
    var op = d.getElementById('f-op');
    op.value = 'ADD'; op.dispatchEvent(new Event('input'));
    out.add_shown = visible().map(function (r) { return r.getAttribute('data-op'); });
    out.table_width = d.getElementById('results').getBoundingClientRect().width;
    out.table_top = d.getElementById('results').getBoundingClientRect().top;
    out.axis_text = d.body.textContent.match(/log axis from 1e-3 to 1e(\d+)/);
    out.errors = out.errors.concat(w.__errors.slice(out.errors.length));
    document.body.setAttribute('data-result', JSON.stringify(out));
  };
  f.srcdoc = xhr.responseText.replace('<head>', '<head>' + trap);
};
xhr.send();
</script></body></html>""")

proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                       "--virtual-time-budget=10000", "--dump-dom", "file://" + os.path.abspath(harness)],
                      capture_output=True, text=True, timeout=120)
m = re.search(r'data-result="([^"]*)"', proc.stdout)
if not m:
    print("FAIL: the browser gave no result; its output:\n" + proc.stdout[-2000:] + proc.stderr[-2000:])
    sys.exit(1)
import html as html_module
out = json.loads(html_module.unescape(m.group(1)))

problems = []
def expect(what, cond):
    if not cond:
        problems.append(what)

n = len(report["results"])
expect(f"no script error (got {out['errors']})", out["errors"] == [])
expect("the page's script ran to its end (data-ready)", out["ready"])
expect(f"one row per result ({out['rows']} of {n})", out["rows"] == n)
expect(f"failures first (first row: {out['first_verdict']})", out["first_verdict"] == "fail")
expect("clicking op sorts ascending", out["asc"] == sorted(out["asc"]))
expect("clicking op again sorts descending", out["desc"] == sorted(out["desc"], reverse=True))
expect(f"sorting by worst/limit descending puts the off-axis error first ({out['top_share']})",
       float(out["top_share"]) >= 1e300)
want_pass = sum(r["verdict"] == "pass" for r in report["results"])
expect(f"the pass filter shows the {want_pass} passes ({out['pass_shown']}, all pass: {out['pass_all_pass']})",
       out["pass_shown"] == want_pass and out["pass_all_pass"])
expect(f"the op filter ignores case ({out['add_shown']})",
       out["add_shown"] and all("add" in o.lower() for o in out["add_shown"]))
expect(f"the results table fits 1280 px ({out['table_width']:.0f})", out["table_width"] <= 1280)
expect(f"the results table starts on the first screen (top {out['table_top']:.0f})", out["table_top"] < 900)
expect("the error axis is labelled", out["axis_text"] is not None)

for p in problems:
    print("FAIL: " + p)
print(f"html_browser_test: {n} rows; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
