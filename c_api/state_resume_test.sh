#!/usr/bin/env bash
# Saved sessions across processes, through the C API: N tokens and a save in one process, a load
# and M more tokens in another, give the tokens of one uninterrupted run of N + M (greedy and
# seeded sampling with penalties), for tiny random llama and qwen3 models; a truncated, corrupted
# or foreign state file is refused with its own message.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
run() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/c_api/state_resume" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"

tiny=(--layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=128 --vocab_size=300)
gen --shape=smollm2-135m "${tiny[@]}" --out="$tmp/llama.gguf" 2>/dev/null
check "make llama" test $? -eq 0
gen --shape=qwen3-0.6b "${tiny[@]}" --out="$tmp/qwen3.gguf" 2>/dev/null
check "make qwen3" test $? -eq 0
gen --shape=smollm2-135m "${tiny[@]}" --seed=9 --out="$tmp/other.gguf" 2>/dev/null
check "make another llama" test $? -eq 0

for m in llama qwen3; do
  for s in greedy seeded; do
    want=$(run "$tmp/$m.gguf" full 30 - "$s")
    a=$(run "$tmp/$m.gguf" save 11 "$tmp/$m.$s.state" "$s")
    b=$(run "$tmp/$m.gguf" resume 19 "$tmp/$m.$s.state" "$s")
    check "$m $s: 30 tokens generated" test "$(echo "$want" | wc -w)" -eq 30
    check "$m $s: save + resume in new processes = one run" test "$a $b" = "$want"
    check "$m $s: no temporary file left" test -z "$(ls "$tmp" | grep "\.tmp\.")"
  done
done

st="$tmp/llama.greedy.state"
head -c 100 "$st" >"$tmp/trunc.state"
run "$tmp/llama.gguf" resume 1 "$tmp/trunc.state" greedy 2>"$tmp/e1" >/dev/null
check "truncated: exit 1" test $? -eq 1
check "truncated: message" grep -q "trunc.state is truncated or padded: its header says" "$tmp/e1"
cp "$st" "$tmp/flip.state"
printf '\xff' | dd of="$tmp/flip.state" bs=1 seek=200 conv=notrunc 2>/dev/null
run "$tmp/llama.gguf" resume 1 "$tmp/flip.state" greedy 2>"$tmp/e2" >/dev/null
check "corrupted: message" grep -q "flip.state is corrupted: its XXH64 checksum does not match" "$tmp/e2"
run "$tmp/other.gguf" resume 1 "$st" greedy 2>"$tmp/e3" >/dev/null
check "foreign: message" grep -q "is for another model: same shape (llama dim 64 layers 2 heads 4/2 head_dim 16 ffn 96 vocab 300 kv f16) but the weights differ" "$tmp/e3"
run "$tmp/qwen3.gguf" resume 1 "$st" greedy 2>"$tmp/e4" >/dev/null
check "other architecture: message" grep -q "is for another model: 'llama dim 64" "$tmp/e4"
finish
