#!/usr/bin/env bash
# One binary must run on any x86-64 or ARMv8 CPU without SIGILL: instructions above the baseline
# may appear only in the kernels that dispatch selects after checking the CPU for their ISA. This
# test disassembles a whole program (examples/tinystories: every kernel, the runtime, XNNPACK glue,
# checkpoints, flags) and checks, level by level, that every function using a level's instructions
# is a kernel of that level (or of a higher one that includes it):
#   x86-64: any VEX/EVEX instruction (mnemonic v...) only in the x86 kernels; AVX-VNNI's
#           {vex} vpdp* only in the AVX-VNNI kernels; zmm or mask registers only in the AVX-512
#           ones (EVEX forms of xmm/ymm instructions are not told apart by objdump);
#   aarch64: sdot/udot only in the dotprod and i8mm kernels, smmla/ummla/usmmla only in i8mm.
# An inline function compiled into an ISA file and merged by the linker with another file's copy
# would show up here.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/check.sh"
bin="$TEST_SRCDIR/$TEST_WORKSPACE/examples/tinystories/tinystories"
tmp="$TEST_TMPDIR"

machine=$(readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
case "$machine" in
  *X86-64*) objdump=objdump ;;
  *AArch64*) objdump=aarch64-linux-gnu-objdump ;;
  *) echo "FAIL: unknown machine '$machine' of $bin"; exit 1 ;;
esac
installed() { command -v "$1" >/dev/null; }
check "$objdump is installed" installed "$objdump"

# "function<TAB>instruction" for every instruction of the program (demangled names; the operands
# follow the mnemonic after a space).
"$objdump" -d --no-show-raw-insn -C "$bin" | awk '
  /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); next }
  /^ +[0-9a-f]+:\t/ { i = $0; sub(/^ +[0-9a-f]+:\t/, "", i); gsub(/\t/, " ", i); print fn "\t" i }
' >"$tmp/instructions.tsv"

# level NAME INSTRUCTION_REGEX ALLOWED_FUNCTION_REGEX MINIMUM: the functions holding an instruction
# that matches must all match ALLOWED, and there must be at least MINIMUM of them (the scan must
# find the kernels themselves, else it proves nothing).
level() {
  local name="$1" insn="$2" allowed="$3" minimum="$4"
  awk -F'\t' -v re="$insn" '$2 ~ re { print $1 }' "$tmp/instructions.tsv" | sort -u >"$tmp/fns.txt"
  local count
  count=$(wc -l <"$tmp/fns.txt")
  echo "$name: $count functions"
  check "$name: the kernels are found (>= $minimum functions)" test "$count" -ge "$minimum"
  grep -Ev "$allowed" "$tmp/fns.txt" >"$tmp/outside.txt"
  check "$name: no such instruction outside its kernels" test ! -s "$tmp/outside.txt"
  sed 's/^/  outside: /' "$tmp/outside.txt" | head -20
}

kernels='edgeq::kernels::internal::'
case "$machine" in
  *X86-64*)
    level "above the baseline" '^(\{(vex|evex)\} )?v' "$kernels.*(x86::|Avx2|AvxVnni|Avx512)" 40
    level "AVX-VNNI" '^\{vex\} vpdp' "$kernels.*(VnniQuads|AvxVnni)" 10
    level "AVX-512" '%zmm|%k[1-7]' "$kernels.*(X16Tile|X16Matmul|Avx512)" 10
    ;;
  *AArch64*)
    level "dotprod" '^[su]dot[[:space:]]' "$kernels.*(Dotprod|SdotLanes|SdotPairs|I8mm)" 5
    level "i8mm" '^(smmla|ummla|usmmla)[[:space:]]' "$kernels.*I8mm" 3
    ;;
esac
finish
