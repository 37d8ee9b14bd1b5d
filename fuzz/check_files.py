#!/usr/bin/env python3
"""The files konform reads, replayed through `konform repro` and friends:

- every fixture (fixtures/cases/*.json) conforms on scalar and on every SIMD target;
- every regression (fuzz/regressions/*.json) conforms there too, and still
  fails on the plugin it was found on (when --plugins names the built plugins);
- `konform check --repro-dir` on two mutants writes reproducers of the sweep
  and of RapidCheck's shrunk counterexamples that fail on the mutant and pass
  on scalar;
- every malformed file of fixtures/malformed/expected.tsv is refused with exit
  status 2 and its expected message, never a crash (a report by `konform
  render`, before it writes any view).

usage: check_files.py KONFORM --source DIR [--plugins PLUGINS_TSV]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def plugin_paths(tsv):
    paths = {}
    if not tsv:
        return paths
    with open(tsv, encoding="utf-8") as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    header = lines[0]
    for fields in lines[1:]:
        row = dict(zip(header, fields))
        paths[os.path.basename(row["path"])] = row["path"]
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("konform")
    ap.add_argument("--source", required=True)
    ap.add_argument("--plugins")
    args = ap.parse_args()
    problems, checked = [], 0

    def expect(cmd, status, what, fragment=None):
        nonlocal checked
        checked += 1
        p = run(cmd)
        out = p.stdout + p.stderr
        if p.returncode != status or (fragment and fragment not in out):
            problems.append(f"{what}: expected exit {status}" + (f" and '{fragment}'" if fragment else "") +
                            f", got {p.returncode}:\n  $ {' '.join(cmd)}\n" + out[-1500:])

    fixtures = sorted(glob.glob(os.path.join(args.source, "fixtures/cases/*.json")))
    regressions = sorted(glob.glob(os.path.join(args.source, "fuzz/regressions/*.json")))
    if not fixtures:
        problems.append("no fixtures in fixtures/cases")
    for f in fixtures + regressions:
        expect([args.konform, "repro", f, "--backend", "scalar", "--backend", "simd:all"], 0, f)

    plugins = plugin_paths(args.plugins)
    for f in regressions:
        with open(f, encoding="utf-8") as fh:
            backend = json.load(fh).get("backend", "")
        lib = os.path.basename(backend.split(":")[0])
        if lib.endswith(".so") and plugins:
            if lib not in plugins:
                problems.append(f"{f}: found on {backend}, which is not among the built plugins")
                continue
            expect([args.konform, "repro", f, "--backend", plugins[lib]], 1, f + " on " + lib)

    # `check --repro-dir` on mutants: the sweep's and RapidCheck's findings
    # become reproducers that fail on the mutant and pass on scalar.
    for mutant, op in (("libkonform_mutant_s01.so", "elementwise_rmsnorm"), ("libkonform_mutant_s12.so", "elementwise_argmax")):
        if mutant not in plugins:
            continue
        with tempfile.TemporaryDirectory() as d:
            expect([args.konform, "check", "--backend", plugins[mutant], "--op", op, "--cases", "40",
                    "--property-runs", "30", "--repro-dir", d], 1, f"check --repro-dir on {mutant}")
            written = sorted(glob.glob(os.path.join(d, "*.json")))
            sources = set()
            for f in written:
                with open(f, encoding="utf-8") as fh:
                    sources.add(json.load(fh)["source"])
                expect([args.konform, "repro", f], 1, f"{f} (from {mutant}) on its mutant")
                expect([args.konform, "repro", f, "--backend", "scalar"], 0, f"{f} (from {mutant}) on scalar")
            if not {"sweep", "property"} <= sources:
                problems.append(f"check --repro-dir on {mutant} wrote {sorted(sources)}, not sweep and property")

    with open(os.path.join(args.source, "fixtures/malformed/expected.tsv"), encoding="utf-8") as fh:
        rows = [l.rstrip("\n").split("\t") for l in fh if l.strip() and not l.startswith("#")]
    for name, reader, fragment in rows:
        path = os.path.join(args.source, "fixtures/malformed", name)
        if reader == "repro":
            cmd = [args.konform, "repro", path, "--backend", "scalar"]
        elif reader == "render":
            # Refused before any view is written.
            with tempfile.TemporaryDirectory() as d:
                views = [os.path.join(d, "r.xml"), os.path.join(d, "r.html")]
                expect([args.konform, "render", path, "--junit", views[0], "--html", views[1]], 2, path, fragment)
                if any(os.path.exists(v) for v in views):
                    problems.append(f"{path}: render wrote a view of a report it refused")
            continue
        else:
            cmd = [args.konform, "check", "--backend", "scalar", "--op", "elementwise_add", "--cases", "1", "--no-properties",
                   "--tolerances", path]
        expect(cmd, 2, path, fragment)

    for p in problems:
        print("PROBLEM: " + p, file=sys.stderr)
    print(f"{checked - len(problems)} of {checked} file checks passed "
          f"({len(fixtures)} fixtures, {len(regressions)} regressions, {len(rows)} malformed files)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
