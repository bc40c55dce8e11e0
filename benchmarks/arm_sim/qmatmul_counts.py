#!/usr/bin/env python3
"""Instructions per qmatmul call on AArch64, counted under qemu-aarch64 with libcount.so.

Runs the fixed-iteration driver (qmatmul_count, built with --config=aarch64) once per CPU model x
encoding under qemu-aarch64 with the counting plugin, pairs the driver's i-th "call" line with the
plugin's i-th region, and prints a markdown table: instructions per call (millions), multiply-adds
per instruction (m*n*k / instructions) and weight bytes per call, per CPU model.

    bazel build //benchmarks/arm_sim:plugin_host
    bazel build --config=aarch64 //benchmarks/arm_sim:qmatmul_count
    python3 benchmarks/arm_sim/qmatmul_counts.py \\
        --plugin bazel-bin/benchmarks/arm_sim/host/libcount.so \\
        --driver bazel-out/aarch64-opt-aarch64/bin/benchmarks/arm_sim/qmatmul_count \\
        --json /tmp/arm_counts.json

qemu is started through tools/qemu_aarch64.sh (the same guest root and libraries as
`bazel test --config=aarch64`), with EDGEQ_QEMU_CPU set to each model. --table-only re-prints the
table from a --json file without running anything; with --ggml GGML_JSON it also prints edgeq
beside ggml per CPU model (GGML_JSON written by the same script running a ggml driver that prints
the same "call" lines; see README.md).
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QEMU_WRAPPER = os.path.join(REPO, "tools", "qemu_aarch64.sh")

CALL_RE = re.compile(r"^call (.*)$")
REGION_RE = re.compile(r"^arm_sim: region (\d+) insns (\d+)$")
SUMMARY_RE = re.compile(r"^arm_sim: regions (\d+) errors (\d+)$")


def run_one(driver, plugin, cpu, encoding, shapes, ms, reps):
    """Runs the driver for one CPU model and encoding; returns a list of result dicts."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "plugin.log")
        cmd = ["sh", QEMU_WRAPPER, "-plugin", "file=" + os.path.abspath(plugin), "-d", "plugin",
               "-D", log, driver, "--encodings=" + encoding, "--shapes=" + shapes, "--ms=" + ms,
               "--reps=%d" % reps]
        env = dict(os.environ, EDGEQ_QEMU_CPU=cpu)
        start = time.time()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, check=False)
        seconds = time.time() - start
        if proc.returncode != 0:
            raise RuntimeError("%s %s: driver exited with %d:\n%s" %
                               (cpu, encoding, proc.returncode, proc.stderr))
        with open(log) as f:
            log_lines = f.read().splitlines()
    calls = []
    for line in proc.stdout.splitlines():
        match = CALL_RE.match(line)
        if match:
            calls.append(dict(kv.split("=", 1) for kv in match.group(1).split()))
    counts = {}
    summary = None
    for line in log_lines:
        match = REGION_RE.match(line)
        if match:
            counts[int(match.group(1))] = int(match.group(2))
        match = SUMMARY_RE.match(line)
        if match:
            summary = (int(match.group(1)), int(match.group(2)))
    if summary is None or summary[1] != 0 or summary[0] != len(calls) or len(counts) != len(calls):
        raise RuntimeError("%s %s: %d calls but plugin summary %s:\n%s" %
                           (cpu, encoding, len(calls), summary, "\n".join(log_lines[-20:])))
    results = []
    for i, call in enumerate(calls):
        results.append({
            "cpu": cpu,
            "encoding": call["encoding"],
            "n": int(call["n"]),
            "k": int(call["k"]),
            "m": int(call["m"]),
            "kernel": call["kernel"],
            "isa": call["isa"],
            "macs": int(call["macs"]),
            "weight_bytes": int(call["weight_bytes"]),
            "rep": int(call["rep"]),
            "insns": counts[i],
        })
    print("  %-10s %-5s %4d calls in %6.1f s" % (cpu, encoding, len(calls), seconds),
          file=sys.stderr, flush=True)
    return results


def short_kernel(name, encoding):
    """'q4_k_dotprod_gemv' -> 'dotprod gemv'."""
    if name.startswith(encoding + "_"):
        name = name[len(encoding) + 1:]
    return name.replace("_", " ")


def table(results, cpus):
    """Markdown: one row per encoding x shape x m, three columns per CPU model."""
    by_key = {}
    for r in results:
        if r["rep"] != 0:
            continue
        by_key[(r["encoding"], r["n"], r["k"], r["m"], r["cpu"])] = r
    rows = sorted({key[:4] for key in by_key},
                  key=lambda k: (["q4_0", "q8_0", "q4_k", "q5_k", "q6_k"].index(k[0])
                                 if k[0] in ["q4_0", "q8_0", "q4_k", "q5_k", "q6_k"] else 99,
                                 -k[1] * k[2], k[1], k[3]))
    head = "| type | n x k | m | weight KiB/call |"
    rule = "|---|---|---|---:|"
    for cpu in cpus:
        head += " %s kernel | %s M insns | %s MAC/insn |" % (cpu, cpu, cpu)
        rule += "---|---:|---:|"
    lines = [head, rule]
    for enc, n, k, m in rows:
        any_r = next(by_key[(enc, n, k, m, c)] for c in cpus if (enc, n, k, m, c) in by_key)
        line = "| %s | %dx%d | %d | %.1f |" % (enc, n, k, m, any_r["weight_bytes"] / 1024.0)
        for cpu in cpus:
            r = by_key.get((enc, n, k, m, cpu))
            if r is None:
                line += " - | - | - |"
                continue
            line += " %s | %.3f | %.2f |" % (short_kernel(r["kernel"], enc), r["insns"] / 1e6,
                                             r["macs"] / r["insns"])
        lines.append(line)
    return "\n".join(lines)


def compare_table(edgeq, ggml, cpu):
    """Markdown, one CPU model: edgeq beside ggml, ratio = ggml / edgeq instructions (below 1:
    edgeq executes more)."""
    def index(results):
        return {(r["encoding"], r["n"], r["k"], r["m"]): r for r in results
                if r["cpu"] == cpu and r["rep"] == 0}
    ours, theirs = index(edgeq), index(ggml)
    order = ["q4_0", "q8_0", "q4_k", "q5_k", "q6_k"]
    keys = sorted(set(ours) & set(theirs),
                  key=lambda k: (order.index(k[0]) if k[0] in order else 99, -k[1] * k[2], k[1],
                                 k[3]))
    lines = ["| type | n x k | m | edgeq kernel | edgeq M insns | ggml M insns | ggml / edgeq |"
             " edgeq MAC/insn | ggml MAC/insn |",
             "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for key in keys:
        a, b = ours[key], theirs[key]
        lines.append("| %s | %dx%d | %d | %s | %.3f | %.3f | %.2f | %.2f | %.2f |" % (
            key[0], key[1], key[2], key[3], short_kernel(a["kernel"], key[0]), a["insns"] / 1e6,
            b["insns"] / 1e6, b["insns"] / a["insns"], a["macs"] / a["insns"],
            b["macs"] / b["insns"]))
    return "\n".join(lines)


ENCODING_ORDER = ["q4_0", "q8_0", "q4_k", "q5_k", "q6_k", "q4_1", "q5_0", "q5_1", "iq4_nl",
                  "iq4_xs", "q2_k", "q3_k", "f16", "bf16"]


def summary_table(edgeq, ggml, cpus):
    """Markdown: per encoding and CPU model, the range over the shapes of ggml / edgeq
    instructions at m = 1 and at m >= 8, then the rows below 1 (edgeq executes more)."""
    theirs = {(r["cpu"], r["encoding"], r["n"], r["k"], r["m"]): r["insns"] for r in ggml
              if r["rep"] == 0}
    ratios, below = {}, []
    for r in edgeq:
        key = (r["cpu"], r["encoding"], r["n"], r["k"], r["m"])
        if r["rep"] != 0 or key not in theirs:
            continue
        ratio = theirs[key] / r["insns"]
        ratios.setdefault((r["encoding"], r["cpu"], r["m"] == 1), []).append(ratio)
        if ratio < 1:
            below.append((r["cpu"], r["encoding"], "%dx%d" % (r["n"], r["k"]), r["m"],
                          short_kernel(r["kernel"], r["encoding"]), ratio))
    encodings = sorted({e for e, _, _ in ratios},
                       key=lambda e: ENCODING_ORDER.index(e) if e in ENCODING_ORDER else 99)
    lines = ["| type | " + " | ".join("%s, m %s" % (c, m) for c in cpus for m in ("= 1", ">= 8"))
             + " |", "|---|" + "---|" * (2 * len(cpus))]
    for enc in encodings:
        cells = []
        for cpu in cpus:
            for gemv in (True, False):
                v = ratios.get((enc, cpu, gemv))
                cells.append("%.2f-%.2f" % (min(v), max(v)) if v else "")
        lines.append("| %s | %s |" % (enc, " | ".join(cells)))
    total = sum(len(v) for v in ratios.values())
    lines.append("")
    lines.append("%d of %d rows below 1%s" % (len(below), total, ":" if below else "."))
    for cpu, enc, shape, m, kernel, ratio in sorted(below):
        lines.append("- %s %s %s m = %d (%s): %.3f" % (cpu, enc, shape, m, kernel, ratio))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver", help="aarch64 qmatmul_count binary")
    parser.add_argument("--plugin", help="host libcount.so")
    parser.add_argument("--cpus", default="max,cortex-a76,cortex-a53")
    parser.add_argument("--encodings", default="q4_0,q8_0,q4_k,q5_k,q6_k")
    parser.add_argument("--shapes", default="4096x4096,8192x2048,896x896,288x768,768x288")
    parser.add_argument("--ms", default="1,8,64")
    parser.add_argument("--reps", type=int, default=1,
                        help="marked calls per configuration (counts must agree)")
    parser.add_argument("--jobs", type=int, default=1, help="qemu processes at a time")
    parser.add_argument("--json", help="write the raw results here")
    parser.add_argument("--table-only", metavar="JSON", help="print the table of a --json file")
    parser.add_argument("--ggml", metavar="JSON", action="append",
                        help="with --table-only: also print, per CPU model, the table beside "
                        "these results (made by a ggml driver with the same output format); "
                        "may be given several times (the files' rows are merged)")
    parser.add_argument("--summary", action="store_true",
                        help="with --table-only and --ggml: print only the summary (ratio ranges "
                        "per encoding and CPU model, and every row below 1)")
    args = parser.parse_args()
    cpus = args.cpus.split(",")

    if args.table_only:
        with open(args.table_only) as f:
            results = json.load(f)
        present = [c for c in cpus if any(r["cpu"] == c for r in results)]
        ggml = []
        for path in args.ggml or []:
            with open(path) as f:
                ggml += json.load(f)
        if args.summary:
            if not ggml:
                parser.error("--summary needs --ggml")
            print(summary_table(results, ggml, present))
            return 0
        print(table(results, present))
        if ggml:
            for cpu in present:
                if any(r["cpu"] == cpu for r in ggml):
                    print("\n-cpu %s, edgeq beside ggml:\n" % cpu)
                    print(compare_table(results, ggml, cpu))
        return 0
    if not args.driver or not args.plugin:
        parser.error("--driver and --plugin are required (or --table-only)")

    jobs = [(cpu, enc) for cpu in cpus for enc in args.encodings.split(",")]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, args.driver, args.plugin, cpu, enc, args.shapes, args.ms,
                               args.reps) for cpu, enc in jobs]
        for future in futures:
            results.extend(future.result())
    # Repeated calls must execute the same number of instructions (the method is deterministic).
    first = {}
    for r in results:
        key = (r["cpu"], r["encoding"], r["n"], r["k"], r["m"])
        if key in first and first[key] != r["insns"]:
            print("warning: %s: repetitions differ: %d vs %d" % (key, first[key], r["insns"]),
                  file=sys.stderr)
        first.setdefault(key, r["insns"])
    if args.json:
        with open(args.json, "w") as f:  # one result per line
            f.write("[\n" + ",\n".join(json.dumps(r, sort_keys=True) for r in results) + "\n]\n")
    print(table(results, cpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
