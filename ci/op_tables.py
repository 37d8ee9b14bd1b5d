#!/usr/bin/env python3
"""The op tables of the docs, derived from the catalog.

    op_tables.py KONFORM [--write]

Generated, between <!-- op-table:NAME --> and <!-- /op-table --> lines:
  catalog  README.md: every header's ops, from `konform list --format json`
  cuda     docs/cuda.md: the ops libtl_cuda exports (impl/cuda/exports.map)
Checked, since the ops' pages are prose: each docs/ops-*.md names every op
of its header.

Without --write it changes nothing and exits 1 when a table has drifted,
printing what differs and the command that regenerates the tables.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A header's doc where it is not docs/ops-<header>.md.
DOC_OF = {"elementwise": "docs/spec/elementwise-kernels.txt", "quant": "docs/ops-linalg.md"}
BEGIN = re.compile(r"^<!-- op-table:([a-z_]+) -->$")
END = "<!-- /op-table -->"


def catalog(konform):
    out = subprocess.run([konform, "list", "--format", "json"], check=True, capture_output=True, text=True).stdout
    ops = json.loads(out)
    headers = {}
    for op in ops:
        headers.setdefault(op["family"], []).append(op)
    return ops, headers


def doc_of(header):
    if header in DOC_OF:
        return DOC_OF[header]
    return f"docs/ops-{header.replace('_', '-')}.md"


def names(ops):
    return ", ".join(op["name"] for op in ops)


def catalog_table(ops, headers, link_prefix):
    rows = [f"{len(ops)} ops in f32:", "",
            "| header | ops | doc |", "|---|---|---|"]
    for header, hops in headers.items():
        doc = doc_of(header)
        rows.append(f"| `{header}.h` | {names(hops)} | [{Path(doc).name}]({link_prefix}{doc}) |")
    return rows


def cuda_table(headers):
    text = (ROOT / "impl/cuda/exports.map").read_text()
    exported = set(re.findall(r"^\s+(tl_[a-z0-9_]+);", text, re.M))
    rows = ["| header | ops libtl_cuda exports | not in it |", "|---|---|---|"]
    for header, hops in headers.items():
        have = [op for op in hops if op["symbol"] in exported]
        lack = [op for op in hops if op["symbol"] not in exported]
        rows.append(f"| `tinyllm/{header}.h` | {names(have) or '-'} | {names(lack) or '-'} |")
    return rows


def regenerate(path, tables):
    lines = path.read_text().split("\n")
    out, i, seen = [], 0, set()
    while i < len(lines):
        out.append(lines[i])
        m = BEGIN.match(lines[i])
        if m:
            name = m.group(1)
            if name not in tables:
                sys.exit(f"{path}:{i + 1}: no op table named '{name}' (known: {', '.join(sorted(tables))})")
            end = next((j for j in range(i + 1, len(lines)) if lines[j] == END), None)
            if end is None:
                sys.exit(f"{path}:{i + 1}: op table '{name}' has no closing {END}")
            out.extend(tables[name])
            seen.add(name)
            i = end
            out.append(lines[i])
        i += 1
    missing = set(tables) - seen
    if missing:
        sys.exit(f"{path}: no <!-- op-table:{sorted(missing)[0]} --> marker")
    return "\n".join(out)


def family_doc_problems(headers):
    problems = []
    for header, hops in headers.items():
        doc = ROOT / doc_of(header)
        if doc.suffix != ".md" or header == "quant":
            continue  # the contract's spec text; quant.h shares linalg's page
        want = {op["name"] for op in hops}
        if header == "linalg":
            want |= {op["name"] for op in headers.get("quant", [])}
        named = set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", doc.read_text()))
        lacking = sorted(want - named)
        if lacking:
            problems.append(f"{doc.relative_to(ROOT)} does not name {', '.join(lacking)}, of {header}.h")
    return problems


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    write = "--write" in sys.argv[2:]
    ops, headers = catalog(sys.argv[1])
    files = {ROOT / "README.md": {"catalog": catalog_table(ops, headers, "")},
             ROOT / "docs/cuda.md": {"cuda": cuda_table(headers)}}
    drifted = []
    for path, tables in files.items():
        now, want = path.read_text(), regenerate(path, tables)
        if now != want:
            drifted.append(path.relative_to(ROOT))
            if write:
                path.write_text(want)
    problems = family_doc_problems(headers)
    for p in problems:
        print("op-tables:", p)
    if drifted and not write:
        print("op-tables: out of date:", ", ".join(map(str, drifted)))
        print(f"fix: python3 ci/op_tables.py {sys.argv[1]} --write")
    if (drifted and not write) or problems:
        sys.exit(1)
    print(f"op-tables: {len(ops)} ops, {len(headers)} headers: the tables match the catalog"
          + (f" (rewrote {', '.join(map(str, drifted))})" if drifted and write else ""))


if __name__ == "__main__":
    main()
