#!/usr/bin/env python3
"""Validates konform reports against reports/report.schema.json.

  validate_report.py --schema SCHEMA REPORT...
      Each report must satisfy the schema and the consistency rules below.
      Options: --expect-verdict pass|fail|mistrusted|not_run (the summary's verdict),
               --expect-finding CHECK (some result has a finding of CHECK).
  validate_report.py --schema SCHEMA --self-test REPORT
      REPORT must be valid, and each of a list of deliberately broken copies
      of it must be rejected (so a schema that accepts anything fails here);
      a few legal variants (NaN and Infinity as strings, a null worst) must
      still be accepted.

Every error names the place in the JSON, e.g. $.results[2].verdict.
Exit status: 0 valid, 1 invalid, 2 bad usage or unreadable input,
77 skipped (the jsonschema module is missing: apt-get install python3-jsonschema).
"""
import argparse
import copy
import json
import sys

try:
    import jsonschema
    from jsonschema.validators import validator_for
except ImportError:  # pragma: no cover
    print("SKIPPED: the Python module jsonschema is missing "
          "(Debian: apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(77)


def path_of(parts):
    """['results', 2, 'verdict'] -> '$.results[2].verdict'"""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            # JSON has no NaN/Infinity literals; the report writes strings.
            return json.load(f, parse_constant=lambda c: (_ for _ in ()).throw(
                ValueError(f"bare {c} is not JSON (the report must write \"{c}\" as a string)")))
    except (OSError, ValueError) as e:
        print(f"{path}: cannot read JSON: {e}", file=sys.stderr)
        sys.exit(2)


def make_validator(schema_path):
    schema = load_json(schema_path)
    cls = validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"{schema_path}: not a valid JSON Schema at {path_of(e.absolute_path)}: {e.message}", file=sys.stderr)
        sys.exit(2)
    return cls(schema)


def consistency_errors(report):
    """What the schema cannot say: the summary agrees with the results, and
    each verdict with its findings and checks."""
    errors = []
    results = report.get("results", [])
    summary = report.get("summary", {})
    tally = {"results": len(results), "passed": 0, "failed": 0, "unsupported": 0, "not_run": 0, "mistrusted": 0}
    for i, r in enumerate(results):
        where = f"$.results[{i}]"
        v = r.get("verdict")
        if v == "pass":
            tally["passed"] += 1
        elif v == "unsupported":
            tally["unsupported"] += 1
        elif v == "not_run":
            tally["not_run"] += 1
        elif v == "mistrusted":
            tally["mistrusted"] += 1
        else:
            tally["failed"] += 1
        # Findings of a strict-profile check stand beside a passing verdict in a
        # run under the default profile (docs/tolerances.md#profiles).
        counted = report.get("profile", "default") == "strict"
        findings = [f for f in r.get("findings", []) if counted or f.get("profile") != "strict"]
        if v in ("fail", "crashed", "timeout") and not findings:
            errors.append(f"{where}.findings: verdict '{v}' but no finding says why")
        if v in ("pass", "unsupported", "not_run", "mistrusted") and findings:
            errors.append(f"{where}.findings: verdict '{v}' but {len(findings)} finding(s)")
        # An op unsupported for its every valid case (TL_ERR_UNSUPPORTED) ran them.
        ran_unsupported = v == "unsupported" and "unsupported" in r
        if v in ("unsupported", "not_run") and r.get("cases", 0) != 0 and not ran_unsupported:
            errors.append(f"{where}.cases: an op with verdict '{v}' ran {r.get('cases')} cases")
        if "unsupported" in r and r["unsupported"].get("cases", 0) > r.get("cases", 0):
            errors.append(f"{where}.unsupported.cases: more than the {r.get('cases')} cases run")
        if v == "not_run" and r.get("checks"):
            errors.append(f"{where}.checks: an op not run has {len(r['checks'])} check(s)")
        for j, c in enumerate(r.get("checks", [])):
            cw = f"{where}.checks[{j}]"
            failures, runs, cv = c.get("failures", 0), c.get("runs", 0), c.get("verdict")
            if failures > 0 and cv != "fail":
                errors.append(f"{cw}.verdict: '{cv}' with {failures} failure(s)")
            if failures == 0 and runs > 0 and cv not in ("pass", "mistrusted"):
                errors.append(f"{cw}.verdict: '{cv}' with {runs} run(s) and no failure")
            if cv == "mistrusted" and runs == 0:
                errors.append(f"{cw}.verdict: 'mistrusted' with no run")
            if cv == "not_run" and runs != 0:
                errors.append(f"{cw}.verdict: 'not_run' with {runs} run(s)")
            if v == "pass" and cv == "fail" and (counted or c.get("profile") != "strict"):
                errors.append(f"{cw}.verdict: a failing check in a passing result")
            if v == "pass" and cv == "mistrusted":
                errors.append(f"{cw}.verdict: a mistrusted check in a passing result")
        # A mistrusted result names the check whose data could not discriminate.
        if v == "mistrusted" and not any(c.get("verdict") == "mistrusted" for c in r.get("checks", [])):
            errors.append(f"{where}.checks: verdict 'mistrusted' but no check is")
        # A limit may grow with the case's sums (such an op has a strict_limit): the worst element's
        # case limit is the one it met; without a worst element there is nothing to compare.
        worst, tolerance = r.get("worst") or {}, r.get("tolerance", {})
        m = r.get("metrics", {})
        limit = worst.get("limit") if worst else (None if "strict_limit" in tolerance else tolerance.get("limit"))
        max_r = m.get("max_r")
        if v == "pass" and isinstance(max_r, (int, float)) and isinstance(limit, (int, float)) and limit > 0 \
                and max_r > limit:
            errors.append(f"{where}.metrics.max_r: {max_r} exceeds the limit {limit} of a passing result")
    for key, n in tally.items():
        # not_run, mistrusted: absent from reports older than the verdict (then there is none)
        if summary.get(key, 0 if key in ("not_run", "mistrusted") else None) != n:
            errors.append(f"$.summary.{key}: {summary.get(key)!r}, but the results say {n}")
    want = ("fail" if tally["failed"] else "mistrusted" if tally["mistrusted"] else
            "not_run" if tally["not_run"] else "pass")
    if "verdict" in summary and summary["verdict"] != want:
        errors.append(f"$.summary.verdict: '{summary['verdict']}', but the results say '{want}'")
    return errors


def errors_of(validator, report):
    errors = []
    for e in sorted(validator.iter_errors(report), key=lambda e: list(map(str, e.absolute_path))):
        msg = e.message if len(e.message) < 300 else e.message[:300] + "..."
        errors.append(f"{path_of(e.absolute_path)}: {msg}")
    if not errors:  # consistency needs the shape the schema promises
        errors = consistency_errors(report)
    return errors


# Broken copies of a valid report: each must be rejected.
def broken_variants(report):
    def edit(description, fn):
        r = copy.deepcopy(report)
        fn(r)
        return description, r

    first = lambda r: r["results"][0]
    v = [
        edit("a verdict outside the enum ('maybe')", lambda r: first(r).__setitem__("verdict", "maybe")),
        edit("no summary", lambda r: r.pop("summary")),
        edit("summary without its verdict", lambda r: r["summary"].pop("verdict")),
        edit("summary verdict 'PASS' (case matters)", lambda r: r["summary"].__setitem__("verdict", "PASS")),
        edit("an unknown top-level field", lambda r: r.__setitem__("extra", 1)),
        edit("an unknown field in a result", lambda r: first(r).__setitem__("notes", "")),
        edit("an unknown field in the metrics", lambda r: first(r)["metrics"].__setitem__("rmse", 0)),
        edit("a negative case count", lambda r: first(r).__setitem__("cases", -1)),
        edit("the seed as a string", lambda r: r.__setitem__("seed", str(r["seed"]))),
        edit("the schema tag of another format", lambda r: r.__setitem__("schema", "konform-report/2")),
        edit("a creation time that is not ISO 8601", lambda r: r.__setitem__("created", "yesterday")),
        edit("'nan' instead of \"NaN\"", lambda r: first(r)["metrics"].__setitem__("max_r", "nan")),
        edit("'inf' instead of \"Infinity\"", lambda r: first(r)["metrics"].__setitem__("nmse", "inf")),
        edit("a negative max_abs", lambda r: first(r)["metrics"].__setitem__("max_abs", -1.0)),
        edit("\"-Infinity\" as a magnitude", lambda r: first(r)["metrics"].__setitem__("max_ulp", "-Infinity")),
        edit("metrics without nmse", lambda r: first(r)["metrics"].pop("nmse")),
        edit("a check of an unknown kind", lambda r: first(r)["checks"][0].__setitem__("kind", "fuzz")),
        edit("a not_run result without its reason", lambda r: first(r).update(verdict="not_run")),
        edit("a reason on a result that ran", lambda r: first(r).__setitem__("reason", "no device")),
        edit("an empty not_run reason", lambda r: first(r).update(verdict="not_run", reason="")),
        edit("summary not_run below zero", lambda r: r["summary"].__setitem__("not_run", -1)),
        edit("a mistrusted result without its reason", lambda r: first(r).update(verdict="mistrusted")),
        edit("a mistrusted check without its reason",
             lambda r: first(r)["checks"][0].update(verdict="mistrusted", failures=0)),
        edit("a mistrusted result counted as passed",
             lambda r: first(r).update(verdict="mistrusted", reason="all zero", findings=[])),
        edit("summary mistrusted below zero", lambda r: r["summary"].__setitem__("mistrusted", -1)),
        edit("a check verdict outside the enum", lambda r: first(r)["checks"][0].__setitem__("verdict", "ok")),
        edit("a backend of an unknown kind", lambda r: r["backends"][0].__setitem__("kind", "remote")),
        edit("a plugin without its library", lambda r: r["backends"][0].update(kind="plugin", library="")),
        edit("machine without cores", lambda r: r["machine"].pop("cores")),
        edit("build without the compiler", lambda r: r["build"].pop("compiler")),
        edit("findings that are not an array", lambda r: first(r).__setitem__("findings", {})),
        edit("a dtype that does not exist", lambda r: first(r).__setitem__("dtype", "f64")),
        edit("a subnormal policy that does not exist", lambda r: r.__setitem__("subnormals", "ignore")),
        edit("a negative flushed count", lambda r: first(r)["metrics"].__setitem__("flushed", -1)),
        # The consistency rules.
        edit("a summary count that disagrees with the results",
             lambda r: r["summary"].__setitem__("passed", r["summary"]["passed"] + 1)),
        edit("a failing result without a finding", lambda r: first(r).update(verdict="fail", findings=[])),
        edit("a check with failures that says pass",
             lambda r: first(r)["checks"][0].update(failures=1, verdict="pass")),
        edit("a passing result with a finding",
             lambda r: first(r).update(verdict="pass", findings=[{"check": "matches_oracle", "message": "m",
                                                                  "case": 0, "case_label": "", "reproduce": ""}])),
    ]
    with_worst = [i for i, r in enumerate(report["results"]) if r.get("worst")]
    if with_worst:
        k = with_worst[0]
        v += [
            edit("a worst finding with 'expected' but no 'got'",
                 lambda r: r["results"][k]["worst"].pop("got")),
            edit("a worst finding without its check", lambda r: r["results"][k]["worst"].pop("check")),
            edit("a finding whose case is below -1", lambda r: r["results"][k]["worst"].__setitem__("case", -2)),
            edit("a reproducer that is not a konform command",
                 lambda r: r["results"][k]["worst"].__setitem__("reproduce", "rm -rf /")),
            edit("an element that is not an index", lambda r: r["results"][k]["worst"].__setitem__("element", "1,1")),
            edit("a finding of an unknown cause", lambda r: r["results"][k]["worst"].__setitem__("cause", "payload")),
            edit("a finding counted in no case", lambda r: r["results"][k]["worst"].__setitem__("cases", 0)),
        ]
    return v


# Legal variants: each must still be accepted.
def legal_variants(report):
    def edit(description, fn):
        r = copy.deepcopy(report)
        fn(r)
        return description, r

    first = lambda r: r["results"][0]
    v = [
        edit("NMSE \"Infinity\" and max_rel \"NaN\"",
             lambda r: first(r)["metrics"].update(nmse="Infinity", max_rel="NaN")),
        edit("no worst (null)", lambda r: first(r).__setitem__("worst", None)),
        edit("no os in machine", lambda r: r["machine"].pop("os", None)),
        edit("no summary.not_run (a report older than that verdict)", lambda r: r["summary"].pop("not_run", None)),
        edit("no summary.mistrusted (a report older than that verdict)",
             lambda r: r["summary"].pop("mistrusted", None)),
        edit("a plugin backend", lambda r: r["backends"][0].update(kind="plugin", library="./libtheirs.so")),
        edit("no subnormal policy (a report older than it)", lambda r: r.pop("subnormals", None)),
        edit("no mismatch counts in the metrics (a report older than them)",
             lambda r: [first(r)["metrics"].pop(k, None) for k in ("nan_mismatches", "inf_mismatches", "flushed")]),
        edit("the flush policy", lambda r: r.__setitem__("subnormals", "flush")),
    ]
    with_worst = [i for i, r in enumerate(report["results"]) if r.get("worst") and "expected" in r["worst"]]
    if with_worst:
        k = with_worst[0]
        v.append(edit("an expected value of \"-Infinity\"",
                      lambda r: r["results"][k]["worst"].update(expected="-Infinity", error="Infinity")))
    return v


def self_test(validator, path):
    report = load_json(path)
    bad = errors_of(validator, report)
    if bad:
        print(f"{path}: the report itself is invalid:", *bad, sep="\n  ", file=sys.stderr)
        return 1
    status = 0
    for description, variant in broken_variants(report):
        errs = errors_of(validator, variant)
        if errs:
            print(f"rejected as it must be: {description}: {errs[0]}")
        else:
            print(f"FAIL: accepted a broken report: {description}", file=sys.stderr)
            status = 1
    for description, variant in legal_variants(report):
        errs = errors_of(validator, variant)
        if errs:
            print(f"FAIL: rejected a legal report: {description}:", *errs, sep="\n  ", file=sys.stderr)
            status = 1
        else:
            print(f"accepted as it must be: {description}")
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--expect-verdict", choices=["pass", "fail", "mistrusted", "not_run"])
    ap.add_argument("--expect-finding", metavar="CHECK")
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()
    validator = make_validator(args.schema)
    if args.self_test:
        return max(self_test(validator, p) for p in args.reports)
    status = 0
    for path in args.reports:
        report = load_json(path)
        errors = errors_of(validator, report)
        if not errors and args.expect_verdict and report["summary"]["verdict"] != args.expect_verdict:
            errors.append(f"$.summary.verdict: '{report['summary']['verdict']}', expected '{args.expect_verdict}'")
        if not errors and args.expect_finding:
            checks = [f["check"] for r in report["results"] for f in r["findings"]]
            if args.expect_finding not in checks:
                errors.append(f"$.results[*].findings: no finding of '{args.expect_finding}' (found {checks})")
        if errors:
            print(f"{path}: INVALID ({len(errors)} error(s)):", *errors, sep="\n  ", file=sys.stderr)
            status = 1
        else:
            n = len(report["results"])
            print(f"{path}: valid ({n} result(s), verdict {report['summary']['verdict']})")
    return status


if __name__ == "__main__":
    sys.exit(main())
