#!/usr/bin/env python3
"""The comparison of check_expected.py can fail both ways: a finding not on
the list, a listed finding that is gone; and it refuses a malformed list."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_expected as ce  # noqa: E402

REPORT = {"results": [
    {"op": "Relu", "verdict": "fail", "findings": [{"check": "matches_oracle", "message": "NaN -> 0"}],
     "checks": [{"name": "matches_oracle", "verdict": "fail", "runs": 1, "failures": 1},
                {"name": "hand_example", "verdict": "pass", "runs": 1, "failures": 0}]},
    {"op": "Pool", "verdict": "crashed", "reason": "signal 11", "checks": []},
    {"op": "Tanh", "verdict": "pass", "checks": [{"name": "matches_oracle", "verdict": "pass", "runs": 1,
                                                  "failures": 0}]},
]}
ROW = "{}\t{}\tpeer\tcause\twhy\n"


def tsv(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
    f.write("# op\tcheck\tclass\tcause\twhy\n" + text)
    f.close()
    return f.name


def main():
    found = ce.findings(REPORT)
    assert set(found) == {("Relu", "matches_oracle"), ("Pool", "crashed")}, found
    both = ce.read_expected(tsv(ROW.format("Relu", "matches_oracle") + ROW.format("Pool", "crashed")))
    assert ce.compare(found, both) == ([], []), "the list that matches must pass"
    one = ce.read_expected(tsv(ROW.format("Relu", "matches_oracle")))
    assert ce.compare(found, one) == ([("Pool", "crashed")], []), "a finding not listed must fail"
    extra = ce.read_expected(tsv(ROW.format("Relu", "matches_oracle") + ROW.format("Pool", "crashed") +
                                 ROW.format("Tanh", "matches_oracle")))
    assert ce.compare(found, extra) == ([], [("Tanh", "matches_oracle")]), "a listed finding gone must fail"
    for bad in ("Relu\tmatches_oracle\tmaybe\tcause\twhy\n", "Relu\tmatches_oracle\tpeer\tcause\n",
                ROW.format("Relu", "x") * 2):
        r = subprocess.run([sys.executable, "-c", f"import check_expected as c; c.read_expected({tsv(bad)!r})"],
                           cwd=os.path.dirname(os.path.abspath(__file__)), capture_output=True, text=True)
        assert r.returncode != 0 and r.stderr, f"a malformed list must be refused: {bad!r}"
    print("check_expected: matches pass, new and gone findings fail, malformed lists are refused")


if __name__ == "__main__":
    main()
