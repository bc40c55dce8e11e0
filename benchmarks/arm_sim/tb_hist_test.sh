#!/usr/bin/env bash
# tb_hist_test: the whole-model plugin (libtbhist.so) counts every instruction of known_loops.S
# (4057 with the markers, which are ordinary NOPs to it), and its block histogram adds up to that
# total: the sum over blocks of instructions x executions equals the total, and the 4-instruction
# loop body ran 999 times (its first iteration is part of the block that enters the loop).
set -euo pipefail

dir="$(dirname "$0")"
src="$dir/known_loops.S"
plugin="$dir/host/libtbhist.so"
[ -f "$plugin" ] || plugin="${TEST_SRCDIR}/${TEST_WORKSPACE}/benchmarks/arm_sim/host/libtbhist.so"
[ -f "$src" ] || src="${TEST_SRCDIR}/${TEST_WORKSPACE}/benchmarks/arm_sim/known_loops.S"
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAIL: $tool not found (tools/setup.sh installs gcc-aarch64-linux-gnu and qemu-user)" >&2
    exit 1
  fi
done
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
aarch64-linux-gnu-gcc -nostdlib -static -o "$tmp/known_loops" "$src"

failed=0
for cpu in max cortex-a76 cortex-a53; do
  hist="$tmp/hist_$cpu.txt"
  rm -f "$hist"
  out="$(qemu-aarch64 -cpu "$cpu" -plugin "file=$plugin,out=$hist" -d plugin "$tmp/known_loops" 2>&1)"
  summed="$(awk '$1 == "tb" { s += $3 * $4 } END { print s }' "$hist")"
  if [ "$out" != "arm_sim: total insns 4057" ] || ! grep -qx "total 4057" "$hist" ||
     [ "$summed" != 4057 ] || ! grep -Eq '^tb [0-9a-f]+ 4 999 4204009163040091210400f1a1ffff54$' "$hist"; then
    echo "FAIL (-cpu $cpu): expected total 4057 = sum of blocks ($summed) and the loop block run 999 times; got:" >&2
    echo "$out" >&2
    cat "$hist" >&2
    failed=1
  else
    echo "ok (-cpu $cpu): total 4057, blocks add up"
  fi
done

# A bad argument is refused (qemu exits non-zero) instead of being ignored.
if qemu-aarch64 -plugin "file=$plugin,bogus=1" "$tmp/known_loops" >"$tmp/bad.txt" 2>&1 ||
   ! grep -q "libtbhist takes out=PATH (got 'bogus=1')" "$tmp/bad.txt"; then
  echo "FAIL: an unknown plugin argument was not refused:" >&2
  cat "$tmp/bad.txt" >&2
  failed=1
else
  echo "ok: unknown argument refused"
fi
exit "$failed"
