#!/usr/bin/env python3
"""Modelled cycles of the hot inner loops of AArch64 GEMM kernels, by llvm-mca.

For each kernel given as NAME=FILE:SYMBOL_REGEX:DOTS[:LOOP[:TRIPS]], disassembles FILE (an aarch64 object or
binary) with objdump, finds the function whose demangled name matches SYMBOL_REGEX (the first
match; --list prints the candidates), picks its hot loop (by default the innermost loop, i.e. the
range [target, branch] of a backward branch that contains no other backward branch, with the most
sdot/smmla/usdot instructions, the first of equals; LOOP (or --loop) picks the LOOP-th loop of --list instead; a loop
with nested loops is unrolled, TRIPS giving the trip count per nesting depth, e.g. 4,2), and runs
the loop body, as straight-line code, through llvm-mca for each core model. DOTS is the number of 32-value
dot products (weight row x activation row x 32 values) one iteration computes; the report gives
cycles per iteration, cycles per 32-value dot and llvm-mca's IPC.

    python3 benchmarks/arm_sim/loop_cycles.py --cpus cortex-a55,cortex-a76 \\
        --kernel 'q4_0 dotprod=OBJ:R4PairGemm<.*R4SdotPairs<.*Q4_0R4Block:32' [--json OUT]
    python3 benchmarks/arm_sim/loop_cycles.py --preset EDGEQ_OBJ_DIR GGML_OBJ_DIR [--json OUT]
    python3 benchmarks/arm_sim/loop_cycles.py --list OBJ:SYMBOL_REGEX
    python3 benchmarks/arm_sim/loop_cycles.py --table-only OUT [--baseline OUT2]

The loop body is simulated as a basic block that repeats (llvm-mca's model: no branch
prediction, caches always hit, every load at the model's L1 latency); a forward branch inside
the body is reported, since llvm-mca then assumes it falls through.
"""

import argparse
import json
import os
import re
import subprocess
import sys

DEFAULT_CPUS = "cortex-a55,cortex-a510,cortex-a76,cortex-x2,neoverse-v2"
KEY_RE = re.compile(r"^(sdot|udot|usdot|smmla|ummla|usmmla)$")
BRANCH_RE = re.compile(r"^(b(\.\w+)?|bl|cbz|cbnz|tbz|tbnz)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <(.*)>:$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)(?:\s+(.*))?$")
TOTAL_RE = re.compile(r"^Total Cycles:\s+(\d+)$", re.M)
INSNS_RE = re.compile(r"^Instructions:\s+(\d+)$", re.M)
ITER_RE = re.compile(r"^Iterations:\s+(\d+)$", re.M)
# The prefill GEMM loops of README.md's table: (name, edgeq or ggml, object file, function regex,
# 32-value dots per iteration, loop index or None for the hottest, inner trip counts). edgeq's
# objects are bazel's (runtime/kernels/_objs/arm_<type>_<isa>/<type>_<isa>.pic.o); ggml's are
# ggml-cpu/arch/arm/repack.cpp compiled once per -march (README.md: repack_dotprod.o, repack_i8mm.o).
# Dots per iteration: weight rows x activation rows x values / 32 of one iteration (edgeq's R4
# pair tiles: 4 x 8 x 32; the K-quant tiles: 1 x 8 x 256 per super-block; ggml's q4_0 4x4 / 4x8:
# 4 x 16 x 32, q8_0: 4 x 4 x 32, q4_K / q6_K 8x4: 8 x 4 x 256 per super-block).
PRESET = [
    ("q4_0 dotprod", "edgeq", "q4_0_dotprod.pic.o", "R4PairGemm<", 32, None, ""),
    ("q4_0 dotprod", "ggml", "repack_dotprod.o", "ggml_gemm_q4_0_4x4_q8_0", 64, None, ""),
    ("q8_0 dotprod", "edgeq", "q8_0_dotprod.pic.o", "R4PairGemm<", 32, None, ""),
    ("q8_0 dotprod", "ggml", "repack_dotprod.o", "ggml_gemm_q8_0_4x4_q8_0", 16, None, ""),
    ("q4_k dotprod", "edgeq", "q4_k_dotprod.pic.o", "K45Tile<.*Tile<8>", 64, 1, "4"),
    ("q4_k dotprod", "ggml", "repack_dotprod.o", "ggml_gemm_q4_K_8x4_q8_K", 256, 2, "4,2"),
    ("q6_k dotprod", "edgeq", "q6_k_dotprod.pic.o", "Q6KTile<.*Tile<8>", 64, 1, "2"),
    ("q6_k dotprod", "ggml", "repack_dotprod.o", "ggml_gemm_q6_K_8x4_q8_K", 256, 3, "2,2,2"),
    ("q4_0 i8mm", "edgeq", "q4_0_i8mm.pic.o", "R4PairGemm<", 32, None, ""),
    ("q4_0 i8mm", "ggml", "repack_i8mm.o", "ggml_gemm_q4_0_4x8_q8_0", 64, None, ""),
    ("q8_0 i8mm", "edgeq", "q8_0_i8mm.pic.o", "R4PairGemm<", 32, None, ""),
    ("q8_0 i8mm", "ggml", "repack_i8mm.o", "ggml_gemm_q8_0_4x8_q8_0", 16, None, ""),
]


def preset_specs(edgeq_dir, ggml_dir):
    """--kernel specs of PRESET; edgeq's objects in edgeq_dir or in bazel's layout under it
    (edgeq_dir = bazel-bin/runtime/kernels/_objs: arm_q4_0_dotprod/q4_0_dotprod.pic.o)."""
    specs = []
    for name, side, obj, regex, dots, loop, trips in PRESET:
        path = os.path.join(ggml_dir, obj)
        if side == "edgeq":
            path = os.path.join(edgeq_dir, obj)
            nested = os.path.join(edgeq_dir, "arm_" + obj.split(".")[0], obj)
            if not os.path.exists(path) and os.path.exists(nested):
                path = nested
        spec = "%s %s=%s:%s:%d" % (name, side, path, regex, dots)
        if loop is not None:
            spec += ":%d" % loop + (":" + trips if trips else "")
        specs.append(spec)
    return specs


# The features every kernel may use (assembling smmla needs +i8mm whatever the core model).
MATTR = "+v8.6a,+dotprod,+i8mm,+fullfp16"


def fail(message):
    print("loop_cycles.py: " + message, file=sys.stderr)
    sys.exit(2)


def disassemble(objdump, path):
    """{demangled function name: [(address, mnemonic, operands)]} of an ELF file."""
    proc = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        fail("%s -d %s exited with %d: %s" % (objdump, path, proc.returncode,
                                              proc.stderr.strip().splitlines()[:1]))
    funcs, current = {}, None
    for line in proc.stdout.splitlines():
        m = FUNC_RE.match(line)
        if m:
            current = funcs.setdefault(m.group(2), [])
            continue
        m = INSN_RE.match(line)
        if m and current is not None:
            operands = (m.group(3) or "").split("//")[0].strip()
            current.append((int(m.group(1), 16), m.group(2), operands))
    return funcs


def find_function(funcs, regex, path):
    pattern = re.compile(regex)
    names = [n for n in funcs if pattern.search(n)]
    if not names:
        fail("no function of %s matches '%s'; expected a regex of a demangled name (--list)" %
             (path, regex))
    return names[0], funcs[names[0]]


def branch_target(operands):
    """The target address of a direct branch's operands ('394c <f+0xac>' last), or None."""
    m = re.search(r"(?:^|,\s*)([0-9a-f]+)(?:\s+<.*>)?$", operands)
    return int(m.group(1), 16) if m else None


def loops(insns):
    """[(start index, end index inclusive, innermost, key count)] of the backward branches."""
    index = {addr: i for i, (addr, _, _) in enumerate(insns)}
    found = []
    for i, (addr, mnem, ops) in enumerate(insns):
        if not BRANCH_RE.match(mnem) or mnem == "bl":
            continue
        target = branch_target(ops)
        if target is None or target > addr or target not in index:
            continue
        found.append((index[target], i))
    result = []
    for start, end in found:
        inner = not any(s >= start and e <= end and (s, e) != (start, end) for s, e in found)
        keys = sum(1 for _, mnem, _ in insns[start:end + 1] if KEY_RE.match(mnem))
        result.append((start, end, inner, keys))
    return result


def pick_loop(insns, loop_index):
    found = loops(insns)
    if not found:
        fail("the function has no backward branch (no loop)")
    if loop_index is not None:
        if not 0 <= loop_index < len(found):
            fail("--loop %d out of range; expected 0..%d (--list)" % (loop_index, len(found) - 1))
        return found[loop_index]
    inner = [l for l in found if l[2]]
    # Ties (the same tile compiled twice, e.g. for the last columns): the first one.
    return max(inner, key=lambda l: (l[3], -l[0]))


def expand(insns, start, end, all_loops, trips, depth=0):
    """The instructions of loop [start, end] with each directly nested loop repeated
    trips[depth] times (and its own nested loops trips[depth + 1] times, ...)."""
    inner = [(s, e) for s, e, _, _ in all_loops
             if start <= s and e <= end and (s, e) != (start, end)]
    direct = [(s, e) for s, e in inner
              if not any(a <= s and e <= b and (a, b) != (s, e) for a, b in inner)]
    if direct and depth >= len(trips):
        fail("the loop at %#x has nested loops; expected a trip count for depth %d" %
             (insns[start][0], depth + 1))
    out, i = [], start
    for s, e in sorted(direct):
        out += insns[i:s]
        out += expand(insns, s, e, all_loops, trips, depth + 1) * trips[depth]
        i = e + 1
    return out + insns[i:end + 1]


def loop_asm(body):
    """The loop body as assembly text for llvm-mca; branches retargeted to local labels."""
    start_addr = body[0][0]
    lines = [".Lloop_start:"]
    forward = 0
    for addr, mnem, ops in body:
        if BRANCH_RE.match(mnem):
            target = branch_target(ops)
            head = re.sub(r"([0-9a-f]+)(\s+<.*>)?$", "", ops).rstrip(", ")
            label = ".Lloop_start" if target == start_addr else ".Lloop_out"
            if target != start_addr:
                forward += 1
            ops = (head + ", " + label) if head else label
        ops = re.sub(r"\s+<.*>$", "", ops)
        lines.append("\t%s\t%s" % (mnem, ops) if ops else "\t" + mnem)
    lines.append(".Lloop_out:")
    return "\n".join(lines) + "\n", forward


def run_mca(mca, cpu, asm, iterations):
    proc = subprocess.run([mca, "-mtriple=aarch64", "-mcpu=" + cpu, "-mattr=" + MATTR,
                           "-iterations=%d" % iterations, "-all-stats=false",
                           "-instruction-info=false", "-resource-pressure=false"],
                          input=asm, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=False)
    if proc.returncode != 0:
        fail("%s -mcpu=%s exited with %d: %s" % (mca, cpu, proc.returncode, proc.stderr[:2000]))
    total = int(TOTAL_RE.search(proc.stdout).group(1))
    insns = int(INSNS_RE.search(proc.stdout).group(1))
    iters = int(ITER_RE.search(proc.stdout).group(1))
    return total / iters, insns / iters


def measure(args, spec, funcs_cache):
    name, rest = spec.split("=", 1)
    m = re.match(r"^(.*?):([^:]*):([0-9.]+)(?::(\d+)(?::([0-9,]+))?)?$", rest)
    if not m:
        fail("--kernel '%s': expected NAME=FILE:SYMBOL_REGEX:DOTS[:LOOP[:TRIPS,...]]" % spec)
    path, regex, dots = m.group(1), m.group(2), float(m.group(3))
    loop_index = int(m.group(4)) if m.group(4) else args.loop
    trips = [int(t) for t in m.group(5).split(",")] if m.group(5) else []
    if path not in funcs_cache:
        funcs_cache[path] = disassemble(args.objdump, path)
    func, insns = find_function(funcs_cache[path], regex, path)
    start, end, _, _ = pick_loop(insns, loop_index)
    body = expand(insns, start, end, loops(insns), trips)
    keys = sum(1 for _, mnem, _ in body if KEY_RE.match(mnem))
    asm, forward = loop_asm(body)
    row = {"kernel": name, "file": path, "function": func, "loop_start": hex(body[0][0]),
           "loop_index": loop_index, "inner_trips": trips,
           "insns_per_iter": len(body), "key_insns_per_iter": keys, "dots_per_iter": dots,
           "forward_branches": forward, "cycles_per_iter": {}}
    for cpu in args.cpus.split(","):
        cycles, _ = run_mca(args.mca, cpu, asm, args.iterations)
        row["cycles_per_iter"][cpu] = cycles
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        with open("%s/%s.s" % (args.dump, re.sub(r"\W+", "_", name)), "w") as f:
            f.write(asm)
    return row


def print_table(rows, baseline_rows, cpus):
    base = {r["kernel"]: r for r in baseline_rows}
    head = "| kernel | insns/iter | dots/iter | " + " | ".join(
        "%s c/iter | %s c/dot" % (c, c) for c in cpus)
    if base:
        head += " | " + " | ".join("%s vs baseline" % c for c in cpus)
    print(head + " |")
    print("|" + "---|" * (3 + 2 * len(cpus) + (len(cpus) if base else 0)))
    for r in rows:
        cells = [r["kernel"], str(r["insns_per_iter"]), "%g" % r["dots_per_iter"]]
        for c in cpus:
            cyc = r["cycles_per_iter"].get(c)
            cells += ["-", "-"] if cyc is None else ["%.2f" % cyc, "%.3f" % (cyc / r["dots_per_iter"])]
        b = base.get(r["kernel"])
        if base:
            for c in cpus:
                if b and c in b["cycles_per_iter"] and c in r["cycles_per_iter"]:
                    mine = r["cycles_per_iter"][c] / r["dots_per_iter"]
                    theirs = b["cycles_per_iter"][c] / b["dots_per_iter"]
                    cells.append("%.2f" % (mine / theirs))
                else:
                    cells.append("-")
        print("| " + " | ".join(cells) + " |")


def print_pairs(rows, cpus):
    """For kernels named "<k> edgeq" and "<k> ggml": cycles per 32-value dot side by side."""
    by_name = {r["kernel"]: r for r in rows}
    pairs = [(n[:-len(" edgeq")], r, by_name.get(n[:-len(" edgeq")] + " ggml"))
             for n, r in by_name.items() if n.endswith(" edgeq")]
    pairs = [p for p in pairs if p[2]]
    if not pairs:
        return
    print()
    print("| kernel | " + " | ".join("%s edgeq / ggml c/dot" % c for c in cpus) + " |")
    print("|---|" + "---|" * len(cpus))
    for k, e, g in pairs:
        cells = []
        for c in cpus:
            ce = e["cycles_per_iter"][c] / e["dots_per_iter"]
            cg = g["cycles_per_iter"][c] / g["dots_per_iter"]
            cells.append("%.2f / %.2f = **%.2f**" % (ce, cg, ce / cg))
        print("| %s | %s |" % (k, " | ".join(cells)))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", action="append", default=[],
                        help="NAME=FILE:SYMBOL_REGEX:DOTS (repeatable)")
    parser.add_argument("--preset", nargs=2, metavar=("EDGEQ_OBJ_DIR", "GGML_OBJ_DIR"),
                        help="measure README.md's table of prefill GEMM loops")
    parser.add_argument("--list", help="FILE:SYMBOL_REGEX: print the function's loops")
    parser.add_argument("--loop", type=int, help="loop index of --list instead of the hottest")
    parser.add_argument("--cpus", default=DEFAULT_CPUS)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--objdump", default="aarch64-linux-gnu-objdump")
    parser.add_argument("--mca", default="llvm-mca-19")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--dump", help="directory to write each loop body's assembly to")
    parser.add_argument("--table-only", help="print the table of a --json file")
    parser.add_argument("--baseline", help="a --json file: adds this / baseline per core model")
    args = parser.parse_args()
    if args.iterations < 10:
        fail("--iterations %d: expected at least 10" % args.iterations)
    baseline = []
    if args.baseline:
        with open(args.baseline) as f:
            baseline = json.load(f)["rows"]
    if args.table_only:
        with open(args.table_only) as f:
            data = json.load(f)
        print_table(data["rows"], baseline, data["cpus"])
        print_pairs(data["rows"], data["cpus"])
        return
    if args.list:
        path, regex = args.list.rsplit(":", 1)
        func, insns = find_function(disassemble(args.objdump, path), regex, path)
        print(func)
        for i, (start, end, inner, keys) in enumerate(loops(insns)):
            print("loop %d: %#x..%#x, %d insns, innermost %s, %d dot/mmla" %
                  (i, insns[start][0], insns[end][0], end - start + 1, inner, keys))
        return
    if args.preset:
        args.kernel += preset_specs(*args.preset)
    if not args.kernel:
        fail("nothing to do; expected --kernel, --preset, --list or --table-only")
    cache = {}
    rows = [measure(args, spec, cache) for spec in args.kernel]
    cpus = args.cpus.split(",")
    for r in rows:
        if r["forward_branches"]:
            print("note: %s: %d branch(es) besides the loop's own in the body (an unrolled inner "
                  "loop's back branch, or a forward branch), simulated as not taken" %
                  (r["kernel"], r["forward_branches"]), file=sys.stderr)
    print_table(rows, baseline, cpus)
    print_pairs(rows, cpus)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpus": cpus, "iterations": args.iterations, "rows": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
