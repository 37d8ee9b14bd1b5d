#!/usr/bin/env python3
"""A SARIF file rendered by konform, validated against the published SARIF
2.1.0 schema (tests/data/sarif-schema-2.1.0.json, OASIS errata01), with one
result per finding of the report it came from.

usage: validate_sarif.py SCHEMA REPORT.json FILE.sarif
"""
import json
import re
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3 has no jsonschema (apt-get install python3-jsonschema)")
    sys.exit(77)

schema_path, report_path, sarif_path = sys.argv[1:4]
schema = json.load(open(schema_path))
sarif = json.load(open(sarif_path))
report = json.load(open(report_path))
jsonschema.Draft4Validator(schema).validate(sarif)
findings = sum(len(r["findings"]) for r in report["results"])
results = sarif["runs"][0]["results"]
if len(results) != findings or findings == 0:
    print(f"FAIL: {len(results)} SARIF results for {findings} findings (the test needs a report with findings)")
    sys.exit(1)
for r in results:
    if not re.match(r"^(/[^ ']+|'/[^']+') (check|repro) ", r["properties"]["reproduce"]):
        print("FAIL: a result without its replay command:", r)
        sys.exit(1)
print(f"{sarif_path}: valid SARIF 2.1.0, {len(results)} result(s) for {findings} finding(s)")
