#!/usr/bin/env python3
"""The op tables of the docs, derived from the catalog.

    op_tables.py KONFORM CUDA_EMULATED [--write]

CUDA_EMULATED: libkonform_cuda_emulated.so (build/tests/), libtl_cuda's
sources built for the CPU, which exports what libtl_cuda does (the test
cuda.symbols holds them equal where libtl_cuda is built).

Generated, between <!-- op-table:NAME --> and <!-- /op-table --> lines:
  catalog  README.md: every header's ops, from `konform list --format json`
  cuda     docs/cuda.md: the ops libtl_cuda exports, from
           `konform list --backend CUDA_EMULATED --format json`
Generated whole: reference/tolerances.tsv, the built-in tolerance table (the
ops' declared rules), from `konform list --tolerances`; from the ABI's
headers, include/tinyllm/cuda/<header>.h, the device-pointer twin of every
function of include/tinyllm/<header>.h (tl_X_dev: tl_X's parameters and a
stream; kv_cache.h's table and stream.h are written by hand), and
tests/cuda_dev_signatures.cpp, which holds each twin to its function's type.
  ops      docs/ops-<header>.md: each op of the header (quant.h's on
           linalg's page), its C function with the header's parameter
           names, what it computes, how it is judged and whether it refuses
           bad arguments, from the catalog and the headers

Without --write it changes nothing and exits 1 when a table has drifted,
printing what differs and the command that regenerates the tables.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "impl/scalar"))
from generate_exports import SERVICES, declarations  # noqa: E402  the headers' one parser

# Headers without generated twins: the KV cache is a table of functions,
# whose device table tinyllm/cuda/kv_cache.h declares by hand.
TWINLESS = {"kv_cache.h"}
# A header's doc where it is not docs/ops-<header>.md.
DOC_OF = {"elementwise": "docs/spec/elementwise-kernels.txt", "quant": "docs/ops-linalg.md"}
BEGIN = re.compile(r"^<!-- op-table:([a-z_]+) -->$")
END = "<!-- /op-table -->"


def catalog(konform, backend=None):
    command = [konform, "list", "--format", "json"] + (["--backend", backend] if backend else [])
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
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
    by_dtype = {}
    for op in ops:
        by_dtype[op["dtype"]] = by_dtype.get(op["dtype"], 0) + 1
    counts = ", ".join(f"{n} in {t}" for t, n in sorted(by_dtype.items(), key=lambda kv: -kv[1]))
    rows = [f"{len(ops)} ops ({counts}):", "",
            "| header | ops | doc |", "|---|---|---|"]
    for header, hops in headers.items():
        doc = doc_of(header)
        rows.append(f"| `{header}.h` | {names(hops)} | [{Path(doc).name}]({link_prefix}{doc}) |")
    return rows


def cuda_table(headers, exported):
    rows = ["| header | ops libtl_cuda exports | not in it |", "|---|---|---|"]
    for header, hops in headers.items():
        have = [op for op in hops if op["symbol"] in exported]
        lack = [op for op in hops if op["symbol"] not in exported]
        rows.append(f"| `tinyllm/{header}.h` | {names(have) or '-'} | {names(lack) or '-'} |")
    return rows


def cell(text):
    return text.replace("|", "\\|")


def ops_table(hops, parameters):
    rows = ["| op | C function | computes | judged (u = 2^-24; n: the case's longest sum) | refuses bad arguments |",
            "|---|---|---|---|---|"]
    for op in hops:
        call = f"`{op['symbol']}({', '.join(parameters[op['symbol']])})`"
        tolerance = op["tolerance"]
        judged = "by the op's own checks" if op["verify"] else "bit for bit"
        if tolerance:
            default, _, strict = tolerance["text"].partition("; strict ")
            judged = f"{default} u" + (f" (strict: {strict} u)" if strict else "")
        refuses = "yes" if any(a["name"] == "status" for a in op["args"]) else "no"
        rows.append(f"| {op['name']} | {call} | {cell(op['summary'])} | {judged} | {refuses} |")
    return rows


def header_parameters():
    """Each tl_* function of the ABI's headers: its parameters' names."""
    return {name: args for h in sorted((ROOT / "include/tinyllm").glob("*.h")) if h.name not in SERVICES
            for _, name, _, args in declarations(h)}


def page_tables(headers):
    """docs/ops-*.md: the op table of the headers each page documents."""
    parameters, pages = header_parameters(), {}
    for header, hops in headers.items():
        doc = doc_of(header)
        if doc.endswith(".md"):
            pages.setdefault(ROOT / doc, []).extend(hops)
    return {page: {"ops": ops_table(hops, parameters)} for page, hops in pages.items()}


def clang_format(text, path):
    tool = "clang-format-14"
    return subprocess.run([tool, "--style=file", f"--assume-filename={path}"], input=text, check=True,
                          capture_output=True, text=True, cwd=ROOT).stdout


def twin_headers():
    """include/tinyllm/cuda/<header>.h for each header of ops, and the
    signature test's source, as they should read."""
    files, twins = {}, []
    for header in sorted((ROOT / "include/tinyllm").glob("*.h")):
        decls = list(declarations(header))
        if header.name in SERVICES or header.name in TWINLESS or not decls:
            continue
        guard = f"TINYLLM_CUDA_{header.stem.upper()}_H"
        lines = [f"/* tinyllm/cuda/{header.name}: the device-pointer twins of tinyllm/{header.name}",
                 " * (generated from it by ci/op_tables.py).",
                 " *",
                 f" * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/{header.name}",
                 " * gives, plus the stream its work is enqueued on; the contract (device",
                 " * pointers for tensor data, host pointers for parameters, asynchrony) is",
                 " * tinyllm/cuda/stream.h's. */",
                 f"#ifndef {guard}", f"#define {guard}", "", "#include <stdint.h>", "",
                 f'#include "tinyllm/{header.name}"', '#include "tinyllm/cuda/stream.h"', "",
                 "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
        for ret, name, params, _ in decls:
            params = "" if params in ("", "void") else params + ", "
            lines.append(f"{ret} {name}_dev({params}tl_cuda_stream stream);")
            twins.append(name)
        lines += ["", "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
        path = f"include/tinyllm/cuda/{header.name}"
        files[ROOT / path] = clang_format("\n".join(lines), path)
    includes = [f'#include "tinyllm/cuda/{p.name}"' for p in sorted(files)]
    test = ["// Generated by ci/op_tables.py from include/tinyllm/*.h: every function of",
            "// tinyllm/<header>.h has its twin in tinyllm/cuda/<header>.h with the same",
            "// parameters plus a trailing tl_cuda_stream and the same return type,",
            "// checked at compile time (cuda_symbols_test.sh checks that the libraries",
            "// export every twin).",
            "#include <type_traits>", ""] + includes + [
            "", "namespace {", "", "template <class F>", "struct WithStream;", "template <class R, class... P>",
            "struct WithStream<R(P...)> {", "  using type = R(P..., tl_cuda_stream);", "};", "",
            "}  // namespace", "",
            "#define TWIN(fn) \\",
            '  static_assert(std::is_same_v<decltype(fn##_dev), WithStream<decltype(fn)>::type>, #fn "_dev does not match " #fn);',
            ""] + [f"TWIN({t})" for t in twins] + [""]
    path = "tests/cuda_dev_signatures.cpp"
    files[ROOT / path] = clang_format("\n".join(test), path)
    return files


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


def main():
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        sys.exit(__doc__)
    write = "--write" in sys.argv[1:]
    ops, headers = catalog(args[0])
    served, _ = catalog(args[0], args[1])
    cuda_symbols = {op["symbol"] for op in served}
    files = {ROOT / "README.md": {"catalog": catalog_table(ops, headers, "")},
             ROOT / "docs/cuda.md": {"cuda": cuda_table(headers, cuda_symbols)}}
    files.update(page_tables(headers))
    wanted = {path: regenerate(path, tables) for path, tables in files.items()}
    wanted[ROOT / "reference/tolerances.tsv"] = subprocess.run(
        [args[0], "list", "--tolerances"], check=True, capture_output=True, text=True).stdout
    wanted.update(twin_headers())
    drifted = []
    for path, want in wanted.items():
        now = path.read_text()
        if now != want:
            drifted.append(path.relative_to(ROOT))
            if write:
                path.write_text(want)
    if drifted and not write:
        print("op-tables: out of date:", ", ".join(map(str, drifted)))
        print(f"fix: python3 ci/op_tables.py {args[0]} {args[1]} --write")
    if drifted and not write:
        sys.exit(1)
    print(f"op-tables: {len(ops)} ops, {len(headers)} headers: the tables and the device twins' headers match"
          + (f" (rewrote {', '.join(map(str, drifted))})" if drifted and write else ""))


if __name__ == "__main__":
    main()
