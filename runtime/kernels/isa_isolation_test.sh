#!/usr/bin/env bash
# One binary must run on any x86-64 or ARMv8 CPU without SIGILL: instructions above the baseline
# may appear only in the ISA kernels that dispatch selects after checking the CPU. This test
# disassembles a whole program (examples/tinystories: every kernel, the runtime, XNNPACK glue,
# checkpoints, flags) and checks that every function using them is an ISA kernel:
#   x86-64: any VEX/EVEX instruction (mnemonic v...: AVX, AVX2, FMA, F16C, AVX-VNNI, AVX-512) only
#           in edgeq::kernels::internal functions of the x86 files (x86::..., *Avx2*, *AvxVnni*,
#           *Avx512*);
#   aarch64: sdot/udot (dotprod) and smmla/ummla/usmmla (i8mm) only in the Dotprod/I8mm kernels.
# An inline function compiled into an ISA file and merged by the linker with the baseline copy
# would show up here.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/check.sh"
bin="$TEST_SRCDIR/$TEST_WORKSPACE/examples/tinystories/tinystories"
tmp="$TEST_TMPDIR"

machine=$(readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
case "$machine" in
  *X86-64*)
    objdump=objdump
    mnemonics='^v'
    allowed='edgeq::kernels::internal::.*(x86::|Avx2|AvxVnni|Avx512)'
    ;;
  *AArch64*)
    objdump=aarch64-linux-gnu-objdump
    mnemonics='^(sdot|udot|smmla|ummla|usmmla)$'
    allowed='edgeq::kernels::internal::.*(Dotprod|I8mm)'
    ;;
  *) echo "FAIL: unknown machine '$machine' of $bin"; exit 1 ;;
esac
installed() { command -v "$1" >/dev/null; }
check "$objdump is installed" installed "$objdump"

# Every function (demangled) that holds at least one such instruction, once.
"$objdump" -d --no-show-raw-insn -C "$bin" | awk -v re="$mnemonics" '
  /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); next }
  /^ +[0-9a-f]+:\t/ { split($0, f, "\t"); split(f[2], m, " "); if (m[1] ~ re) print fn }
' | sort -u >"$tmp/functions.txt"
count=$(wc -l <"$tmp/functions.txt")
echo "functions using instructions above the baseline: $count"
# The scan must find the kernels themselves (else it proves nothing).
check "the ISA kernels are found (>= 10 functions)" test "$count" -ge 10
grep -Ev "$allowed" "$tmp/functions.txt" >"$tmp/outside.txt"
check "no such instruction outside the ISA kernels" test ! -s "$tmp/outside.txt"
sed 's/^/  outside: /' "$tmp/outside.txt" | head -20
finish
