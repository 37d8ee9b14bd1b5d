#!/usr/bin/env python3
"""Runs `konform check` on a peer adapter and compares its findings with the
peer's reviewed list (expected-findings.tsv).

    check_expected.py KONFORM ADAPTER.so EXPECTED.tsv REPORT.json

A finding is an (op, check) pair: a check whose verdict is fail, or the op's
own verdict when it crashed or timed out. The test fails on a finding that is
not on the list (a new defect of the peer, or konform grown stricter: either
must be looked at) and on a listed finding that no longer occurs (the list
must stay true). The run is bounded and seeded (RUN below) so it takes the
same cases every time.
"""
import json
import subprocess
import sys

# The same seed and case count on every run: the list is a statement about
# these cases. 22 sweep cases stop before Matmul's 11008 x 4096 weights (most
# of a run's time), and 25 runs per property keep a peer's run near a minute
# of CPU. --flush-subnormals: both peers flush subnormals by design (XNNPACK
# disables denormals around every operator, oneDNN's JIT injectors flush), so
# they are judged as FTZ/DAZ builds (docs/tolerances.md, "Subnormals"); a
# flushed subnormal is counted, not a finding, and every other defect stays one.
RUN = ["--seed", "26", "--cases", "22", "--property-runs", "25", "--flush-subnormals"]
CLASSES = {"peer", "harness"}


def read_expected(path):
    expected = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 5 or cols[2] not in CLASSES or not cols[3] or not cols[4]:
                sys.exit(f"{path}:{n}: want 5 tab-separated columns op, check, class ({'/'.join(sorted(CLASSES))}), "
                         f"cause, why; got {cols!r}")
            key = (cols[0], cols[1])
            if key in expected:
                sys.exit(f"{path}:{n}: {key[0]} {key[1]} is listed twice")
            expected[key] = cols[2:]
    return expected


def findings(report):
    found = {}
    for r in report["results"]:
        if r["verdict"] in ("crashed", "timeout"):
            found[(r["op"], r["verdict"])] = r.get("reason", r["verdict"])
        for c in r.get("checks", []):
            # The lists hold the default profile's findings; the strict
            # profile's are shown by konform but fail no default run.
            if c["verdict"] == "fail" and c.get("profile") != "strict":
                first = next((f for f in r.get("findings", []) if f["check"] == c["name"]), None)
                found[(r["op"], c["name"])] = first["message"] if first else f"{c['failures']} of {c['runs']} failed"
    return found


def compare(found, expected):
    """The findings not on the list, and the listed ones not found."""
    return sorted(set(found) - set(expected)), sorted(set(expected) - set(found))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    konform, adapter, expected_path, report_path = sys.argv[1:]
    expected = read_expected(expected_path)
    cmd = [konform, "check", "--backend", adapter, "--report", report_path] + RUN
    print("running:", " ".join(cmd), flush=True)
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"konform exited {rc} without a readable report {report_path}: {e}")
    found = findings(report)
    s = report["summary"]
    print(f"konform exited {rc}: {s['results']} ops, {s['passed']} passed, {s['failed']} failed, "
          f"{s['unsupported']} unsupported")
    new, gone = compare(found, expected)
    for key in sorted(found):
        label = expected[key][0] if key in expected else "NEW"
        print(f"  {label:8} {key[0]:18} {key[1]:40} {found[key][:160]}")
    for op, check in new:
        print(f"FAIL: {op} {check} is not on {expected_path}: a new defect of the peer, or konform grown "
              f"stricter (look before listing it)")
    for op, check in gone:
        print(f"FAIL: {op} {check} is listed ({expected[(op, check)][0]}) but no longer found: take it off "
              f"{expected_path}")
    if not found and rc != 0:
        sys.exit(f"konform exited {rc} with no failing check")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
