#!/usr/bin/env bash
# edgeq's side of every whole-model cell of issue 34, from a clean checkout: builds the histogram
# plugin and the aarch64 edgeq, then runs whole_model.py for each file x qemu CPU (both phases,
# 1 thread), once with the default kernel schedules and, on the dotprod and i8mm paths, once more
# with EDGEQ_CORE_SCHEDULE=inorder (the schedule the in-order cores select; their core models'
# cells are read from those records). With llama.cpp's records beside them it prints the
# summary tables (README.md, "Every cell").
#
#   benchmarks/arm_sim/make_models.sh MODELS_DIR 4          # the GGUF files (once)
#   benchmarks/arm_sim/all_cells.sh [-j JOBS] [-l LAYERS] OUT_DIR MODELS_DIR [LLAMA_RECORDS.json ...]
#
# MODELS_DIR holds 166m-{q4_0,q4_k_m,q8_0}.gguf and qwen3-0.6b-lLAYERS-{q4_0,q4_k_m,q8_0}.gguf
# (make_models.sh MODELS_DIR LAYERS; LAYERS 4 by default, 28 for the full depth). OUT_DIR receives edgeq.json and edgeq_inorder.json (the
# merged records), cells/ (one record file per cell), work/ (histograms), mca_cache.json and
# tables.md. JOBS (default 1) cells run at once, each one qemu process at a time. llama.cpp's
# records are made by whole_model.py --programs llama.cpp with the builds README.md describes;
# the committed ones are results_whole_model_2026-11-28_llama.json.
set -euo pipefail

usage="usage: all_cells.sh [-j JOBS] [-l LAYERS] OUT_DIR MODELS_DIR [LLAMA_RECORDS.json ...]"
jobs=1
layers=4
while [ $# -gt 0 ]; do
  case "$1" in
    -j | -l)
      [ $# -ge 2 ] || { echo "all_cells: $1 needs a value; $usage" >&2; exit 2; }
      case "$2" in '' | *[!0-9]* | 0)
        echo "all_cells: $1 expects a positive number, got '$2'" >&2
        exit 2
        ;;
      esac
      if [ "$1" = -j ]; then jobs="$2"; else layers="$2"; fi
      shift 2
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d'
      exit 0
      ;;
    -*)
      echo "all_cells: unknown option $1; $usage" >&2
      exit 2
      ;;
    *) break ;;
  esac
done
out="${1:?$usage}"
models="${2:?$usage}"
shift 2
llama_records=("$@")
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

qwen="qwen3-0.6b-l$layers"
files="166m-q4_0 166m-q4_k_m 166m-q8_0 $qwen-q4_0 $qwen-q4_k_m $qwen-q8_0"
cpus="max cortex-a76 cortex-a53"
for f in $files; do
  if [ ! -f "$models/$f.gguf" ]; then
    echo "all_cells: $models/$f.gguf missing (make it with make_models.sh $models $layers)" >&2
    exit 1
  fi
done
for r in "${llama_records[@]}"; do
  [ -f "$r" ] || { echo "all_cells: llama.cpp records $r missing" >&2; exit 1; }
done

mkdir -p "$out/cells" "$out/work"
# Copies (each right after its build: bazel-bin follows the last build's configuration), so that
# later builds do not change the binaries under a running measurement.
(cd "$repo" && bazel build //benchmarks/arm_sim:tbhist_host &&
  cp -f "$(bazel info bazel-bin)/benchmarks/arm_sim/host/libtbhist.so" "$out/libtbhist.so" &&
  bazel build --config=aarch64 -c opt //tools:edgeq &&
  cp -f "$(bazel info --config=aarch64 -c opt bazel-bin)/tools/edgeq" "$out/edgeq-aarch64")
git -C "$repo" rev-parse HEAD >"$out/edgeq_commit.txt"

# cell FILE CPU SCHEDULE: one whole_model.py run, its own record file and log.
cell() {
  local file="$1" cpu="$2" schedule="$3" name="$1.$2"
  [ "$schedule" = inorder ] && name="$name.inorder"
  if [ -s "$out/cells/$name.json" ]; then
    echo "$name: kept"
    return 0
  fi
  (
    if [ "$schedule" = inorder ]; then export EDGEQ_CORE_SCHEDULE=inorder; else
      unset EDGEQ_CORE_SCHEDULE; fi
    exec python3 "$here/whole_model.py" --plugin "$out/libtbhist.so" --edgeq "$out/edgeq-aarch64" \
    --model "$file=$models/$file.gguf" --cells "$file:$cpu" --programs edgeq \
    --work "$out/work/$name" --mca-cache "$out/mca_cache.json" \
    --json "$out/cells/$name.json.part"
  ) >"$out/cells/$name.log" 2>&1 || {
    echo "$name: failed, see $out/cells/$name.log" >&2
    return 1
  }
  mv "$out/cells/$name.json.part" "$out/cells/$name.json"
  echo "$name: done"
}

list=()
for f in $files; do
  for cpu in $cpus; do
    list+=("$f $cpu default")
    [ "$cpu" = cortex-a53 ] || list+=("$f $cpu inorder")
  done
done
failed=0
running=0
for item in "${list[@]}"; do
  # shellcheck disable=SC2086
  cell $item &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
[ "$failed" = 0 ] || { echo "all_cells: some cells failed" >&2; exit 1; }

defaults=()
inorders=()
for item in "${list[@]}"; do
  # shellcheck disable=SC2086
  set -- $item
  if [ "$3" = inorder ]; then inorders+=("$out/cells/$1.$2.inorder.json"); else
    defaults+=("$out/cells/$1.$2.json"); fi
done
python3 "$here/whole_model.py" --merge "$out/edgeq.json" "${defaults[@]}"
python3 "$here/whole_model.py" --merge "$out/edgeq_inorder.json" "${inorders[@]}"
if [ "${#llama_records[@]}" -gt 0 ]; then
  python3 "$here/whole_model.py" --table-only "${llama_records[@]}" "$out/edgeq.json" \
    --inorder "$out/edgeq_inorder.json" | tee "$out/tables.md"
fi
