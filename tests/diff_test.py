#!/usr/bin/env python3
"""konform diff as a CI gate: the same report twice is no regression (exit 0);
a report of a worse kernel is (exit 1), whether the op now fails or its worst
error grew within the limit; --report writes JSON and --markdown a summary.

usage: diff_test.py KONFORM PASS.json FAIL.json WORKDIR
PASS.json: a passing run (scalar, every op); FAIL.json: elementwise_add held to a limit of 0.
"""
import copy
import json
import os
import subprocess
import sys

konform, pass_json, fail_json, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
failures = []


def diff(old, new, *extra):
    p = subprocess.run([konform, "diff", old, new, *extra], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def expect(what, cond, output=""):
    if not cond:
        failures.append(what + ("\n" + output if output else ""))


def write(name, report):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(report, f)
    return path


rc, out = diff(pass_json, pass_json)
expect("the same report twice exits 0", rc == 0, out)
expect("... and says 0 regression(s)", "0 regression(s)" in out, out)

rc, out = diff(pass_json, fail_json, "--report", os.path.join(work, "d.json"), "--markdown", os.path.join(work, "d.md"))
expect("a failing elementwise_add exits 1", rc == 1, out)
expect("... as a new failure of elementwise_add on scalar", "new_failure" in out and " elementwise_add " in out, out)
d = json.load(open(os.path.join(work, "d.json")))
expect("--report: schema konform-diff/1, verdict regression", d["schema"] == "konform-diff/1" and d["verdict"] == "regression")
expect("--markdown: a table of the regression", "| elementwise_add | scalar |" in open(os.path.join(work, "d.md")).read())

# Error growth inside the limit: the same op, worst error from 10 % to 90 % of its limit.
base = json.load(open(pass_json))
judged = [r for r in base["results"] if r["verdict"] == "pass" and isinstance(r["tolerance"]["limit"], (int, float))
          and r["tolerance"]["limit"] > 0]
expect("the passing report has a tolerance-judged op", bool(judged))
if judged:
    op = judged[0]["op"]
    old, new = copy.deepcopy(base), copy.deepcopy(base)
    for rep, share in ((old, 0.1), (new, 0.9)):
        for r in rep["results"]:
            if r["op"] == op:
                r["metrics"]["max_r"] = share * r["tolerance"]["limit"]
    rc, out = diff(write("old.json", old), write("new.json", new))
    expect("growth from 10 % to 90 % of the limit exits 1", rc == 1 and "error_growth" in out, out)
    rc, out = diff(write("new.json", new), write("old.json", old))
    expect("shrinking error exits 0", rc == 0, out)
    rc, out = diff(write("old.json", old), write("new.json", new), "--growth", "10")
    expect("--growth 10 admits a 9x growth", rc == 0, out)

# check --baseline: the same diff as part of a run.
p = subprocess.run([konform, "check", "--backend", "scalar", "--op", "elementwise_add", "--cases", "20", "--no-properties",
                    "--baseline", pass_json], capture_output=True, text=True)
expect("check --baseline with nothing worse exits 0", p.returncode == 0 and "0 regression(s)" in p.stdout,
       p.stdout + p.stderr)
zero = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "add_limit_zero.tsv")
p = subprocess.run([konform, "check", "--backend", "scalar", "--op", "elementwise_add", "--cases", "20", "--no-properties",
                    "--tolerances", zero, "--baseline", pass_json], capture_output=True, text=True)
expect("check --baseline on a worse run exits 1 and names the regression",
       p.returncode == 1 and "new_failure" in p.stdout, p.stdout + p.stderr)
p = subprocess.run([konform, "check", "--backend", "scalar", "--op", "elementwise_add", "--baseline",
                    os.path.join(work, "missing.json")], capture_output=True, text=True)
expect("check --baseline of a missing file is refused before the run (exit 2)",
       p.returncode == 2 and "missing.json" in p.stderr and "passed" not in p.stdout, p.stdout + p.stderr)

rc, out = diff(pass_json, os.path.join(work, "missing.json"))
expect("a missing report is a usage error (exit 2) naming it", rc == 2 and "missing.json" in out, out)
rc, out = diff(pass_json, write("notreport.json", {"results": []}))
expect("a JSON file that is no report is refused (exit 2)", rc == 2 and "not a konform report" in out, out)

for f in failures:
    print("FAIL:", f)
print(f"diff_test: {len(failures)} failed check(s)")
sys.exit(1 if failures else 0)
