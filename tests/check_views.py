#!/usr/bin/env python3
"""Checks the JUnit XML and HTML that `konform render` makes from a report:
the XML parses and has one testcase per op and check with the report's
failures; the HTML is one self-contained page with the verdict grid, the plot
and every finding's replay command.

usage: check_views.py REPORT.json JUNIT.xml PAGE.html
"""
import html
import re
import json
import sys
import xml.etree.ElementTree as ET


def short_backend_name(name):
    """As render_junit.cpp: a plugin's library file without directory, lib and .so."""
    if ".so" not in name and "/" not in name:
        return name
    target = ""
    if ".so" in name:
        at = name.index(".so")
        colon = name.find(":", at)
        if colon >= 0:
            name, target = name[:colon], name[colon:]
        name = name[:at]
    name = name.rsplit("/", 1)[-1]
    if name.startswith("lib") and len(name) > 3:
        name = name[3:]
    return name.replace(".", "_") + target


def main():
    report_path, junit_path, html_path = sys.argv[1:4]
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    problems = []

    root = ET.parse(junit_path).getroot()
    cases = root.findall("./testsuite/testcase")
    want_cases = sum(len(r["checks"]) if r["verdict"] not in ("unsupported", "not_run") else 1 for r in report["results"])
    if len(cases) != want_cases:
        problems.append(f"JUnit has {len(cases)} testcases, the report {want_cases} checks")
    # An op not run is a skipped test carrying its reason, never a pass.
    for r in report["results"]:
        if r["verdict"] != "not_run":
            continue
        name = f"konform.{short_backend_name(r['backend'])}.{r['op']}"
        skipped = [c.find("skipped") for c in cases if c.get("classname") == name]
        if not skipped or skipped[0] is None or r["reason"] not in skipped[0].get("message", ""):
            problems.append(f"JUnit lacks a skipped test with the reason for {name}")
    for c in cases:
        if "/" in c.get("classname") or c.get("classname").count(".") != 2:
            problems.append(f"JUnit classname {c.get('classname')!r} is not konform.<backend>.<op>")
    failed_checks = {(r["op"], c["name"]) for r in report["results"] for c in r["checks"] if c["verdict"] == "fail"}
    failures = [c for c in cases if c.find("failure") is not None]
    if len(failures) != len(failed_checks):
        problems.append(f"JUnit has {len(failures)} failures, the report {len(failed_checks)} failing checks")

    with open(html_path, encoding="utf-8") as f:
        page = f.read()
    plotted = any(r["verdict"] not in ("unsupported", "not_run") for r in report["results"])
    for needle in ("<!DOCTYPE html>", "<svg" if plotted else "<h2>", "</html>"):
        if needle not in page:
            problems.append(f"the HTML page lacks {needle}")
    # Self-contained: inline style and script only, nothing fetched.
    if re.search(r"""<(script|link|img|iframe)[^>]*\s(src|href)=""", page) or \
            "http://" in page.replace("http://www.w3.org/2000/svg", "") or "https://" in page:
        problems.append("the HTML page is not self-contained")
    for r in report["results"]:
        for finding in r["findings"]:
            if finding["reproduce"] and html.escape(finding["reproduce"]) not in page:
                problems.append(f"the HTML page lacks the replay command {finding['reproduce']!r}")
        if r["verdict"] == "not_run" and html.escape(r["reason"]) not in page:
            problems.append(f"the HTML page lacks why {r['op']} on {r['backend']} was not run")

    for p in problems:
        print("FAIL: " + p)
    print(f"{1 if not problems else 0} passed, {1 if problems else 0} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
