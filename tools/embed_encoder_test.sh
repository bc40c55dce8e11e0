#!/usr/bin/env bash
# `edgeq embed` with encoders (bert, nomic-bert) end to end: the random tiny models of
# llm/testdata/embed (make_random_encoder with the bert-bge WordPiece vocabulary), llama-embedding's
# values (within 1.5e-5), several texts from -f FILE in one batch (each its own sequence: the
# first line's embedding is the one of -p alone), --normalize, and the refusal of --tokenizer.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_encoder" "$@"; }
tmp="$TEST_TMPDIR"
data="$ws/llm/testdata/embed"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"
reference_data_dir vocab
vocab=$REPLY

p="the quick brown fox jumps over the lazy dog and runs to the big red barn"
for m in bert_tiny:bert-tiny nomic_tiny:nomic-bert-tiny; do
  name=${m%%:*} shape=${m##*:}
  gen --shape=$shape --vocab="$vocab/ggml-vocab-bert-bge.gguf" --out="$tmp/$name.gguf"
  check "$name: make model" test $? -eq 0
  for pool in mean cls; do
    edgeq embed "$tmp/$name.gguf" -p "$p" --pooling $pool -t 1 >"$tmp/$pool.txt" 2>/dev/null
    check "$name $pool: exit 0" test $? -eq 0
    od -An -v -f -w4 "$data/encoder_${name}_$pool.f32" | awk '{print $1}' >"$tmp/$pool.want"
    grep '^embedding 0: ' "$tmp/$pool.txt" | tr -s ' ' '\n' | tail -n +3 | grep -v '^$' >"$tmp/$pool.got"
    check "$name $pool: 64 values within 1.5e-5 of llama-embedding's" \
      awk 'NR==FNR {w[FNR]=$1; next} {d=$1-w[FNR]; if (d<0) d=-d; if (d>1.5e-5) bad=1; n++}
           END {exit !(n==64 && !bad)}' "$tmp/$pool.want" "$tmp/$pool.got"
  done
done
printf '%s\nhello world\na\n' "$p" >"$tmp/texts.txt"
edgeq embed "$tmp/bert_tiny.gguf" -f "$tmp/texts.txt" --pooling mean --normalize 2 \
  --embd-output-format array -t 1 >"$tmp/batch.json" 2>/dev/null
check "batch: exit 0" test $? -eq 0
edgeq embed "$tmp/bert_tiny.gguf" -p "$p" --pooling mean --embd-output-format array -t 1 \
  >"$tmp/one.json" 2>/dev/null
check "batch: three embeddings, the first equal to -p alone's, unit length" python3 -c "
import json, math
b = json.load(open('$tmp/batch.json')); o = json.load(open('$tmp/one.json'))
assert len(b) == 3 and all(len(e) == 64 for e in b), len(b)
assert max(abs(x - y) for x, y in zip(b[0], o[0])) < 2e-6
assert all(abs(math.sqrt(sum(x * x for x in e)) - 1) < 1e-5 for e in b)"
edgeq embed "$tmp/bert_tiny.gguf" -p "a" --tokenizer x 2>"$tmp/bad.err" >/dev/null
check "--tokenizer with an encoder: exit 1" test $? -eq 1
check "--tokenizer with an encoder: the reason" \
  grep -q "tokenizer is for decoder models; an encoder tokenizes with its file's vocabulary" "$tmp/bad.err"
finish
