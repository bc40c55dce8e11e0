#!/usr/bin/env python3
"""Per-op breakdown of whole_model.py's measurement: each hot block of a cell's difference
histogram is mapped to the function that holds it (nm of the guest binary, which must keep its
symbols) and the function to an op family; instructions and modelled cycles per token are summed
per family.

    python3 benchmarks/arm_sim/op_breakdown.py --json results_whole_model.json \\
        --binary edgeq=EDGEQ_AARCH64 --binary llama.cpp=LLAMA_BENCH \\
        --file 166m-q4_0 --cpu cortex-a76 [--phase decode] [--top 8]

A position-independent binary (edgeq) is loaded by qemu at some base: it is found by locating the
hottest blocks' bytes in the binary's executable segment. Blocks outside the binary (shared
libraries: libc, libstdc++, absl) are one family.
"""

import argparse
import bisect
import collections
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cycle_model  # noqa: E402
import whole_model  # noqa: E402

# (family, pattern on the demangled function name), first match wins. Patterns cover edgeq's
# kernels (runtime/kernels, runtime/internal) and ggml's (ggml-cpu, repack).
FAMILIES = [
    ("repack (load)", r"repack|Repack"),
    ("quantize activations", r"quantize_row_q8|Quantize(Row|Pair)Q8|quantize_mat_q8|"
                             r"QuantizeActivation|quantize_q8|Q8KQuantize|QuantizeQ8"),
    ("embedding lookup", r"DequantizeRow|get_rows|dequantize_row"),
    ("softmax", r"soft_max|softmax|Softmax"),
    ("attention", r"attention|Attention|flash_attn|FlashAttn|attn|AttendGroup|AttendRows|"
                  r"WeightedSum|ScoresTile|ScoresF16|DecodeF16|EncodeF16|"
                  r"vec_dot_f16|vec_mad_f16|KvCache|kv_cache|ggml_compute_forward_cpy|"
                  r"ggml_compute_forward_dup|ggml_compute_forward_set_rows|fp32_to_fp16|"
                  r"fp16_to_fp32"),
    ("norm", r"rms_norm|RmsNorm|rmsnorm|_norm|Norm"),
    ("rope", r"rope|Rope|RoPE"),
    ("swiglu/silu", r"swiglu|Swiglu|silu|Silu|SiLU|_glu|Glu"),
    ("elementwise add/mul", r"BinaryKernel|ggml_compute_forward_add|ggml_compute_forward_mul\b|"
                            r"ggml_vec_add|ggml_vec_mul"),
    ("thread sync", r"barrier|Barrier|pthread|futex|spin|ggml_graph_compute_thread|"
                    r"ThreadPool|threadpool|atomic"),
    ("argmax / sampling (bench loop)", r"Bench\(|argmax|max_element|Sampler|sampler"),
    ("graph build / scheduling", r"^llama_|^llm_|llm_graph|llm_build|ggml_backend_sched|"
                                 r"ggml_gallocr|ggml_new_tensor|ggml_hash|ggml_graph|"
                                 r"ggml_visit|ggml_backend|^ggml_[a-z_]*\(|Graph|Executor"),
    ("memcpy/memset", r"memcpy|memset|memmove"),
]
# Families decided before the qmatmul pattern (whose names also contain "dot" or a type).
EARLY = ("repack (load)", "attention")
QMATMUL_RE = re.compile(r"gemv|gemm|vec_dot|mul_mat|Gemv|Gemm|Matmul|MatMul|Tile|Dot", re.I)
TYPE_RE = re.compile(r"(q4_0|q4_?k|q6_?k|q8_0|q5_?k|iq4_nl|q4_1|q5_0|f16)", re.I)


def family_of(name):
    """The op family of a demangled function name."""
    if name is None:
        return "shared libraries"
    for family, pattern in FAMILIES:
        if family in EARLY and re.search(pattern, name):
            return family
    if QMATMUL_RE.search(name):
        m = TYPE_RE.search(name)
        if m:
            t = m.group(1).lower().replace("q4k", "q4_k").replace("q6k", "q6_k")
            return "qmatmul " + t.replace("q5k", "q5_k")
    for family, pattern in FAMILIES:
        if re.search(pattern, name):
            return family
    if QMATMUL_RE.search(name):
        return "qmatmul (driver)"
    return "other"


def load_symbols(binary, nm="aarch64-linux-gnu-nm"):
    """Sorted (address, demangled name) of the binary's functions."""
    out = subprocess.run([nm, "-n", "-C", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in ("t", "T", "w", "W"):
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def exec_segments(binary):
    """[(vaddr, file offset, size)] of the ELF's executable PT_LOAD segments, and the bytes."""
    with open(binary, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("%s: not a 64-bit ELF file" % binary)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segs = []
    for i in range(phnum):
        ptype, flags, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", data,
                                                                  phoff + i * phentsize)
        if ptype == 1 and flags & 1:
            segs.append((vaddr, off, filesz))
    return segs, data


def find_base(keys, binary):
    """Load base of `binary` in the guest: the most common guest - ELF address over the hottest
    blocks whose bytes occur once in an executable segment."""
    segs, data = exec_segments(binary)
    votes = collections.Counter()
    for vaddr, hex_bytes in keys[:40]:
        if len(hex_bytes) < 48:
            continue
        needle = bytes.fromhex(hex_bytes)
        for seg_vaddr, off, size in segs:
            pos = data.find(needle, off, off + size)
            if pos >= 0 and data.find(needle, pos + 1, off + size) < 0:
                votes[vaddr - (seg_vaddr + pos - off)] += 1
    if not votes:
        raise ValueError("%s: none of the hot blocks is in this binary (wrong --binary?)" %
                         binary)
    return votes.most_common(1)[0][0], segs


def function_of(addr, syms, starts):
    i = bisect.bisect_right(starts, addr) - 1
    return syms[i][1] if i >= 0 else None


def breakdown(record, binary, cache):
    """{family: {"insns": per token, mcpu: cycles per token}} and the top functions."""
    diff, keys, covered, total = whole_model.hot_diff(record)
    small, large = record["runs"]
    base, segs = find_base(keys, binary)
    syms = load_symbols(binary)
    starts = [s[0] for s in syms]
    lo = min(v for v, _, _ in segs)
    hi = max(v + s for v, _, s in segs)
    tokens = small["runs"] * (large["tokens"] - small["tokens"])
    mcpus = sorted(record.get("cycles_per_token", {}))
    cycles = {m: cache.cycles(m, [k[1] for k in keys]) for m in mcpus}
    fam = collections.defaultdict(lambda: collections.defaultdict(float))
    funcs = collections.Counter()
    for key in keys:
        n, d = diff[key]
        addr = key[0] - base
        name = function_of(addr, syms, starts) if lo <= addr < hi else None
        family = family_of(name)
        fam[family]["insns"] += n * d / tokens
        funcs[(family, (name or "shared libraries")[:110])] += n * d / tokens
        for m in mcpus:
            c = cycles[m].get(key[1])
            if c is not None:
                fam[family][m] += c * d / tokens
    fam["(blocks below the coverage)"]["insns"] += (total - covered) / tokens
    return fam, funcs, mcpus


def table(fam, mcpus):
    lines = ["| op family | M insns/token | " + " | ".join("%s M cycles" % m for m in mcpus) +
             " |", "|---|---:|" + "---:|" * len(mcpus)]
    for family, v in sorted(fam.items(), key=lambda kv: -kv[1]["insns"]):
        lines.append("| %s | %.2f | %s |" % (family, v["insns"] / 1e6, " | ".join(
            "%.2f" % (v.get(m, 0.0) / 1e6) for m in mcpus)))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", required=True, help="whole_model.py --json output")
    parser.add_argument("--binary", action="append", required=True, help="PROGRAM=PATH")
    parser.add_argument("--file", required=True)
    parser.add_argument("--cpu", required=True)
    parser.add_argument("--phase", default="decode,prefill")
    parser.add_argument("--mca-cache", required=True)
    parser.add_argument("--top", type=int, default=0, help="also list the top N functions")
    parser.add_argument("--out-json", help="write the breakdown here")
    args = parser.parse_args()
    binaries = dict(b.split("=", 1) for b in args.binary)
    with open(args.json) as f:
        records = json.load(f)["records"]
    cache = cycle_model.McaCache(args.mca_cache)
    result = {}
    for phase in args.phase.split(","):
        for r in records:
            if (r["file"], r["cpu"], r["phase"]) != (args.file, args.cpu, phase):
                continue
            if r["program"] not in binaries:
                continue
            fam, funcs, mcpus = breakdown(r, binaries[r["program"]], cache)
            print("\n%s, %s, -cpu %s, %s, per token:\n" % (r["program"], args.file, args.cpu,
                                                          phase))
            print(table(fam, mcpus))
            for (family, name), insns in funcs.most_common(args.top):
                print("- %.2fM insns: %s (%s)" % (insns / 1e6, name, family))
            result["%s %s" % (r["program"], phase)] = {k: dict(v) for k, v in fam.items()}
    cache.save()
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
