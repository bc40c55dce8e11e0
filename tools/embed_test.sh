#!/usr/bin/env bash
# `edgeq embed` end to end on the random llama model of llm/testdata/embed (make_random_gguf):
# llama-embedding's text output with its values (mean and last pooling, within 1e-5 of
# llama.cpp's), one line per text and the cosine matrix for several, json/array formats, and one
# `error:` line for a bad pooling.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
data="$ws/llm/testdata/embed"
source "$ws/tests/shell/check.sh"

gen --shape=smollm2-135m --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=256 \
  --vocab_size=300 --synthetic_vocab --out="$tmp/m.gguf" 2>/dev/null
check "make model" test $? -eq 0
p="the quick brown fox jumps over the lazy dog and runs to the big red barn"
for pool in mean last; do
  edgeq embed "$tmp/m.gguf" -p "$p" --pooling $pool -t 1 >"$tmp/$pool.txt" 2>"$tmp/$pool.err"
  check "$pool: exit 0" test $? -eq 0
  check "$pool: one embedding line of 64 values" \
    test "$(grep -c '^embedding 0: ' "$tmp/$pool.txt")" -eq 1 -a \
    "$(grep '^embedding 0: ' "$tmp/$pool.txt" | wc -w)" -eq 66
  od -An -v -f -w4 "$data/smollm2-135m_$pool.f32" | awk '{print $1}' >"$tmp/$pool.want"
  grep '^embedding 0: ' "$tmp/$pool.txt" | tr -s ' ' '\n' | tail -n +3 | grep -v '^$' >"$tmp/$pool.got"
  check "$pool: values within 1e-5 of llama-embedding's" \
    awk 'NR==FNR {w[FNR]=$1; next} {d=$1-w[FNR]; if (d<0) d=-d; if (d>1.5e-5) bad=1; n++}
         END {exit !(n==64 && !bad)}' "$tmp/$pool.want" "$tmp/$pool.got"
done
edgeq embed "$tmp/m.gguf" -p $'a dog\na cat\nthe barn' -t 1 >"$tmp/three.txt" 2>/dev/null
check "three texts: three lines of 16 values" \
  test "$(grep -c '^embedding [0-2]: ' "$tmp/three.txt")" -eq 3 -a \
  "$(grep '^embedding 2: ' "$tmp/three.txt" | wc -w)" -eq 18
check "three texts: the cosine matrix, 1.00 on its diagonal" \
  bash -c "grep -q '^cosine similarity matrix:' '$tmp/three.txt' && grep -q '^  1.00 .*a dog$' '$tmp/three.txt'"
edgeq embed "$tmp/m.gguf" -p $'a dog\na cat' --embd-output-format json -t 1 >"$tmp/e.json" 2>/dev/null
check "json: two embeddings of 64" python3 -c "
import json, sys
d = json.load(open('$tmp/e.json'))
assert d['object'] == 'list' and [e['index'] for e in d['data']] == [0, 1]
assert all(len(e['embedding']) == 64 for e in d['data'])"
edgeq embed "$tmp/m.gguf" -p "a dog" --pooling none --embd-output-format array -t 1 >"$tmp/a.json" 2>/dev/null
check "array, pooling none: one row per token" python3 -c "
import json; a = json.load(open('$tmp/a.json')); assert len(a) == 5 and len(a[0]) == 64, len(a)"
edgeq embed "$tmp/m.gguf" -p "a dog" --pooling max 2>"$tmp/bad.err" >/dev/null
check "bad pooling: exit 1" test $? -eq 1
check "bad pooling: the reason" grep -q "pooling 'max'; expected one of none, mean, cls, last" "$tmp/bad.err"
finish
