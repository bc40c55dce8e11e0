#!/usr/bin/env bash
# count_plugin_test: the qemu plugin (libcount.so) counts exactly the instructions executed in the
# marked regions of known_loops.S, under each qemu CPU model benchmarks/arm_sim measures.
set -euo pipefail

dir="$(dirname "$0")"
src="$dir/known_loops.S"
plugin="$dir/host/libcount.so"
[ -f "$plugin" ] || plugin="${TEST_SRCDIR}/${TEST_WORKSPACE}/benchmarks/arm_sim/host/libcount.so"
[ -f "$src" ] || src="${TEST_SRCDIR}/${TEST_WORKSPACE}/benchmarks/arm_sim/known_loops.S"

for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAIL: $tool not found (tools/setup.sh installs gcc-aarch64-linux-gnu and qemu-user)" >&2
    exit 1
  fi
done

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
aarch64-linux-gnu-gcc -nostdlib -static -o "$tmp/known_loops" "$src"

# The counts stated in known_loops.S.
expected="arm_sim: region 0 insns 4001
arm_sim: region 1 insns 3
arm_sim: region 2 insns 0
arm_sim: region 3 insns 2
arm_sim: region 4 insns 2
arm_sim: region 5 insns 2
arm_sim: region 6 insns 2
arm_sim: region 7 insns 2
arm_sim: region 8 insns 6
arm_sim: region 9 insns 8
arm_sim: regions 10 errors 0"

failed=0
for cpu in max cortex-a76 cortex-a53; do
  log="$tmp/log_$cpu.txt"
  rm -f "$log"
  qemu-aarch64 -cpu "$cpu" -plugin "file=$plugin" -d plugin -D "$log" "$tmp/known_loops"
  if [ "$(cat "$log")" != "$expected" ]; then
    echo "FAIL (-cpu $cpu): plugin output differs from the expected counts" >&2
    diff <(echo "$expected") "$log" >&2 || true
    failed=1
  else
    echo "ok (-cpu $cpu): 10 regions, counts exact"
  fi
done

# A stop marker without a start, and a start left open, are reported as errors.
cat >"$tmp/unbalanced.S" <<'ASM'
        .text
        .global _start
_start: hint #127
        hint #126
        nop
        mov x0, #0
        mov x8, #93
        svc #0
ASM
aarch64-linux-gnu-gcc -nostdlib -static -o "$tmp/unbalanced" "$tmp/unbalanced.S"
log="$tmp/log_unbalanced.txt"
rm -f "$log"
qemu-aarch64 -plugin "file=$plugin" -d plugin -D "$log" "$tmp/unbalanced"
if ! grep -qx "arm_sim: regions 0 errors 2" "$log"; then
  echo "FAIL: unbalanced markers were not reported as 2 errors:" >&2
  cat "$log" >&2
  failed=1
else
  echo "ok: unbalanced markers reported"
fi
exit "$failed"
