#!/usr/bin/env python3
"""Markdown table of qmatmul_benchmark results: GFLOP/s, weight GB/s and ratios.

Usage:
  bazel run //benchmarks:qmatmul_benchmark -- --benchmark_format=json > /tmp/qmatmul.json
  python3 benchmarks/qmatmul_table.py /tmp/qmatmul.json [--ggml ggml.json]

Every kernel row is compared with XNNPACK's f32 fully-connected operator on the same shape and
thread count, measured in the same run. With --ggml, a JSON object {"<m>/<n>/<k>/<threads>/<enc>":
gflops} of ggml numbers measured in the same session adds a "vs ggml" column.
"""
import argparse
import json
import re
import sys

NAME = re.compile(r"^(?P<kernel>[^/]+)/m:(?P<m>\d+)/n:(?P<n>\d+)/k:(?P<k>\d+)/threads:(?P<t>\d+)")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("json_file")
  parser.add_argument("--ggml", help="JSON of ggml GFLOP/s keyed m/n/k/threads/encoding")
  args = parser.parse_args()
  with open(args.json_file) as f:
    data = json.load(f)
  ggml = {}
  if args.ggml:
    with open(args.ggml) as f:
      ggml = json.load(f)

  rows, base = [], {}
  for b in data.get("benchmarks", []):
    m = NAME.match(b["name"])
    if not m or b.get("error_occurred"):
      continue
    key = (int(m["m"]), int(m["n"]), int(m["k"]), int(m["t"]))
    gflops = b.get("GFLOPS", 0.0) / 1e0
    gbps = b.get("weight_GBps", 0.0)
    if m["kernel"] == "xnnpack_f32":
      base[key] = gflops
    rows.append((key, m["kernel"], gflops, gbps))
  if not rows:
    sys.exit("no qmatmul_benchmark results in " + args.json_file)

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
      enc = kernel.split("_")[0] + "_" + kernel.split("_")[1] if "_" in kernel else kernel
      g = ggml.get(f"{m}/{n}/{k}/{t}/{enc}")
      line += f" {gflops / g:.2f}x |" if g else " |"
    print(line)


if __name__ == "__main__":
  main()
