#!/usr/bin/env python3
"""Prints a peer's conformance table (Markdown) for docs/peers.md.

    peer_table.py REPORT.json EXPECTED.tsv

One row per op the adapter exports: pass, or fail with each failing check
and its cause and class from the reviewed list (check_expected.py's
EXPECTED.tsv); then one line naming the ops it does not export (unsupported).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import read_expected  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    report = json.load(open(sys.argv[1], encoding="utf-8"))
    expected = read_expected(sys.argv[2])
    results = sorted(report["results"], key=lambda r: r["op"].lower())
    print("| op | verdict | failing checks: class, cause |")
    print("|---|---|---|")
    for r in results:
        if r["verdict"] == "unsupported":
            continue
        checks = [c for c in r.get("checks", []) if c["verdict"] == "fail"]
        failing = [c["name"] for c in checks if c.get("profile") != "strict"]
        if r["verdict"] in ("crashed", "timeout"):
            failing.append(r["verdict"])
        causes = []
        for check in failing:
            cls, cause, _ = expected.get((r["op"], check), ("UNLISTED", "not on the reviewed list", ""))
            causes.append(f"`{check}`: {cls}, {cause}")
        # The lists hold the default profile's findings (check_expected.py).
        causes += [f"`{c['name']}`: strict profile only" for c in checks if c.get("profile") == "strict"]
        print(f"| {r['op']} | {r['verdict']} | {'<br>'.join(causes)} |")
    unsupported = [r["op"] for r in results if r["verdict"] == "unsupported"]
    print(f"\nUnsupported (not exported, {len(unsupported)}): {', '.join(unsupported)}.")


if __name__ == "__main__":
    main()
