#!/usr/bin/env python3
"""Runs `konform check` on every plugin of mutants/manifest.tsv and asserts the
verdicts: each mutant is caught (exit 1), on every op the manifest's `ops`
lists (the ops its pitfall reaches), by the check the spec names among others; the correct base and alternatives pass (exit 0); a row of verdict
`strict` passes the default profile (exit 0) and is caught under
--profile strict (exit 1) by the check it names. Writes the mutant x
check matrix as JSON.

usage: check_mutants.py KONFORM PLUGINS_TSV OUT_JSON [--cases N] [--seed N] [--jobs N] [--timeout S] [--full]

A mutant is checked with --fail-fast: each op it reaches stops at its first
failure, which is all the verdict needs. Where that run's checks do not
include the one the spec names (it fires only on a later case, or in a
property the failure skipped), the row is checked again in full. The matrix
then lists the checks that caught each mutant in the run that settled it.
--full: every mutant checked in full, the complete matrix (what
reports/mutants.json holds; about five times as long).

--timeout: every case's and property's deadline (default: konform's own,
from each case's size; 5 s for a row caught by no_hang).

The plugins are checked --jobs at a time (default: the machine's cores); the
matrix keeps the manifest's order.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time


def read_plugins(path):
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    header = lines[0].split("\t")
    want = ["id", "target", "verdict", "pitfall", "caught_by", "ops", "path"]
    if header != want:
        sys.exit(f"{path}:1: expected columns {want}, found {header}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(want):
            sys.exit(f"{path}:{number}: expected {len(want)} tab-separated fields, found {len(fields)}")
        rows.append(dict(zip(want, fields)))
    return rows


def run_one(konform, plugin, cases, seed, workdir, profile="default", timeout=None, fail_fast=False):
    report = os.path.join(workdir, plugin["id"] + "." + profile + ".json")
    cmd = [konform, "check", "--backend", plugin["path"], "--cases", str(cases), "--seed", str(seed),
           "--report", report, "--profile", profile]
    if fail_fast:
        cmd.append("--fail-fast")
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    if plugin["ops"].startswith("dtype:"):  # every op of these dtypes the plugin exports
        cmd += ["--dtype", plugin["ops"][len("dtype:"):]]
    elif plugin["ops"] != "-":  # a mutant: the ops its pitfall reaches, not the family's others
        cmd += ["--op", plugin["ops"]]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if proc.returncode == 2 or not os.path.exists(report):
        sys.exit(f"{plugin['id']}: konform failed to run (status {proc.returncode}):\n{proc.stderr}{proc.stdout}")
    with open(report, encoding="utf-8") as f:
        data = json.load(f)
    caught = []
    for result in data["results"]:
        for check in result["checks"]:
            if check["failures"] > 0:
                caught.append({"op": result["op"], "check": check["name"],
                               "profile": check.get("profile", "default")})
    return proc, data, caught


def run_plugin(konform, plugin, cases, seed, workdir, timeout, full):
    """The default run; for a `strict` row the --profile strict run too,
    whose exit status and checks decide. A run expected to fail is a
    --fail-fast one unless `full`, and is run again in full when the check
    the spec names is not among those that caught it."""
    start = time.monotonic()
    proc, data, caught, verdict = settle(konform, plugin, cases, seed, workdir, timeout, fast=not full)
    if not full and plugin["caught_by"] != "-" and plugin["caught_by"] not in {c["check"] for c in caught}:
        proc, data, caught, verdict = settle(konform, plugin, cases, seed, workdir, timeout, fast=False)
    return proc, data, caught, verdict, time.monotonic() - start


def settle(konform, plugin, cases, seed, workdir, timeout, fast):
    # The size-derived deadlines, as any backend gets (a fixed short one
    # failed Matmul's largest cases on a loaded machine), but for a row that
    # must hang: konform waits out a hang up to 3 times before it gives up
    # on the op, so a short wait, for ops whose cases take milliseconds.
    if plugin["caught_by"] == "no_hang":
        timeout = timeout or 5
    proc, data, caught = run_one(konform, plugin, cases, seed, workdir, timeout=timeout,
                                 fail_fast=fast and plugin["verdict"] == "fail")
    if plugin["verdict"] != "strict" or proc.returncode != 0:
        verdict = {0: "pass", 1: "fail"}.get(proc.returncode, f"exit {proc.returncode}")  # 3: something not run
        return proc, data, caught, verdict
    strict_proc, strict_data, strict_caught = run_one(konform, plugin, cases, seed, workdir, "strict", timeout,
                                                      fail_fast=fast)
    if strict_proc.returncode == 2:
        sys.exit(f"{plugin['id']}: konform --profile strict failed to run:\n{strict_proc.stderr}{strict_proc.stdout}")
    verdict = "strict" if strict_proc.returncode == 1 else "pass"
    return strict_proc, strict_data, strict_caught, verdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("konform")
    ap.add_argument("plugins_tsv")
    ap.add_argument("out_json")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=None)
    ap.add_argument("--full", action="store_true", help="no --fail-fast: the complete mutant x check matrix")
    args = ap.parse_args()
    if args.jobs < 1:
        sys.exit(f"--jobs must be at least 1, got {args.jobs}")

    plugins = read_plugins(args.plugins_tsv)
    entries, problems = [], []
    with tempfile.TemporaryDirectory() as workdir, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # The rows checked in full (the correct plugins, the strict rows)
        # take the longest: started first, they do not leave one job running
        # alone at the end.
        order = sorted(range(len(plugins)), key=lambda i: plugins[i]["verdict"] == "fail")
        runs = [None] * len(plugins)
        for i in order:
            runs[i] = pool.submit(run_plugin, args.konform, plugins[i], args.cases, args.seed, workdir, args.timeout,
                                  args.full)
        for p, run in zip(plugins, runs):
            proc, data, caught, verdict, seconds = run.result()
            checks = sorted({c["check"] for c in caught})
            spec_check = p["caught_by"]
            entry = {
                "id": p["id"], "library": os.path.basename(p["path"]), "pitfall": p["pitfall"],
                "expected": p["verdict"], "verdict": verdict, "exit_status": proc.returncode,
                "spec_caught_by": None if spec_check == "-" else spec_check,
                # in a stable order: a report lists findings as the children met them
                "caught_by": sorted(caught, key=lambda c: (c["op"], c["check"], c.get("profile", ""))),
            }
            if spec_check != "-":
                entry["spec_check_caught"] = spec_check in checks
            entries.append(entry)
            line = f"{p['id']:<18} {seconds:5.1f}s  expected {p['verdict']:<6} got {verdict:<6}"
            if checks:
                line += "  caught by: " + ", ".join(checks)
            print(line, flush=True)
            if verdict != p["verdict"]:
                shown = "\n".join(l for l in proc.stdout.splitlines() if not l.startswith("SKIP "))
                problems.append(f"{p['id']}: expected verdict {p['verdict']}, got {verdict} "
                                f"(exit {proc.returncode})\n{shown[-3000:]}")
            elif spec_check != "-" and spec_check not in checks:
                problems.append(f"{p['id']}: caught, but not by {spec_check}, the check the spec names "
                                f"(caught by {checks})")
            elif p["ops"] != "-" and verdict != "pass":
                missed = sorted(set(p["ops"].split(",")) - {c["op"] for c in caught})
                if missed:
                    problems.append(f"{p['id']}: not caught on {', '.join(missed)}, which the manifest says "
                                    f"its pitfall reaches")

    matrix = {}
    for e in entries:
        for c in e["caught_by"]:
            matrix.setdefault(c["check"], [])
            if e["id"] not in matrix[c["check"]]:
                matrix[c["check"]].append(e["id"])
    out = {"schema": "konform-mutants/1", "seed": args.seed, "cases_per_op": args.cases, "full": args.full,
           "plugins": entries, "matrix": dict(sorted(matrix.items()))}
    os.makedirs(os.path.dirname(os.path.abspath(args.out_json)), exist_ok=True)
    with open(args.out_json, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(f"wrote {args.out_json}")
    caught = sum(1 for e in entries if e["expected"] == "fail" and e["verdict"] == "fail")
    total = sum(1 for e in entries if e["expected"] == "fail")
    strict = sum(1 for e in entries if e["expected"] == "strict" and e["verdict"] == "strict")
    strict_total = sum(1 for e in entries if e["expected"] == "strict")
    passed = sum(1 for e in entries if e["expected"] == "pass" and e["verdict"] == "pass")
    print(f"mutants caught: {caught} of {total}; caught by the strict profile alone: {strict} of {strict_total}; "
          f"correct plugins passing: {passed} of {len(entries) - total - strict_total}")
    for p in problems:
        print("PROBLEM: " + p, file=sys.stderr)
    n_ok = len(entries) - len(problems)
    print(f"{n_ok} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
