#!/usr/bin/env python3
"""Markdown table of qmatmul_benchmark results: GFLOP/s, weight GB/s and ratios.

Usage:
  bazel run //benchmarks:qmatmul_benchmark -- --benchmark_format=json > /tmp/qmatmul.json
  python3 benchmarks/qmatmul_table.py /tmp/qmatmul.json [more runs...] [--best] [--isa avx2]
      [--compact] [--ggml g.json]

Every kernel row is compared with XNNPACK's f32 fully-connected operator on the same shape and
thread count, measured in the same run. --isa keeps the kernels of one level (e.g. avx2, to set
beside a ggml built for AVX2 only). --compact prints one row per shape, thread count and kernel
level with the encodings' figures side by side (q4_0 / q8_0 / q4_k / q5_k / q6_k). With --ggml, a JSON object {"<m>/<n>/<k>/<threads>/<enc>":
gflops} of ggml numbers measured in the same session adds a "vs ggml" column; the harness that
writes it, and how to build it outside this repository, are in benchmarks/ggml_side_by_side/.
"""
import argparse
import json
import re
import sys

ENCODINGS = ("q4_0", "q8_0", "q4_k", "q5_k", "q6_k", "bf16", "q4_1", "q5_0", "q5_1", "iq4_nl",
             "q2_k", "q3_k", "iq4_xs", "f16")
NAME = re.compile(r"^(?P<kernel>[^/]+)/m:(?P<m>\d+)/n:(?P<n>\d+)/k:(?P<k>\d+)/threads:(?P<t>\d+)")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("json_files", nargs="+",
                      help="benchmark JSON output; with several runs the best of each is used")
  parser.add_argument("--best", action="store_true",
                      help="only the fastest kernel per encoding, shape, m and thread count")
  parser.add_argument("--isa", help="only kernels of this level (their names hold _<isa>_)")
  parser.add_argument("--compact", action="store_true",
                      help="one row per shape, threads and level; encodings side by side")
  parser.add_argument("--ggml", action="append", default=[],
                      help="JSON of ggml GFLOP/s keyed m/n/k/threads/encoding (repeatable: best)")
  args = parser.parse_args()
  ggml = {}
  for path in args.ggml:
    with open(path) as f:
      for key, value in json.load(f).items():
        ggml[key] = max(value, ggml.get(key, 0.0))

  # Best of the runs per benchmark (the machine may be shared: slow runs are interference).
  results = {}
  for path in args.json_files:
    with open(path) as f:
      data = json.load(f)
    for b in data.get("benchmarks", []):
      m = NAME.match(b["name"])
      if not m or b.get("error_occurred") or b.get("run_type") == "aggregate":
        continue
      if args.isa and m["kernel"] != "xnnpack_f32" and f"_{args.isa}_" not in m["kernel"]:
        continue
      key = (int(m["m"]), int(m["n"]), int(m["k"]), int(m["t"]))
      gflops = b.get("GFLOPS", 0.0)
      gbps = b.get("weight_GBps", 0.0)
      old = results.get((key, m["kernel"]))
      if old is None or gflops > old[0]:
        results[(key, m["kernel"])] = (gflops, gbps)
  rows, base = [], {}
  for (key, kernel), (gflops, gbps) in results.items():
    if kernel == "xnnpack_f32":
      base[key] = gflops
    rows.append((key, kernel, gflops, gbps))
  if not rows:
    sys.exit("no qmatmul_benchmark results in " + " ".join(args.json_files))

  if args.best:
    best = {}
    for row in rows:
      key, kernel = row[0], row[1]
      enc = next((e for e in ENCODINGS if kernel.startswith(e + "_")), kernel)
      if (key, enc) not in best or row[2] > best[(key, enc)][2]:
        best[(key, enc)] = row
    rows = list(best.values())

  if args.compact:
    print_compact(rows, base, ggml)
    return

  header = "| m | n x k | threads | kernel | GFLOP/s | weight GB/s | vs XNNPACK f32 |"
  sep = "|---|---|---|---|---|---|---|"
  if ggml:
    header += " vs ggml |"
    sep += "---|"
  print(header)
  print(sep)
  for key, kernel, gflops, gbps in sorted(rows, key=lambda r: (r[0][1] * r[0][2], r[0][1], r[0][0], r[0][3], r[1])):
    m, n, k, t = key
    ratio = gflops / base[key] if base.get(key) else float("nan")
    line = f"| {m} | {n}x{k} | {t} | {kernel} | {gflops:.1f} | {gbps:.2f} | {ratio:.2f}x |"
    if ggml:
      enc = next((e for e in ENCODINGS if kernel.startswith(e + "_")), None)
      g = ggml.get(f"{m}/{n}/{k}/{t}/{enc}") if enc else None
      line += f" {gflops / g:.2f}x |" if g else " |"
    print(line)


def print_compact(rows, base, ggml):
  """Rows (m, n x k, threads, level) with per-encoding figures joined by " / "."""
  groups = {}
  for key, kernel, gflops, _ in rows:
    enc = next((e for e in ENCODINGS if kernel.startswith(e + "_")), None)
    if enc is None:
      continue
    level = kernel[len(enc) + 1:].rsplit("_", 1)[0]
    groups.setdefault((key, level), {})[enc] = gflops
  print("| m | n x k | threads | kernels | encodings | GFLOP/s | vs XNNPACK f32 | vs ggml |")
  print("|---|---|---|---|---|---|---|---|")
  for (key, level), by_enc in sorted(groups.items(), key=lambda g: (g[0][0][1] * g[0][0][2],
                                                                    g[0][0][1], g[0][0][0],
                                                                    g[0][0][3], g[0][1])):
    m, n, k, t = key
    encs = [e for e in ENCODINGS if e in by_enc]
    gf = " / ".join(f"{by_enc[e]:.0f}" for e in encs)
    xn = " / ".join(f"{by_enc[e] / base[key]:.1f}" for e in encs) + "x" if base.get(key) else ""
    gg = [ggml.get(f"{m}/{n}/{k}/{t}/{e}") for e in encs]
    gv = " / ".join(f"{by_enc[e] / g:.2f}" if g else "-" for e, g in zip(encs, gg)) + "x"
    print(f"| {m} | {n}x{k} | {t} | {level} | {' / '.join(encs)} | {gf} | {xn} | "
          f"{gv if any(gg) else ''} |")


if __name__ == "__main__":
  main()
