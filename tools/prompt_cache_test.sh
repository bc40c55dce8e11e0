#!/usr/bin/env bash
# `edgeq run --prompt-cache FILE`: the first run saves the prompt's state, the second reuses all
# of it and writes the same text as a run without a cache (greedy and seeded); a longer prompt
# that begins with the cached one reuses its tokens and rewrites the file; another prompt
# ignores it; a corrupted or foreign file is one `error:` line.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"

small=(--shape=smollm2-135m --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=256
       --vocab_size=300 --synthetic_vocab)
gen "${small[@]}" --out="$tmp/m.gguf" 2>/dev/null
check "make model" test $? -eq 0
gen "${small[@]}" --seed=3 --out="$tmp/other.gguf" 2>/dev/null
p="once upon a time there was a little dog"
for s in "--temp 0" "--temp 1 --seed 5 --top-k 0"; do
  edgeq run "$tmp/m.gguf" -p "$p" -n 16 -c 128 -t 1 $s >"$tmp/plain.txt" 2>/dev/null
  rm -f "$tmp/c.state"
  edgeq run "$tmp/m.gguf" -p "$p" -n 16 -c 128 -t 1 $s --prompt-cache "$tmp/c.state" \
    >"$tmp/first.txt" 2>"$tmp/first.err"
  check "$s: first run exit 0" test $? -eq 0
  check "$s: first run reuses nothing" grep -q "^prompt cache: 0 of 35 prompt tokens reused" "$tmp/first.err"
  check "$s: first run saved the file" test -s "$tmp/c.state"
  edgeq run "$tmp/m.gguf" -p "$p" -n 16 -c 128 -t 1 $s --prompt-cache "$tmp/c.state" \
    >"$tmp/second.txt" 2>"$tmp/second.err"
  check "$s: second run reuses the whole prompt" grep -q "^prompt cache: 35 of 35 prompt tokens reused" "$tmp/second.err"
  check "$s: second run reports no prompt token run" grep -q "^prefill: 0 tokens in" "$tmp/second.err"
  check "$s: first run = plain run" cmp -s "$tmp/plain.txt" "$tmp/first.txt"
  check "$s: cached run = plain run" cmp -s "$tmp/plain.txt" "$tmp/second.txt"
done
edgeq run "$tmp/m.gguf" -p "$p and a cat" -n 4 -c 128 -t 1 --temp 0 --prompt-cache "$tmp/c.state" \
  >/dev/null 2>"$tmp/longer.err"
check "a longer prompt reuses the cached prefix" grep -q "^prompt cache: 35 of 42 prompt tokens reused" "$tmp/longer.err"
edgeq run "$tmp/m.gguf" -p "$p and a cat" -n 4 -c 128 -t 1 --temp 0 --prompt-cache "$tmp/c.state" \
  >/dev/null 2>"$tmp/longer2.err"
check "and rewrote the file" grep -q "^prompt cache: 42 of 42 prompt tokens reused" "$tmp/longer2.err"
edgeq run "$tmp/m.gguf" -p "a dog" -n 4 -c 128 -t 1 --temp 0 --prompt-cache "$tmp/c.state" \
  >/dev/null 2>"$tmp/other.err"
check "another prompt ignores the cache" grep -q "^prompt cache: 0 of 5 prompt tokens reused" "$tmp/other.err"
edgeq run "$tmp/other.gguf" -p "a dog" -n 4 -c 128 -t 1 --prompt-cache "$tmp/c.state" \
  >/dev/null 2>"$tmp/foreign.err"
check "another model's cache: exit 1" test $? -eq 1
check "another model's cache: the reason" grep -q "c.state is for another model: same shape" "$tmp/foreign.err"
finish
