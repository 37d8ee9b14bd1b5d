#!/usr/bin/env python3
"""Runs the benchmarks that issues 4 and 5 name and prints each figure beside
its goal (docs/perf-goals.md), so every machine is measured the same way.

  python3 bench/goals.py [--build DIR] [--runs N] [--only 4|5] [--json FILE]

The single-thread benches run pinned to CPU 0 (taskset) when taskset exists;
the linalg bench runs unpinned (it measures two threads too). With --runs N
each binary runs N times and a figure is judged by its median, the range
printed beside it: these guests move a ratio by 5-15 points between runs.
No figure is asserted anywhere; this prints, it does not test.
"""
import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

# Issue 4: memory-bound kernels at >= 80 % of the same-run reference moving
# the same bytes. The transcendental activations, Rope_cache and
# SinusoidalEmbed are bound by their arithmetic where their data sits in L1
# or L2 (docs/ops-activations.md, docs/ops-pos.md): reported, not judged.
BANDWIDTH_GOAL = 80.0
ISSUE4_BENCHES = ["konform_bench", "konform_norm_bench", "konform_tensor_bench", "konform_pos_bench",
                  "konform_act_bench"]
COMPUTE_BOUND = re.compile(r"^(silu_mul|Silu|Gelu_erf|Gelu_tanh|Sigmoid|Tanh|SwiGlu|GeGlu_erf|GeGlu_tanh|Glu|"
                           r"Rope_cache|SinusoidalEmbed)/")

# Issue 4: at least 2x llama.cpp's CPU backend (the issue's figures and
# shared/anchors/performance.md, GB/s on a Zen 4; the larger where a range).
LLAMA_CPP = [
    ("konform_norm_bench", "RmsNorm/simd/32x4096", 8.9),
    ("konform_norm_bench", "LayerNorm/simd/32x4096", 8.3),
    ("konform_bench", "argmax/simd/128256", 7.3),
    ("konform_act_bench", "Gelu_erf/simd/32x4096", 1.1),
    ("konform_act_bench", "Gelu_tanh/simd/32x4096", 3.3),
    ("konform_act_bench", "Softmax/simd/16384x512", 8.0),
    ("konform_act_bench", "Silu/simd/32x4096", 30.0),
    ("konform_act_bench", "SwiGlu/simd/32x4096", 42.0),
]

# Issue 5: (binary, benchmark name prefix, counter, goal, strictly above).
ISSUE5 = [
    ("konform_linalg_bench", "BM_Sgemm/M:2048/N:2048/K:2048/threads:1", "pct_of_blis", 90.0, False),
    ("konform_linalg_bench", "BM_Sgemm/M:2048/N:2048/K:2048/threads:2", "pct_of_blis", 90.0, False),
    ("konform_linalg_bench", "BM_Sgemm/M:32/N:4096/K:4096/threads:1", "pct_of_blis", 90.0, False),
    ("konform_linalg_bench", "BM_Sgemm/M:32/N:4096/K:4096/threads:2", "pct_of_blis", 90.0, False),
    ("konform_linalg_bench", "BM_Gemv/N:4096/K:4096/threads:1", "pct_of_bw", 85.0, False),
    ("konform_linalg_bench", "BM_Gemv/N:4096/K:4096/threads:2", "pct_of_bw", 85.0, False),
    ("konform_linalg_bench", "BM_Gemv/N:11008/K:4096/threads:1", "pct_of_bw", 85.0, False),
    ("konform_linalg_bench", "BM_Gemv/N:11008/K:4096/threads:2", "pct_of_bw", 85.0, False),
    ("konform_attention_bench", "BM_FlashPrefill/S:512/causal:0", "flash_pct_of_peak", 60.0, True),
    # K and V cycled past the last-level cache: the memory bandwidth the goal names.
    ("konform_attention_bench", "BM_DecodeAttention/Sk:4096/from_memory:1", "flash_pct_of_bw", 85.0, False),
    ("konform_attention_bench", "BM_DecodeAttention/Sk:8192/from_memory:1", "flash_pct_of_bw", 85.0, False),
]
ISSUE5_FILTERS = {"konform_linalg_bench": "BM_Sgemm|BM_Gemv", "konform_attention_bench": ""}


def run_bench(build, binary, pinned, bench_filter=""):
    """One run of a bench binary: {benchmark name: its JSON entry}."""
    exe = Path(build) / "bench" / binary
    if not exe.is_file():
        sys.exit(f"goals.py: {exe} not found: build the benches first (bash ci/build.sh)")
    cmd = [str(exe), "--benchmark_format=json"]
    if binary in ISSUE4_BENCHES:
        cmd.append("--benchmark_min_time=0.2")
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    if pinned and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0"] + cmd
    print(f"goals.py: {' '.join(cmd)}", file=sys.stderr, flush=True)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"goals.py: {binary} exited with {out.returncode}:\n{out.stderr[-2000:]}")
    try:
        data = json.loads(out.stdout)
    except json.JSONDecodeError as e:
        sys.exit(f"goals.py: {binary} printed no valid JSON ({e})")
    return {b["name"]: b for b in data.get("benchmarks", [])}


def runs_of(build, binary, n, pinned, bench_filter=""):
    return [run_bench(build, binary, pinned, bench_filter) for _ in range(n)]


def values(runs, prefix, counter):
    """The counter of the benchmark whose name starts with prefix, per run."""
    out = []
    for r in runs:
        for name, b in r.items():
            if (name == prefix or name.startswith(prefix + "/")) and counter in b:
                out.append(float(b[counter]))
                break
    return out


def fmt(vals, unit=""):
    if not vals:
        return "not run"
    med = statistics.median(vals)
    if len(vals) == 1:
        return f"{med:.1f}{unit}"
    return f"{med:.1f}{unit} ({min(vals):.1f}-{max(vals):.1f})"


def verdict(vals, goal, strict):
    if not vals:
        return "not run"
    med = statistics.median(vals)
    ok = med > goal if strict else med >= goal
    return "met" if ok else "missed"


def issue4(build, n, report):
    runs = {b: runs_of(build, b, n, True) for b in ISSUE4_BENCHES}
    print(f"\n## Issue 4: memory-bound kernels at >= {BANDWIDTH_GOAL:.0f} % of the same-run reference\n")
    # (the bound, where a bench measures one: the traffic the op's structure
    # cannot avoid, e.g. a norm's two passes over a row; not the goal's reference)
    print("| benchmark | GB/s | % of the reference | % of the structure's bound | verdict |")
    print("|---|---|---|---|---|")
    for binary in ISSUE4_BENCHES:
        names = [name for name in runs[binary][0] if "simd" in name.split("/")]
        for name in names:
            gbps, pct = values(runs[binary], name, "GBps"), values(runs[binary], name, "pct_of_bw")
            bound = values(runs[binary], name, "pct_of_bound")
            judged = not COMPUTE_BOUND.match(name)
            v = verdict(pct, BANDWIDTH_GOAL, False) if judged else "compute-bound: reported"
            print(f"| `{name}` | {fmt(gbps)} | {fmt(pct, ' %')} | {fmt(bound, ' %') if bound else '-'} | {v} |")
            report.append({"issue": 4, "benchmark": name, "GBps": gbps, "pct_of_bw": pct, "pct_of_bound": bound,
                           "goal": BANDWIDTH_GOAL if judged else None, "verdict": v})
    print("\n## Issue 4: at least 2x llama.cpp's CPU backend (GB/s; llama.cpp measured on a Zen 4)\n")
    print("| benchmark | llama.cpp | ours | ratio | verdict |")
    print("|---|---|---|---|---|")
    for binary, name, theirs in LLAMA_CPP:
        ours = values(runs[binary], name, "GBps")
        ratio = [o / theirs for o in ours]
        v = verdict(ratio, 2.0, False)
        print(f"| `{name}` | {theirs} | {fmt(ours)} | {fmt(ratio, 'x')} | {v} |")
        report.append({"issue": 4, "benchmark": name, "GBps": ours, "llama_cpp_GBps": theirs, "verdict": v})


def issue5(build, n, report):
    binaries = sorted({b for b, *_ in ISSUE5})
    runs = {b: runs_of(build, b, n, b != "konform_linalg_bench", ISSUE5_FILTERS[b]) for b in binaries}
    print("\n## Issue 5\n")
    print("| benchmark | counter | figure | goal | verdict |")
    print("|---|---|---|---|---|")
    for binary, prefix, counter, goal, strict in ISSUE5:
        vals = values(runs[binary], prefix, counter)
        v = verdict(vals, goal, strict)
        print(f"| `{prefix}` | {counter} | {fmt(vals, ' %')} | {'>' if strict else '>='} {goal:.0f} % | {v} |")
        report.append({"issue": 5, "benchmark": prefix, "counter": counter, "values": vals, "goal": goal,
                       "verdict": v})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the build folder holding bench/ (default: build)")
    ap.add_argument("--runs", type=int, default=1, help="runs of each binary; figures judged by the median")
    ap.add_argument("--only", choices=["4", "5"], help="only this issue's figures")
    ap.add_argument("--json", help="also write the figures and verdicts to this file")
    a = ap.parse_args()
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    report = []
    if a.only in (None, "4"):
        issue4(a.build, a.runs, report)
    if a.only in (None, "5"):
        issue5(a.build, a.runs, report)
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
