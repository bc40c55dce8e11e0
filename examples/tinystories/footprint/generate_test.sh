#!/usr/bin/env bash
# The footprint `generate` binary: a .max made by `edgeq quantize` runs, greedy f32 text equals
# run.c's, and bad input gives one clear line and a non-zero exit code.
set -uo pipefail
root="$TEST_SRCDIR/$TEST_WORKSPACE"
# Under --config=aarch64, EDGEQ_EXEC (tools/qemu_aarch64.sh) runs the binaries under qemu.
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$root/examples/tinystories/footprint/generate" "$@"; }
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$root/tools/edgeq" "$@"; }
data="$root/tests/testdata"
tmp="$TEST_TMPDIR"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/check.sh"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/reference_data.sh"
reference_data_dir models
models=$REPLY

edgeq quantize "$models/stories260K.bin" "$tmp/f32.max" --encoding=none --quiet >/dev/null
check "f32 .max written" test -s "$tmp/f32.max"
gen "$tmp/f32.max" --tokenizer="$models/tok512.bin" --temperature=0 --prompt="Once upon a time" \
  --steps=256 >"$tmp/out.txt" 2>"$tmp/err.txt"
check "f32 greedy exit 0" test $? -eq 0
check "stdout is run.c's story" cmp "$tmp/out.txt" "$data/tinystories/once_upon_a_time.txt"
check "stderr has the decode speed" grep -q "^decode: .* tokens/s" "$tmp/err.txt"
# The same without unwind tables (the smaller file of the size table).
${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$root/examples/tinystories/footprint/generate_no_unwind.bin" \
  "$tmp/f32.max" --tokenizer="$models/tok512.bin" --temperature=0 --prompt="Once upon a time" \
  --steps=256 >"$tmp/out_nu.txt" 2>/dev/null
check "no-unwind build: run.c's story" cmp "$tmp/out_nu.txt" "$data/tinystories/once_upon_a_time.txt"

edgeq quantize "$models/stories260K.bin" "$tmp/q4.max" --quiet >/dev/null
gen "$tmp/q4.max" --tokenizer="$models/tok512.bin" --temperature=0.8 --seed=42 --steps=64 \
  --prompt="Lily wanted" >"$tmp/q4.txt" 2>/dev/null
check "q4_0 exit 0" test $? -eq 0
check "q4_0 prints the prompt first" grep -q "^Lily wanted" "$tmp/q4.txt"
gen "$tmp/q4.max" --tokenizer="$models/tok512.bin" --temperature=0.8 --seed=42 --steps=64 \
  --prompt="Lily wanted" --threads=2 >"$tmp/q4_t2.txt" 2>/dev/null
check "q4_0 with 2 threads gives the same story" cmp "$tmp/q4.txt" "$tmp/q4_t2.txt"

# A .max the pipeline saved carries its vocabulary: generate needs no --tokenizer, and prints what
# the pipeline printed.
${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$root/examples/tinystories/tinystories" \
  --model="$models/stories260K.bin" --tokenizer="$models/tok512.bin" --out="$tmp/pipe.max" \
  --temperature=0 --prompt="The cat" --steps=64 --quiet >"$tmp/pipe.txt" 2>/dev/null
check "pipeline --out exit 0" test $? -eq 0
gen "$tmp/pipe.max" --temperature=0 --prompt="The cat" --steps=64 >"$tmp/gen_pipe.txt" 2>/dev/null
check "pipeline .max runs alone" test $? -eq 0
check "same story as the pipeline" cmp "$tmp/pipe.txt" "$tmp/gen_pipe.txt"

expect_error "no model" 2 "no model given" gen
expect_error "missing model" 1 "nonexistent.max" gen /nonexistent.max
expect_error "no vocabulary" 1 "carries no vocabulary; pass --tokenizer" gen "$tmp/q4.max"
expect_error "unknown flag" 2 "unknown flag --temp " gen "$tmp/q4.max" --temp=1
expect_error "bad number" 2 "\-\-topp=2: expected a number in \[0, 1\]" gen "$tmp/q4.max" --topp=2
expect_error "mismatched tokenizer" 1 "" gen "$tmp/q4.max" --tokenizer="$tmp/f32.max"
expect_error "not a .max" 1 "" gen "$models/stories260K.bin" --tokenizer="$models/tok512.bin"
gen --help >"$tmp/help.txt"
check "--help exit 0" test $? -eq 0
check "--help prints usage" grep -q "^Usage: generate MODEL.max" "$tmp/help.txt"

finish
