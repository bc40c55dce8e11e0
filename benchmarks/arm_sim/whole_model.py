#!/usr/bin/env python3
"""Whole-model instructions and modelled cycles per token on AArch64: edgeq beside llama.cpp.

Runs `edgeq bench` (built with `--config=aarch64 -c opt`) and llama.cpp's `llama-bench`
(cross-built statically, one build per -march, see README.md) under qemu-aarch64 with the
tb_hist.c plugin, 1 thread, twice per phase with different token counts (decode `-n 16` and
`-n 48`, prefill `-p 32` and `-p 160`), so that loading, repacking and warm-up cancel in the
difference:

    instructions per token = (total(large) - total(small)) / (runs x (large - small))

runs = 2 for edgeq (its bench always adds one warm-up run; -r 1), 1 for llama-bench
(--no-warmup -r 1). The difference of the two runs' block histograms, weighted by each hot
block's cycles from llvm-mca (cycle_model.py), gives modelled core cycles per token.

    bazel build //benchmarks/arm_sim:tbhist_host
    bazel build --config=aarch64 -c opt //tools:edgeq
    python3 benchmarks/arm_sim/whole_model.py \\
        --plugin bazel-bin/benchmarks/arm_sim/host/libtbhist.so \\
        --edgeq bazel-out/aarch64-optaarch64/bin/tools/edgeq \\
        --llama-bench max=/work/ext/f/bin/llama-bench-armv8.6-a+dotprod+i8mm \\
        --llama-bench cortex-a76=/work/ext/f/bin/llama-bench-armv8.2-a+dotprod \\
        --model 166m-q4_0=m.gguf --cells 166m-q4_0:cortex-a76,166m-q4_0:max \\
        --work /tmp/wm --json results_whole_model.json
    python3 benchmarks/arm_sim/whole_model.py --table-only results_whole_model.json
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cycle_model  # noqa: E402
import gguf_bytes  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QEMU_WRAPPER = os.path.join(REPO, "tools", "qemu_aarch64.sh")

# Token counts of the two runs per phase.
PHASES = {"decode": (16, 48), "prefill": (32, 160)}
# edgeq's prompt tokens per prefill graph run (`-b`; --edgeq-ubatch): 0 passes none, so edgeq
# runs its default, 512, llama.cpp's ubatch, and both programs run each prompt as one ubatch.
# Records before 2026-11-27's s12a section ran `-b 32` (their argv says so).
EDGEQ_UBATCH = 0
# The core models each qemu CPU's code path is modelled on (llvm-mca -mcpu names).
MODELS_FOR_CPU = {
    "cortex-a76": ["cortex-a55", "cortex-a76", "neoverse-n1", "cortex-x2"],
    "max": ["cortex-a510", "cortex-x2", "neoverse-v2"],
    "cortex-a53": ["cortex-a55"],
}
COVERAGE = 0.995
# Clock assumed per core model for the memory bound (GHz): typical phone/server clocks.
FREQ_GHZ = {"cortex-a55": 2.0, "cortex-a510": 2.0, "cortex-a76": 2.4, "neoverse-n1": 2.4,
            "cortex-x2": 3.0, "neoverse-v2": 3.0}


def bench_argv(program, binary, model, phase, tokens, edgeq_ubatch=EDGEQ_UBATCH,
               edgeq_args=()):
    """The guest command line and the number of runs it makes of the phase."""
    p, n = (0, tokens) if phase == "decode" else (tokens, 0)
    if program == "edgeq":
        ubatch = ["-b", str(edgeq_ubatch)] if edgeq_ubatch > 0 else []
        return [binary, "bench", model, "-t", "1", "-r", "1"] + ubatch + list(edgeq_args) + [
            "-p", str(p), "-n", str(n)], 2
    return [binary, "-m", model, "-t", "1", "-r", "1", "--no-warmup", "-p", str(p),
            "-n", str(n)], 1


def run_guest(cpu, argv, plugin, hist_path):
    """Runs argv under qemu-aarch64 -cpu CPU with the histogram plugin; returns seconds."""
    cmd = ["sh", QEMU_WRAPPER, "-plugin",
           "file=%s,out=%s" % (os.path.abspath(plugin), hist_path)] + argv
    start = time.time()
    proc = subprocess.run(cmd, env=dict(os.environ, EDGEQ_QEMU_CPU=cpu),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=False)
    if proc.returncode != 0 or not os.path.exists(hist_path):
        raise RuntimeError("%s (-cpu %s) exited with %d: %s" %
                           (" ".join(argv), cpu, proc.returncode, proc.stderr[-600:]))
    return time.time() - start


def per_token(small_total, large_total, small_tokens, large_tokens, runs):
    return (large_total - small_total) / float(runs * (large_tokens - small_tokens))


def measure(args, file_name, cpu, program, phase):
    """One cell: both runs (histograms kept in --work), instructions per token."""
    binary = args.edgeq if program == "edgeq" else args.llama_bench[cpu]
    record = {"file": file_name, "cpu": cpu, "program": program, "phase": phase,
              "binary": os.path.basename(binary), "runs": []}
    if program == "edgeq":  # the kernels' schedule override (runtime/kernels/isa.h), if set
        record["core_schedule"] = os.environ.get("EDGEQ_CORE_SCHEDULE", "")
    for tokens in PHASES[phase]:
        argv, runs = bench_argv(program, binary, args.models[file_name], phase, tokens,
                                args.edgeq_ubatch, args.edgeq_args.split())
        hist = os.path.join(args.work, "%s.%s.%s.%s.%d.hist" % (file_name, cpu, program, phase,
                                                                 tokens))
        seconds = 0.0
        if not (args.reuse and os.path.exists(hist)):
            seconds = run_guest(cpu, argv, args.plugin, hist)
        with open(hist) as f:
            total, _ = cycle_model.parse_histogram(f.read())
        record["runs"].append({"tokens": tokens, "runs": runs, "insns": total, "hist": hist,
                               "argv": " ".join(os.path.basename(a) for a in argv),
                               "seconds": round(seconds, 1)})
        print("  %s %s %s %s %d: %d insns, %.0f s" % (file_name, cpu, program, phase, tokens,
                                                       total, seconds),
              file=sys.stderr, flush=True)
    small, large = record["runs"]
    record["insns_per_token"] = per_token(small["insns"], large["insns"], small["tokens"],
                                          large["tokens"], small["runs"])
    return record


def hot_diff(record):
    """The record's hot blocks {(vaddr, bytes): [insns, executions added]}, the instructions they
    cover and the total added: from its histograms, kept in the record as "hot" (so that the
    committed JSON can be modelled again without qemu)."""
    if "hot" not in record:
        small, large = record["runs"]
        with open(large["hist"]) as f:
            _, hist_large = cycle_model.parse_histogram(f.read())
        with open(small["hist"]) as f:
            _, hist_small = cycle_model.parse_histogram(f.read())
        diff = cycle_model.difference(hist_large, hist_small)
        keys, covered, total = cycle_model.hot_blocks(diff, COVERAGE)
        record["hot"] = [["%x" % k[0], diff[k][0], diff[k][1], k[1]] for k in keys]
        record["added_insns"] = total
    diff = {(int(v, 16), h): [n, d] for v, n, d, h in record["hot"]}
    keys = [(int(v, 16), h) for v, _, _, h in record["hot"]]
    covered = sum(n * d for n, d in diff.values())
    diff, keys = cycle_model.join_page_splits(diff, keys)
    return diff, keys, covered, record["added_insns"]


def model_cycles(record, cache, mcpus):
    """Adds modelled cycles per token for each core model to a measured record."""
    diff, keys, covered, total = hot_diff(record)
    small, large = record["runs"]
    tokens = small["runs"] * (large["tokens"] - small["tokens"])
    record["hot_blocks"] = len(keys)
    record["hot_coverage"] = covered / float(total) if total else 0.0
    record.setdefault("cycles_per_token", {})
    record.setdefault("modelled_fraction", {})
    for mcpu in mcpus:
        cycles_of = cache.cycles(mcpu, [k[1] for k in keys])
        cyc, modelled = cycle_model.modelled_cycles(diff, keys, covered, total, cycles_of)
        record["cycles_per_token"][mcpu] = cyc / tokens
        record["modelled_fraction"][mcpu] = modelled / float(total) if total else 0.0
    cache.save()
    return record


def ratio_cell(ours, theirs):
    if not ours and not theirs:
        return "-"
    if not ours or not theirs:
        return "%s / %s" % ("%.1fM" % (ours / 1e6) if ours else "-",
                            "%.1fM" % (theirs / 1e6) if theirs else "-")
    return "%.1fM / %.1fM = %.2f" % (ours / 1e6, theirs / 1e6, ours / theirs)


IN_ORDER_MODELS = ("cortex-a55", "cortex-a510")


def cell_key(record):
    return (record["file"], record["cpu"], record["program"], record["phase"])


class Cells:
    """Records by (file, qemu CPU, program, phase). inorder_records (edgeq run with
    EDGEQ_CORE_SCHEDULE=inorder): where one has the cell, its cycles replace edgeq's on the
    in-order core models (the schedule such a core selects)."""

    def __init__(self, records, inorder_records=()):
        self.index = {cell_key(r): r for r in records}
        self.inorder = {cell_key(r): r for r in inorder_records}

    def insns(self, file_name, cpu, program, phase):
        r = self.index.get((file_name, cpu, program, phase))
        return r and r["insns_per_token"]

    def cycles(self, file_name, cpu, program, phase, mcpu):
        key = (file_name, cpu, program, phase)
        r = self.index.get(key)
        if mcpu in IN_ORDER_MODELS:
            r = self.inorder.get(key, r)
        return r and r.get("cycles_per_token", {}).get(mcpu)

    def ratio(self, file_name, cpu, phase, metric):
        """edgeq / llama.cpp of "instructions" or a core model's cycles; None without both."""
        if metric == "instructions":
            ours, theirs = (self.insns(file_name, cpu, p, phase) for p in ("edgeq", "llama.cpp"))
        else:
            ours, theirs = (self.cycles(file_name, cpu, p, phase, metric)
                            for p in ("edgeq", "llama.cpp"))
        return ours / theirs if ours and theirs else None


def tables(records, inorder_records=()):
    """Markdown: instructions per token, then modelled cycles per token, edgeq / llama.cpp
    (in-order core models from inorder_records: Cells)."""
    data = Cells(records, inorder_records)
    cells = sorted({(r["file"], r["cpu"]) for r in records})
    lines = ["| file | qemu CPU | decode insns/token | prefill insns/token |", "|---|---|---|---|"]
    for file_name, cpu in cells:
        row = "| %s | %s |" % (file_name, cpu)
        for phase in ("decode", "prefill"):
            row += " %s |" % ratio_cell(data.insns(file_name, cpu, "edgeq", phase),
                                        data.insns(file_name, cpu, "llama.cpp", phase))
        lines.append(row)
    lines += ["", "| file | qemu CPU | core model | decode cycles/token | prefill cycles/token |",
              "|---|---|---|---|---|"]
    for file_name, cpu in cells:
        mcpus = []
        for r in records:
            if (r["file"], r["cpu"]) == (file_name, cpu):
                mcpus += [m for m in r.get("cycles_per_token", {}) if m not in mcpus]
        for mcpu in mcpus:
            row = "| %s | %s | %s |" % (file_name, cpu, mcpu)
            for phase in ("decode", "prefill"):
                row += " %s |" % ratio_cell(data.cycles(file_name, cpu, "edgeq", phase, mcpu),
                                            data.cycles(file_name, cpu, "llama.cpp", phase, mcpu))
            lines.append(row)
    return "\n".join(lines)


SUMMARY_MODELS = ("cortex-a55", "cortex-a510", "cortex-a76", "neoverse-n1", "cortex-x2",
                  "neoverse-v2")
PATH_OF_CPU = {"max": "i8mm (`max`)", "cortex-a76": "dotprod (`cortex-a76`)",
               "cortex-a53": "NEON (`cortex-a53`)"}


def summary_table(records, inorder_records=()):
    """Markdown: one row per file and code path, edgeq / llama.cpp as "decode / prefill" ratios,
    instructions then each core model's cycles (in-order core models from inorder_records:
    Cells)."""
    data = Cells(records, inorder_records)
    metrics = ("instructions",) + SUMMARY_MODELS
    lines = ["| file | code path | " + " | ".join(metrics) + " |",
             "|---|---|" + "---|" * len(metrics)]
    order = {cpu: i for i, cpu in enumerate(PATH_OF_CPU)}
    cells = sorted({(r["file"], r["cpu"]) for r in records},
                   key=lambda c: (c[0], order.get(c[1], 9)))
    for file_name, cpu in cells:
        row = "| %s | %s |" % (file_name, PATH_OF_CPU.get(cpu, cpu))
        for metric in metrics:
            d, p = (data.ratio(file_name, cpu, phase, metric) for phase in ("decode", "prefill"))
            row += " %s |" % ("-" if d is None and p is None else "%s / %s" % (
                "-" if d is None else "%.2f" % d, "-" if p is None else "%.2f" % p))
        lines.append(row)
    return "\n".join(lines)


def cells_over(records, inorder_records=(), limit=0.8):
    """Every ratio of tables() above `limit`: (file, qemu CPU, metric, phase, ratio), the metric
    "instructions" or a core model of llama.cpp's record; sorted by ratio, highest first."""
    data = Cells(records, inorder_records)
    out = []
    for (file_name, cpu, program, phase), theirs in data.index.items():
        if program != "llama.cpp":
            continue
        for metric in ("instructions",) + tuple(sorted(theirs.get("cycles_per_token", {}))):
            ratio = data.ratio(file_name, cpu, phase, metric)
            if ratio is not None and ratio > limit:
                out.append((file_name, cpu, metric, phase, ratio))
    return sorted(out, key=lambda c: -c[4])


def memory_table(records, sizes, bandwidths, inorder_records=()):
    """Decode: bytes read per token and the bound max(cycles / f, bytes / BW) per token, f from
    FREQ_GHZ; edgeq's in-order core models' cycles from inorder_records (Cells)."""
    data = Cells(records, inorder_records)
    lines = ["| file | qemu CPU | program | core model (GHz) | weights + KV MB/token | compute "
             "ms/token | %s |" % " | ".join("bound ms at %g GB/s" % bw for bw in bandwidths),
             "|---|---|---|---|---:|---:|" + "---:|" * len(bandwidths)]
    for r in sorted(records, key=lambda r: (r["file"], r["cpu"], r["program"])):
        if r["phase"] != "decode" or r["file"] not in sizes:
            continue
        nbytes = sizes[r["file"]][r["program"]]
        for mcpu in sorted(r.get("cycles_per_token", {})):
            cyc = data.cycles(*cell_key(r), mcpu)
            ghz = FREQ_GHZ.get(mcpu, 2.4)
            compute_ms = cyc / (ghz * 1e6)
            bounds = ["%.2f" % max(compute_ms, nbytes / (bw * 1e6)) for bw in bandwidths]
            lines.append("| %s | %s | %s | %s (%.1f) | %.1f | %.2f | %s |" % (
                r["file"], r["cpu"], r["program"], mcpu, ghz, nbytes / 1e6, compute_ms,
                " | ".join(bounds)))
    return "\n".join(lines)


def merge(paths):
    """The records of several --json files (a later file's record replaces an earlier one's)."""
    data = {"records": [], "decode_bytes": {}}
    for path in paths:
        with open(path) as f:
            part = json.load(f)
        for r in part["records"]:
            data["records"] = [x for x in data["records"] if cell_key(x) != cell_key(r)]
            data["records"].append(r)
        data["decode_bytes"].update(part.get("decode_bytes", {}))
    return data


def write_json(data, path):
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def parse_pairs(values, what):
    out = {}
    for v in values or []:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise SystemExit("--%s: expected NAME=PATH, got %r" % (what, v))
        out[name] = path
    return out


def main():
    return main_with(sys.argv[1:])


def main_with(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plugin", help="host libtbhist.so")
    parser.add_argument("--edgeq", help="aarch64 edgeq binary")
    parser.add_argument("--llama-bench", action="append", help="QEMU_CPU=PATH (repeat)")
    parser.add_argument("--model", action="append", help="NAME=PATH.gguf (repeat)")
    parser.add_argument("--cells", default="", help="NAME:QEMU_CPU,... (default: every pair)")
    parser.add_argument("--programs", default="edgeq,llama.cpp")
    parser.add_argument("--edgeq-ubatch", type=int, default=EDGEQ_UBATCH,
                        help="edgeq bench -b N (default: none, edgeq's 512 as llama-bench's; "
                             "records before 2026-11-27 s12a: 32)")
    parser.add_argument("--edgeq-args", default="",
                        help="more edgeq bench options, e.g. '-ctk f32 -ctv f32' (records "
                             "before 2026-11-27's f16 default ran an f32 cache)")
    parser.add_argument("--phases", default="decode,prefill")
    parser.add_argument("--work", default="/tmp/arm_sim_whole_model", help="histograms")
    parser.add_argument("--reuse", action="store_true", help="reuse histograms in --work")
    parser.add_argument("--mca-cache", default="", help="JSON cache of llvm-mca results")
    parser.add_argument("--json", help="write (or extend) the records here")
    parser.add_argument("--table-only", nargs="+", help="print the tables of --json files")
    parser.add_argument("--inorder", nargs="+",
                        help="with --table-only: --json files of edgeq run with "
                             "EDGEQ_CORE_SCHEDULE=inorder, for the in-order core models' cells")
    parser.add_argument("--merge", nargs="+", metavar=("OUT", "IN"),
                        help="write the records of the IN --json files into OUT (a later "
                             "file's record of a cell replaces an earlier one's)")
    parser.add_argument("--remodel", action="store_true",
                        help="model the --json file's records again (core models of each CPU)")
    args = parser.parse_args(argv)
    if args.merge:
        if len(args.merge) < 2:
            raise SystemExit("--merge: expected OUT and at least one IN file")
        write_json(merge(args.merge[1:]), args.merge[0])
        return 0
    if args.table_only:
        data = merge(args.table_only)
        inorder = merge(args.inorder)["records"] if args.inorder else []
        print(summary_table(data["records"], inorder))
        print()
        print(tables(data["records"], inorder))
        print()
        over = cells_over(data["records"], inorder)
        print("Cells above 0.80x llama.cpp: %s" % (
            "; ".join("%s %s %s %s %.2f" % c for c in over) if over else "none"))
        print()
        print(memory_table(data["records"], data["decode_bytes"], [30, 60], inorder))
        return 0
    if args.remodel:
        with open(args.json) as f:
            data = json.load(f)
        cache = cycle_model.McaCache(args.mca_cache or os.path.join(args.work, "mca_cache.json"))
        for r in data["records"]:
            model_cycles(r, cache, MODELS_FOR_CPU[r["cpu"]])
        write_json(data, args.json)
        print(tables(data["records"]))
        return 0
    args.llama_bench = parse_pairs(args.llama_bench, "llama-bench")
    args.models = parse_pairs(args.model, "model")
    os.makedirs(args.work, exist_ok=True)
    cells = [tuple(c.split(":", 1)) for c in args.cells.split(",") if c]
    cache = cycle_model.McaCache(args.mca_cache or os.path.join(args.work, "mca_cache.json"))
    data = {"records": [], "decode_bytes": {}}
    if args.json and os.path.exists(args.json):
        with open(args.json) as f:
            data = json.load(f)
    for file_name, cpu in cells:
        data["decode_bytes"][file_name] = gguf_bytes.decode_bytes(
            args.models[file_name], PHASES["decode"])
        for program in args.programs.split(","):
            for phase in args.phases.split(","):
                record = model_cycles(measure(args, file_name, cpu, program, phase), cache,
                                      MODELS_FOR_CPU[cpu])
                data["records"] = [r for r in data["records"]
                                   if cell_key(r) != cell_key(record)]
                data["records"].append(record)
                if args.json:
                    write_json(data, args.json)
    print(tables(data["records"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
