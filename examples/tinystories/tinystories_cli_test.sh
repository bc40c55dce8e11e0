#!/usr/bin/env bash
# The tinystories binary as users script it: story on stdout only, sizes and speeds on stderr,
# --out writes a self-contained .max that runs again without --tokenizer, and bad flags or files
# give one clear error line and a non-zero exit code.
set -uo pipefail
binary="$TEST_SRCDIR/$TEST_WORKSPACE/examples/tinystories/tinystories"
# Under --config=aarch64, EDGEQ_EXEC (tools/qemu_aarch64.sh) runs the binary under qemu.
bin() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$binary" "$@"; }
data="$TEST_SRCDIR/$TEST_WORKSPACE/tests/testdata"
tmp="$TEST_TMPDIR"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/check.sh"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/reference_data.sh"
reference_data_dir models
models=$REPLY

# Greedy f32 from the llama2.c file: stdout is exactly run.c's text.
bin --model="$models/stories260K.bin" --tokenizer="$models/tok512.bin" --encoding=none \
  --temperature=0 --prompt="Once upon a time" --steps=256 >"$tmp/out.txt" 2>"$tmp/err.txt"
check "f32 greedy exit 0" test $? -eq 0
check "stdout is run.c's story" cmp -s "$tmp/out.txt" "$data/tinystories/once_upon_a_time.txt"
check "stderr has decode speed" grep -q "^decode: 252 tokens" "$tmp/err.txt"

# Default rules (q4_0) saved to .max, then the .max alone (vocabulary inside).
bin --model="$models/stories260K.bin" --tokenizer="$models/tok512.bin" --out="$tmp/m.max" \
  --temperature=0 --prompt="Once upon a time" --steps=64 >"$tmp/q1.txt" 2>"$tmp/q1.err"
check "--out exit 0" test $? -eq 0
check "--out wrote the file" test -s "$tmp/m.max"
check "fallback is reported" grep -q "blk.0.ffn_down.weight: q4_0 -> bf16 (k = 172 is not a multiple of 32)" "$tmp/q1.err"
check "sizes are reported" grep -q "^size: f32 1.040 MB -> 0.228 MB" "$tmp/q1.err"
bin --model="$tmp/m.max" --temperature=0 --prompt="Once upon a time" --steps=64 \
  >"$tmp/q2.txt" 2>"$tmp/q2.err"
check ".max runs without --tokenizer" test $? -eq 0
check ".max gives the same story" cmp -s "$tmp/q1.txt" "$tmp/q2.txt"
check "prompt is printed first" grep -q "^Once upon a time" "$tmp/q2.txt"

# Bad input: one clear line, exit code 1 (2 for a stray argument).
expect_error "missing model" 1 "error: .*nonexistent.bin" bin --model=/nonexistent.bin
expect_error "unknown encoding" 1 "unknown encoding 'q3'" bin --encoding=q3
# Not a tokenizer of this model's 512 pieces.
expect_error "mismatched tokenizer" 1 "mismatched tokenizer" bin --model="$models/stories260K.bin" \
  --tokenizer="$tmp/m.max"
expect_error "bad --out" 1 "expected a path ending in .max" bin --out="$tmp/x.bin"
expect_error "stray argument" 2 "unexpected argument 'story'" bin story
printf 'blk.* q4_0\n' >"$tmp/bad_rules.txt"
expect_error "bad rules file" 1 "bad_rules.txt:1: expected 'PATTERN -> ENCODING'" bin --rules="$tmp/bad_rules.txt"
long=$(printf 'Once upon a time %.0s' $(seq 1 200))
expect_error "prompt longer than the context" 1 "context holds 512" bin --prompt="$long"
expect_error "no tokenizer" 1 "carries no vocabulary" bin --model="$models/stories260K.bin"

finish
