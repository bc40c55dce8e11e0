#!/usr/bin/env bash
# The one prefill rule (issue 29): run, chat, perplexity, the C API and Python all take the
# default ubatch from one place, llm/prefill_plan.h's kDefaultUbatchSize (read from the header
# here), and -ub/--ubatch-size, edgeq_llm_options.ubatch_size and ubatch_size= override it.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"

default=$(sed -n 's/^inline constexpr int kDefaultUbatchSize = \([0-9]*\);$/\1/p' "$ws/llm/prefill_plan.h")
check "kDefaultUbatchSize read from llm/prefill_plan.h (got '$default')" test -n "$default"
gen --shape=smollm2-135m --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=2048 \
  --vocab_size=300 --synthetic_vocab --out="$tmp/m.gguf" 2>/dev/null
check "make_random_gguf exit 0" test $? -eq 0
for i in $(seq 1 200); do echo "the cat sat on the mat and the dog ran in the park"; done >"$tmp/text.txt"

# Without -ub: the default, in every front end (the context holds more than it).
edgeq run "$tmp/m.gguf" -p "once upon a time" -n 4 --temp 0 -t 1 -c 1024 >/dev/null 2>"$tmp/run.err"
check "run: ubatch $default" grep -q "^prompt: .* 1 threads, ubatch $default$" "$tmp/run.err"
check "run: memory line with the KV cache and the activations" \
  grep -q "^memory: KV cache [0-9.]* MiB (f16), activations [0-9.]* MiB (ubatch $default; prefill blocks built: 16)$" "$tmp/run.err"
echo /exit | edgeq chat "$tmp/m.gguf" --template chatml -t 1 -c 1024 >/dev/null 2>"$tmp/chat.err"
check "chat: ubatch $default" grep -q "threads, ubatch $default$" "$tmp/chat.err"
edgeq perplexity "$tmp/m.gguf" -f "$tmp/text.txt" -c 1024 --chunks 1 -t 1 >/dev/null 2>"$tmp/ppl.err"
check "perplexity: ubatch $default" grep -q "KV cache, ubatch $default$" "$tmp/ppl.err"
check "perplexity: the chunk ran as one block of $default" \
  grep -q "^memory: .*prefill blocks built: $default)$" "$tmp/ppl.err"
edgeq bench "$tmp/m.gguf" -p 8 -n 0 -r 1 -t 1 -o json >/dev/null 2>"$tmp/bench.err"
check "bench: ubatch capped at the context (8 + 0 -> 17)" grep -q "(ubatch 17; " "$tmp/bench.err"

# -ub overrides it; out of range: one error line naming the flag and the range.
edgeq run "$tmp/m.gguf" -p "once upon a time" -n 1 --temp 0 -t 1 -c 1024 -ub 64 >/dev/null 2>"$tmp/r64.err"
check "run -ub 64" grep -q "^prompt: .*, ubatch 64$" "$tmp/r64.err"
echo /exit | edgeq chat "$tmp/m.gguf" --template chatml -t 1 -c 1024 --ubatch-size=32 >/dev/null 2>"$tmp/c32.err"
check "chat --ubatch-size=32" grep -q "threads, ubatch 32$" "$tmp/c32.err"
edgeq perplexity "$tmp/m.gguf" -f "$tmp/text.txt" -c 1024 --chunks 1 -t 1 -ub 1 >/dev/null 2>"$tmp/p1.err"
check "perplexity -ub 1: token by token" grep -q "^memory: .*(ubatch 1; prefill blocks built: none)$" "$tmp/p1.err"
for c in "run -p x" "perplexity -f $tmp/text.txt" "bench -p 8"; do
  expect_error "${c%% *} -ub 0" 1 "^edgeq ${c%% *}: error: --ubatch-size '0': expected an integer in \[1, 4096\]$" \
    edgeq $c "$tmp/m.gguf" -ub 0
done
expect_error "chat -ub 4097" 1 "^edgeq chat: error: --ubatch-size '4097': expected an integer in \[1, 4096\]$" \
  edgeq chat "$tmp/m.gguf" -ub 4097

# The C API through Python (edgeq_llm_options.ubatch_size = 0 unless given), on x86-64.
if [ -z "${EDGEQ_EXEC:-}" ] && readelf -h "$ws/sdk/libedgeq.so" | grep -q "X86-64" &&
  /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  out=$(EDGEQ_LIBRARY="$ws/sdk/libedgeq.so" PYTHONPATH="$ws/python" /usr/bin/python3 -c "
import edgeq
print(edgeq.llm.Model('$tmp/m.gguf', context_length=1024).ubatch_size,
      edgeq.llm.Model('$tmp/m.gguf', context_length=1024, ubatch_size=48).ubatch_size)" 2>&1)
  check "Python/C API: ubatch $default by default, 48 when given (got '$out')" test "$out" = "$default 48"
else
  echo "SKIPPED: the Python part runs on x86-64 with numpy only"
fi
finish
