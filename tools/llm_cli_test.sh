#!/usr/bin/env bash
# `edgeq run`, `edgeq perplexity` and `edgeq bench` end to end on small random models written by
# make_random_gguf (a made-up SentencePiece vocabulary), then on the real stories260K GGUF: text
# on stdout, reports on stderr, the same output for the same seed, and one `error:` line with
# exit code 1 for bad input.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
# Under --config=aarch64, EDGEQ_EXEC (tools/qemu_aarch64.sh) runs the binaries under qemu.
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"

small=(--shape=smollm2-135m --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=64
       --vocab_size=300)
gen "${small[@]}" --synthetic_vocab --out="$tmp/m.gguf" 2>"$tmp/gen.err"
check "make_random_gguf exit 0" test $? -eq 0
check "make_random_gguf reports the shape" grep -q "dim 64, 2 layers, 4 heads, 2 kv heads" "$tmp/gen.err"
gen "${small[@]}" --synthetic_vocab --arch=mamba --out="$tmp/mamba.gguf" 2>/dev/null
gen "${small[@]}" --out="$tmp/novocab.gguf" 2>/dev/null
gen "${small[@]}" --synthetic_vocab --context=256 --out="$tmp/c256.gguf" 2>/dev/null

# run: greedy is deterministic; the prompt is printed first; the report goes to stderr.
edgeq run "$tmp/m.gguf" -p "once upon a time" -n 12 --temp 0 -t 1 >"$tmp/g1.txt" 2>"$tmp/g1.err"
check "run greedy exit 0" test $? -eq 0
edgeq run "$tmp/m.gguf" --prompt="once upon a time" --n-predict=12 --temp=0 -t 1 >"$tmp/g2.txt" 2>/dev/null
check "run greedy twice: same text" cmp -s "$tmp/g1.txt" "$tmp/g2.txt"
check "run prints the prompt first" grep -q "^once upon a time" "$tmp/g1.txt"
check "run reports 12 decoded tokens" grep -q "decode: 12 tokens" "$tmp/g1.err"
check "run reports the model" grep -q "llama: 2 layers, embedding 64, ffn 96, 4 heads (2 kv, dim 16), vocab 300" "$tmp/g1.err"
check "run reports the sampler" grep -q "^sampler: temp 0.00, top_k 40, top_p 0.950, min_p 0.050" "$tmp/g1.err"
# Without -c the cache holds prompt + n rounded up to 64 (14 + 60 -> 128), else the model's 256.
edgeq run "$tmp/c256.gguf" -p "once upon a time" -n 60 --temp 0 -t 1 >/dev/null 2>"$tmp/k1.err"
check "run sizes the cache to prompt + n" grep -q "^prompt: 14 tokens, context 128 (f16 KV cache, 0.03 MiB), 1 threads" "$tmp/k1.err"
edgeq run "$tmp/c256.gguf" -p "once upon a time" -n 2 -c 200 --temp 0 -t 1 >/dev/null 2>"$tmp/k2.err"
check "run takes -c" grep -q "^prompt: 14 tokens, context 200 (f16 KV cache" "$tmp/k2.err"
# Sampled with a seed: the same seed gives the same text.
edgeq run "$tmp/m.gguf" -p "the" -n 20 --seed 7 --temp 1.2 --top-k 0 --top-p 1 --min-p 0 -t 1 >"$tmp/s1.txt" 2>/dev/null
edgeq run "$tmp/m.gguf" -p "the" -n 20 --seed 7 --temp 1.2 --top-k 0 --top-p 1 --min-p 0 -t 1 >"$tmp/s2.txt" 2>/dev/null
check "run with a seed twice: same text" cmp -s "$tmp/s1.txt" "$tmp/s2.txt"
# The context ends generation: 64 positions, a 14-token prompt (BOS + 13, llama.cpp's SPM).
edgeq run "$tmp/m.gguf" -p "once upon a time" --ignore-eos --temp 0 -t 1 >/dev/null 2>"$tmp/c.err"
check "run stops at the context" grep -q "decode: 51 tokens.*stop: context full" "$tmp/c.err"

# perplexity: llama-perplexity's output lines, the same value twice.
for i in $(seq 1 40); do echo "the cat sat on the mat and the dog ran in the park"; done >"$tmp/text.txt"
edgeq perplexity "$tmp/m.gguf" -f "$tmp/text.txt" -c 32 -t 1 >"$tmp/p1.txt" 2>"$tmp/p1.err"
check "perplexity exit 0" test $? -eq 0
check "perplexity prints chunks" grep -q "^\[1\][0-9.]*,\[2\]" "$tmp/p1.txt"
check "perplexity prints the final estimate" grep -q "^Final estimate: PPL = [0-9.]* +/- [0-9.]*$" "$tmp/p1.txt"
edgeq perplexity "$tmp/m.gguf" -f "$tmp/text.txt" -c 32 -t 1 >"$tmp/p2.txt" 2>/dev/null
check "perplexity twice: same value" cmp -s "$tmp/p1.txt" "$tmp/p2.txt"
echo "short" >"$tmp/short.txt"
expect_error "perplexity text too short" 1 "error: .*short.txt' tokenizes to .* tokens; a context of 32 needs at least 64" \
  edgeq perplexity "$tmp/m.gguf" -f "$tmp/short.txt" -c 32 -t 1

# The q8_0 KV cache (-ctk/-ctv q8_0, llama.cpp's spelling): head dim 32 (dim 128, 4 heads); its
# perplexity within 1% of the f32 cache's; 34/128 of its bytes; bad types and head dims named.
gen --shape=smollm2-135m --layers=2 --dim=128 --heads=4 --kv_heads=2 --ffn=96 --context=64 \
  --vocab_size=300 --synthetic_vocab --out="$tmp/h32.gguf" 2>/dev/null
edgeq perplexity "$tmp/h32.gguf" -f "$tmp/text.txt" -c 32 -t 1 >"$tmp/q0.txt" 2>/dev/null
edgeq perplexity "$tmp/h32.gguf" -f "$tmp/text.txt" -c 32 -t 1 -ctk q8_0 -ctv q8_0 >"$tmp/q8.txt" 2>"$tmp/q8.err"
check "perplexity q8_0 cache exit 0" test $? -eq 0
check "perplexity reports the q8_0 cache" grep -q "1 threads, q8_0 KV cache" "$tmp/q8.err"
ppl() { sed -n 's/^Final estimate: PPL = \([0-9.]*\) .*/\1/p' "$1"; }
check "perplexity q8_0 cache within 1% of f32" awk -v a="$(ppl "$tmp/q0.txt")" -v b="$(ppl "$tmp/q8.txt")" \
  'BEGIN { d = (a - b) / a; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d < 0.01) }'
edgeq run "$tmp/h32.gguf" -p "the" -n 4 --temp 0 -t 1 -c 64 --cache-type-k=q8_0 >/dev/null 2>"$tmp/q8r.err"
check "run reports the q8_0 cache's bytes" grep -q "context 64 (q8_0 KV cache, 0.02 MiB)" "$tmp/q8r.err"
expect_error "cache type q4_0" 1 "error: --cache-type-k: unsupported KV cache type 'q4_0'; expected f32, f16 or q8_0" \
  edgeq run "$tmp/h32.gguf" -p "the" -n 1 -ctk q4_0
# The f16 cache (llama.cpp's default type): perplexity within 0.1% of the f32 cache's.
edgeq perplexity "$tmp/h32.gguf" -f "$tmp/text.txt" -c 32 -t 1 -ctk f16 -ctv f16 >"$tmp/f16.txt" 2>"$tmp/f16.err"
check "perplexity f16 cache exit 0" test $? -eq 0
check "perplexity reports the f16 cache" grep -q "1 threads, f16 KV cache" "$tmp/f16.err"
check "perplexity f16 cache within 0.1% of f32" awk -v a="$(ppl "$tmp/q0.txt")" -v b="$(ppl "$tmp/f16.txt")" \
  'BEGIN { d = (a - b) / a; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d < 0.001) }'
expect_error "cache types differ" 1 "error: --cache-type-k is q8_0 but --cache-type-v is f32; edgeq keeps K and V in one type" \
  edgeq run "$tmp/h32.gguf" -p "the" -n 1 -ctk q8_0 -ctv f32
expect_error "q8_0 cache, head dim 16" 1 "q8_0 KV cache needs a head dimension that is a multiple of 32; this model's is 16" \
  edgeq run "$tmp/m.gguf" -p "the" -n 1 -ctv q8_0

# bench: one row per thread count and test, in each format.
edgeq bench "$tmp/m.gguf" -p 16 -n 8 -r 2 -t 1 >"$tmp/b.md" 2>/dev/null
check "bench md exit 0" test $? -eq 0
check "bench md header" grep -q "^| model | size | params | backend | threads | test | t/s | peak RSS | kernels |" "$tmp/b.md"
check "bench md pp16 row" grep -q "^| llama .* F32 | 0.31 MiB | .* | CPU | 1 | pp16 | [0-9.]* ± [0-9.]* | [0-9.]* MiB | .*matmul" "$tmp/b.md"
check "bench md tg8 row" grep -q "| CPU | 1 | tg8 |" "$tmp/b.md"
# The ttft row first: model open to the first generated token of a 16-token prompt, in parts.
check "bench md ttft row" grep -q "^| llama .* | CPU | 1 | ttft | [0-9.]* ms | [0-9.]* MiB | open [0-9.]* + load [0-9.]* + repack [0-9.]* + prefill 16 [0-9.]* + first decode [0-9.]* ms |$" "$tmp/b.md"
check "bench md: ttft before pp16" test "$(grep -n "| ttft |" "$tmp/b.md" | cut -d: -f1)" -lt "$(grep -n "| pp16 |" "$tmp/b.md" | cut -d: -f1)"
edgeq bench "$tmp/m.gguf" -p 16 -n 0 -r 1 -t 1 -o csv >"$tmp/b.csv" 2>/dev/null
check "bench csv: header, ttft and one test row" test "$(wc -l <"$tmp/b.csv")" -eq 3
check "bench csv row" grep -q "^\"llama .*\",\"F32\",[0-9]*,[0-9]*,1,16,0,0,\"pp16\"," "$tmp/b.csv"
check "bench csv ttft row" grep -q "^\"llama .*\",\"F32\",[0-9]*,[0-9]*,1,16,1,0,\"ttft\",0.000000,0.000000,[0-9.]*,[0-9]*,\"\",\"\",\"open " "$tmp/b.csv"
# Memory by kind on stderr (llm::Model::Memory): the cache of 17 positions (16 + 1) takes 2 layers
# x K/V x 2 kv heads x 17 x 16 floats = 8704 bytes (-ctk f32).
edgeq bench "$tmp/m.gguf" -p 16 -n 0 -r 1 -t 1 -ctk f32 >/dev/null 2>"$tmp/bm.err"
check "bench memory by kind" grep -q "^memory by kind, 1 threads: weights [0-9.]* MiB (read in place [0-9.]*, repacked copies [0-9.]*), KV cache 0.01 MiB, recurrent states 0.00 MiB, rest [0-9.]* MiB (activations [0-9.]*, head and logits [0-9.]*, inputs [0-9.]*, other heap [0-9.]*)$" "$tmp/bm.err"
edgeq bench "$tmp/m.gguf" -p 0 -n 4 -r 1 -t 1 -o json >"$tmp/b.json" 2>/dev/null
check "bench json" grep -q "\"n_threads\": 1, \"n_prompt\": 0, \"n_gen\": 4, \"n_depth\": 0, \"test\": \"tg4\"" "$tmp/b.json"
# -d/--n-depth: each test after N positions of the cache were filled (llama-bench's rows).
edgeq bench "$tmp/m.gguf" -p 8 -n 4 -r 1 -t 1 -d 0,20 >"$tmp/d.md" 2>/dev/null
check "bench -d exit 0" test $? -eq 0
for t in pp8 tg4 "pp8 @ d20" "tg4 @ d20"; do
  check "bench -d 0,20: $t row" grep -q "| CPU | 1 | $t | [0-9.]* ± [0-9.]* |" "$tmp/d.md"
done
edgeq bench "$tmp/m.gguf" -p 8 -n 0 -r 1 -t 1 -d 20 -o json >"$tmp/d.json" 2>/dev/null
check "bench -d json" grep -q "\"n_prompt\": 8, \"n_gen\": 0, \"n_depth\": 20, \"test\": \"pp8 @ d20\"" "$tmp/d.json"
expect_error "bench -d x" 1 "error: --n-depth 'x': expected a comma-separated list of at most 64 integers in \[0, 1048576\]" \
  edgeq bench "$tmp/m.gguf" -p 8 -n 0 -r 1 -t 1 -d x
# --profile: a table per test, ops by time, the attention and the matmuls among them; the shares
# add up to about 100%. --roofline: the decode row's weight bytes per second against a measured
# read bandwidth; the bandwidth buffer (1 GiB, in a child process) is not in the peak RSS.
edgeq bench "$tmp/m.gguf" -p 16 -n 4 -r 1 -t 1 -b 8 --profile --roofline >"$tmp/p.md" 2>/dev/null
check "bench --profile exit 0" test $? -eq 0
check "profile pp16 title" grep -q "^profile: pp16, 1 threads, 1 timed runs (.* ms per token in kernels)" "$tmp/p.md"
check "profile tg4 title" grep -q "^profile: tg4, 1 threads" "$tmp/p.md"
check "profile attention row" grep -q "^| attention | attention_[a-z0-9_]* | [0-9]* |" "$tmp/p.md"
check "profile matmul row" grep -Eq "^\| matmul(_transposed)? \|" "$tmp/p.md"
shares=$(awk -F'|' '/^profile: tg4/{on=1} on && /^\| [a-z]/ && $7 ~ /%/ {gsub(/[ %]/, "", $7); s += $7} END {printf "%d", s + 0.5}' "$tmp/p.md")
check "profile tg4 shares sum to 100% (got $shares)" test "$shares" -ge 99 -a "$shares" -le 101
check "roofline column" grep -q "| CPU | 1 | tg4 | .* GB/s read; weights .* GB/s = [0-9]*% |$" "$tmp/p.md"
rss=$(sed -n 's/^| llama .* | CPU | 1 | tg4 | [0-9.]* ± [0-9.]* | \([0-9]*\)\.[0-9]* MiB |.*/\1/p' "$tmp/p.md")
check "roofline buffer not in the peak RSS (got $rss MiB)" test -n "$rss" -a "${rss:-9999}" -lt 500

# Every architecture (issue 16): tiny random models of qwen2 (q/k/v biases), qwen3 (q/k norm),
# gemma3 (sliding window of 4 over a 14-token prompt + 12), phi3 (fused qkv and gate/up): run is
# deterministic and reports the architecture; bench gives pp and tg rows.
tiny=(--layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=64 --vocab_size=300 --synthetic_vocab)
gen --shape=qwen2.5-0.5b "${tiny[@]}" --out="$tmp/qwen2.gguf" 2>/dev/null
gen --shape=qwen3-0.6b "${tiny[@]}" --head_dim=32 --out="$tmp/qwen3.gguf" 2>/dev/null
gen --shape=gemma3-270m "${tiny[@]}" --layers=3 --head_dim=16 --sliding_window=4 --out="$tmp/gemma3.gguf" 2>/dev/null
gen --shape=phi3.5-mini "${tiny[@]}" --kv_heads=4 --out="$tmp/phi3.gguf" 2>/dev/null
gen --shape=lfm2-1.2b "${tiny[@]}" --layers=3 --out="$tmp/lfm2.gguf" 2>/dev/null  # conv, conv, attention
gen --shape=qwen3.5-tiny --layers=4 --context=64 --vocab_size=300 --synthetic_vocab --out="$tmp/qwen35.gguf" 2>/dev/null
# gemma4 (issue 30): its tiny preset (shared-KV layers, per-layer embeddings, window 16).
gen --shape=gemma4-tiny --context=64 --vocab_size=300 --synthetic_vocab --out="$tmp/gemma4.gguf" 2>/dev/null
# qwen3moe, lfm2moe (issue 30): their tiny presets (8 experts, 2 per token; lfm2moe 2 dense layers).
gen --shape=qwen3moe-tiny --context=64 --vocab_size=300 --synthetic_vocab --out="$tmp/qwen3moe.gguf" 2>/dev/null
gen --shape=lfm2moe-tiny --context=64 --vocab_size=300 --synthetic_vocab --out="$tmp/lfm2moe.gguf" 2>/dev/null
for a in qwen2 qwen3 gemma3 phi3 lfm2 qwen35 gemma4 qwen3moe lfm2moe; do
  edgeq run "$tmp/$a.gguf" -p "once upon a time" -n 12 --temp 0 -t 1 >"$tmp/$a.1.txt" 2>"$tmp/$a.err"
  check "$a run exit 0" test $? -eq 0
  edgeq run "$tmp/$a.gguf" -p "once upon a time" -n 12 --temp 0 -t 1 >"$tmp/$a.2.txt" 2>/dev/null
  check "$a run greedy twice: same text" cmp -s "$tmp/$a.1.txt" "$tmp/$a.2.txt"
  check "$a run reports the architecture" grep -q "^model: .*($a: .* layers, embedding 64" "$tmp/$a.err"
  check "$a run reports 12 decoded tokens" grep -q "decode: 12 tokens" "$tmp/$a.err"
  edgeq bench "$tmp/$a.gguf" -p 16 -n 4 -r 1 -t 1 >"$tmp/$a.md" 2>/dev/null
  check "$a bench exit 0" test $? -eq 0
  check "$a bench pp16 row" grep -q "^| $a .* | CPU | 1 | pp16 | [0-9.]* ± [0-9.]* |" "$tmp/$a.md"
  check "$a bench tg4 row" grep -q "| CPU | 1 | tg4 |" "$tmp/$a.md"
done

# lfm2's conv states through perplexity (each chunk restarts at position 0).
for i in $(seq 40); do echo "once upon a time there was a little girl who loved the park"; done >"$tmp/ppl.txt"
edgeq perplexity "$tmp/lfm2.gguf" -f "$tmp/ppl.txt" -c 32 -t 1 >"$tmp/lfm2.ppl" 2>&1
check "lfm2 perplexity exit 0" test $? -eq 0
check "lfm2 perplexity final estimate" grep -q "^Final estimate: PPL = [0-9.]*" "$tmp/lfm2.ppl"

# --help of each command.
for c in run perplexity bench; do
  edgeq "$c" --help >"$tmp/h.txt" 2>&1
  check "$c --help exit 0" test $? -eq 0
  check "$c --help usage" grep -q "^Usage: edgeq $c MODEL" "$tmp/h.txt"
done

# Bad input: one error line, exit 1.
expect_error "run missing model" 1 "^edgeq run: error: .*nonexistent.gguf" edgeq run /nonexistent.gguf -p x
echo "not a model" >"$tmp/bad.gguf"
expect_error "run wrong magic" 1 "^edgeq run: error: .*bad.gguf" edgeq run "$tmp/bad.gguf" -p x
expect_error "run unknown architecture" 1 "error: .*architecture 'mamba' is not supported; supported: llama, qwen2, qwen3, gemma3, phi3, smollm3, lfm2" \
  edgeq run "$tmp/mamba.gguf" -p x
expect_error "run prompt longer than the context" 1 "error: the prompt is [0-9]* tokens long, but the context holds 4" \
  edgeq run "$tmp/m.gguf" -p "once upon a time" -c 4 -t 1
expect_error "run without a vocabulary" 1 "error: .*novocab.gguf' carries no vocabulary" \
  edgeq run "$tmp/novocab.gguf" -p x -t 1
expect_error "run unknown option" 1 "error: unknown option '--tmep'" edgeq run "$tmp/m.gguf" -p x --tmep 1
expect_error "run bad number" 1 "error: --n-predict 'ten': expected an integer in \[-1, 2147483647\]" edgeq run "$tmp/m.gguf" -p x -n ten
expect_error "run bad top-p" 1 "error: sampler option top_p is 2" edgeq run "$tmp/m.gguf" -p x --top-p 2 -t 1
expect_error "run no prompt" 1 "error: no prompt given" edgeq run "$tmp/m.gguf"
expect_error "perplexity missing file" 1 "error: perplexity text '/nonexistent.txt': cannot open" \
  edgeq perplexity "$tmp/m.gguf" -f /nonexistent.txt
expect_error "bench bad format" 1 "error: -o 'xml': expected md, csv or json" edgeq bench "$tmp/m.gguf" -o xml
expect_error "bench bad threads" 1 "error: --threads '0'" edgeq bench "$tmp/m.gguf" -t 0

# Hostile input (issue 27): each refused with exit 1 and one error line, never an abort, a hang
# or a silently truncated value.
expect_one_line_error() {
  local name="$1" pattern="$2"; shift 2
  expect_error "$name" 1 "$pattern" "$@"
  check "$name: one line" test "$(wc -l <"$TEST_TMPDIR/expect_error.err")" -eq 1
}
# F4: endless streams and oversized files are read at most to their cap (32 MiB of text).
expect_one_line_error "perplexity -f /dev/zero" \
  "^edgeq perplexity: error: perplexity text '/dev/zero': longer than the limit of 33554432 bytes$" \
  edgeq perplexity "$tmp/m.gguf" -f /dev/zero -t 1
expect_one_line_error "run -f /dev/zero" \
  "^edgeq run: error: prompt file '/dev/zero': longer than the limit of 33554432 bytes$" \
  edgeq run "$tmp/m.gguf" -f /dev/zero -t 1
expect_one_line_error "perplexity -f a directory" "error: perplexity text '.*': is a directory" \
  edgeq perplexity "$tmp/m.gguf" -f "$tmp" -t 1
# F11: integers beyond int are refused, not truncated (-n 4294967297 ran as -n 1).
expect_one_line_error "run -n 4294967297" "^edgeq run: error: --n-predict '4294967297': expected an integer in \[-1, 2147483647\]$" \
  edgeq run "$tmp/m.gguf" -p x -n 4294967297
expect_one_line_error "run --top-k 4294967297" "error: --top-k '4294967297': expected an integer in \[-2147483648, 2147483647\]$" \
  edgeq run "$tmp/m.gguf" -p x --top-k 4294967297
expect_one_line_error "run --repeat-last-n 4294967296" "error: --repeat-last-n '4294967296': expected an integer in \[-1, 2147483647\]$" \
  edgeq run "$tmp/m.gguf" -p x --repeat-last-n 4294967296
expect_one_line_error "run -c 2^64" "error: --ctx-size '18446744073709551616': expected an integer in \[0, 1048576\]$" \
  edgeq run "$tmp/m.gguf" -p x -c 18446744073709551616
expect_one_line_error "run -s 2^32" "error: --seed '4294967296': expected an integer in \[-1, 4294967295\]$" \
  edgeq run "$tmp/m.gguf" -p x -s 4294967296
expect_one_line_error "run -n +1" "error: --n-predict '+1': expected an integer" edgeq run "$tmp/m.gguf" -p x -n +1
expect_one_line_error "perplexity --chunks 2^32" "error: --chunks '4294967296': expected an integer in \[-1, 2147483647\]$" \
  edgeq perplexity "$tmp/m.gguf" -f "$tmp/text.txt" --chunks 4294967296
expect_one_line_error "bench -b 2^32" "error: --ubatch-size '4294967296': expected an integer in \[1, 4096\]$" \
  edgeq bench "$tmp/m.gguf" -b 4294967296
big_value=$(head -c 100000 /dev/zero | tr '\0' '9')
expect_one_line_error "run --top-k of 100000 digits: the value is cut" "error: --top-k '9\{64\}'\.\.\. (100000 bytes)" \
  edgeq run "$tmp/m.gguf" -p x --top-k "$big_value"
check "run --top-k of 100000 digits: a short line" test "$(wc -c <"$TEST_TMPDIR/expect_error.err")" -lt 300
# A model whose last 64 KiB of f32 weights are +Inf: its logits are not finite, and perplexity printed
# "PPL = -nan" with exit code 0; it is refused.
printf '\x00\x00\x80\x7f' >"$tmp/inf.bin"
for i in $(seq 14); do cat "$tmp/inf.bin" "$tmp/inf.bin" >"$tmp/inf2.bin"; mv "$tmp/inf2.bin" "$tmp/inf.bin"; done
head -c $(($(wc -c <"$tmp/m.gguf") - 65536)) "$tmp/m.gguf" >"$tmp/inf.gguf"
cat "$tmp/inf.bin" >>"$tmp/inf.gguf"
expect_error "perplexity of a model with Inf weights" 1 \
  "^edgeq perplexity: error: perplexity: logit [0-9]* (of 300) at position [0-9]* of chunk 0 is -*\(nan\|inf\); the model computes non-finite values" \
  edgeq perplexity "$tmp/inf.gguf" -f "$tmp/text.txt" -c 32 -t 1 --chunks 2
check "perplexity of a model with Inf weights: one error line" \
  test "$(grep -c "error" "$TEST_TMPDIR/expect_error.err")" -eq 1
# F5: thread counts above 4 x the online CPUs (at most 256) are refused; -t 300 under a 2 GiB
# address-space limit hung in pthreadpool_create.
# (Under qemu, EDGEQ_EXEC, and ASan, which map far more address space themselves: no ulimit.)
if [ -n "${EDGEQ_EXEC:-}" ] || grep -q -e AddressSanitizer -e __asan_init "$ws/tools/edgeq"; then
  expect_one_line_error "run -t 300" "^edgeq run: error: --threads '300': expected an integer in \[0, " \
    edgeq run "$tmp/m.gguf" -p x -t 300
else
  expect_one_line_error "run -t 300 under ulimit -v 2 GiB" "^edgeq run: error: --threads '300': expected an integer in \[0, [0-9]*\] (0: the default; at most 4 x the [0-9]* online CPUs, at most 256)$" \
    bash -c 'ulimit -v 2097152 && "$@"' _ "$ws/tools/edgeq" run "$tmp/m.gguf" -p x -t 300
fi
expect_one_line_error "bench -t 1,1024" "error: --threads '1,1024': expected a comma-separated list of at most 64 integers in \[1, " \
  edgeq bench "$tmp/m.gguf" -t 1,1024
# F12: a temperature so small that logits / t overflow is greedy (it made NaN probabilities and
# picked the last candidate).
edgeq run "$tmp/m.gguf" -p "once upon a time" -n 12 --temp 1e-45 --top-k 0 --top-p 1 --min-p 0 -s 5 -t 1 \
  >"$tmp/tiny_temp.txt" 2>/dev/null
check "run --temp 1e-45 exit 0" test $? -eq 0
check "run --temp 1e-45 --top-k 0 --top-p 1 --min-p 0 is greedy" cmp -s "$tmp/tiny_temp.txt" "$tmp/g1.txt"

# tokenize: the model's own vocabulary; --ids; errors.
edgeq tokenize "$tmp/m.gguf" "once upon" >"$tmp/t1.txt" 2>"$tmp/t1.err"
check "tokenize exit 0" test $? -eq 0
check "tokenize prints BOS first" grep -q "^ *1 -> '<s>'$" "$tmp/t1.txt"
check "tokenize prints a line per token" test "$(wc -l <"$tmp/t1.txt")" -ge 3
edgeq tokenize "$tmp/m.gguf" "once upon" --ids --no-bos >"$tmp/t2.txt"
check "tokenize --ids matches the listing" test "$(cat "$tmp/t2.txt")" = \
  "[$(tail -n +2 "$tmp/t1.txt" | awk '{print $1}' | paste -sd, | sed 's/,/, /g')]"
expect_error "tokenize missing text" 1 "error: expected MODEL and TEXT" edgeq tokenize "$tmp/m.gguf"
expect_error "tokenize no vocabulary" 1 "carries no vocabulary" edgeq tokenize "$tmp/novocab.gguf" x

# The real stories260K GGUF (its own SentencePiece vocabulary): greedy text as llama2.c's run.c
# printed it (tests/testdata/tinystories), for the first 40 generated tokens.
reference_data_dir models
models=$REPLY
edgeq run "$models/stories260K.gguf" -p "Once upon a time" -n 40 --temp 0 -t 1 >"$tmp/r.txt" 2>"$tmp/r.err"
check "stories260K run exit 0" test $? -eq 0
n=$(($(wc -c <"$tmp/r.txt") - 1))
check "stories260K greedy text is run.c's" cmp -s <(head -c "$n" "$tmp/r.txt") \
  <(head -c "$n" "$ws/tests/testdata/tinystories/once_upon_a_time.txt")

# tokenize on llama.cpp's vocabulary-only GGUFs: the ids of its test files (.out, made with the
# models' Hugging Face tokenizers) for "Hello world".
reference_data_dir vocab
vocab=$REPLY
check "tokenize gpt-2 vocabulary" test "$(edgeq tokenize "$vocab/ggml-vocab-gpt-2.gguf" \
  "Hello world" --ids --no-bos)" = "[15496, 995]"
check "tokenize llama-spm vocabulary" test "$(edgeq tokenize "$vocab/ggml-vocab-llama-spm.gguf" \
  "Hello world" --ids --no-bos)" = "[15043, 3186]"
check "tokenize --parse-special" test "$(edgeq tokenize "$vocab/ggml-vocab-phi-3.gguf" \
  "Hi<|end|>" --ids --parse-special)" = "[1, 6324, 32007]"
# Constrained output: --json-schema / --grammar / --grammar-file (random weights, so any text is
# likely without the grammar); the output is the grammar's and ends at EOS once it is complete.
schema='{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}'
for seed in 1 2 3; do
  edgeq run "$tmp/m.gguf" -p "x" -n 200 -s $seed --temp 1 -t 1 --json-schema "$schema" >"$tmp/j.txt" 2>"$tmp/j.err"
  check "run --json-schema seed $seed exit 0" test $? -eq 0
  check "run --json-schema seed $seed: valid JSON" grep -qxE 'x\{"ok":(true|false)\}' <(tr -d ' \t\n' <"$tmp/j.txt")
  check "run --json-schema seed $seed: ends at EOS" grep -q "stop: stop token" "$tmp/j.err"
done
edgeq run "$tmp/m.gguf" -p "x" -n 200 --temp 0 -t 1 -j "$schema" >"$tmp/j1.txt" 2>/dev/null
edgeq run "$tmp/m.gguf" -p "x" -n 200 --temp 0 -t 1 -j "$schema" >"$tmp/j2.txt" 2>/dev/null
check "run -j greedy: valid JSON" grep -qxE 'x\{"ok":(true|false)\}' <(tr -d ' \t\n' <"$tmp/j1.txt")
check "run -j greedy twice: same text" cmp -s "$tmp/j1.txt" "$tmp/j2.txt"
edgeq run "$tmp/m.gguf" -p "x" -n 50 --temp 1 -s 5 -t 1 --grammar 'root ::= ("yes" | "no") "!"' >"$tmp/y.txt" 2>/dev/null
check "run --grammar: a sentence of the grammar" grep -qxE 'x(yes|no)!' "$tmp/y.txt"
printf 'root ::= [0-9]{3}\n' >"$tmp/digits.gbnf"
edgeq run "$tmp/m.gguf" -p "x" -n 50 --temp 1 -s 5 -t 1 --grammar-file "$tmp/digits.gbnf" >"$tmp/d.txt" 2>/dev/null
check "run --grammar-file: three digits" grep -qxE 'x[0-9]{3}' "$tmp/d.txt"
expect_error "run bad grammar" 1 "error: --grammar: grammar line 1, column 16: undefined rule 'foo'" \
  edgeq run "$tmp/m.gguf" -p x --grammar 'root ::= "a" | foo'
printf 'root ::= "a"\nb ::= (\n' >"$tmp/bad.gbnf"
expect_error "run bad grammar file" 1 "error: .*bad.gbnf: grammar line 3, column 1: expected .)." \
  edgeq run "$tmp/m.gguf" -p x --grammar-file "$tmp/bad.gbnf"
expect_error "run bad JSON schema" 1 "error: --json-schema: " edgeq run "$tmp/m.gguf" -p x -j '{"type":'
expect_error "run two grammars" 1 "error: --grammar and --json-schema both given" \
  edgeq run "$tmp/m.gguf" -p x --grammar 'root ::= "a"' -j '{}'
expect_error "run missing grammar file" 1 "error: grammar file '.*nonexistent.gbnf'" \
  edgeq run "$tmp/m.gguf" -p x --grammar-file "$tmp/nonexistent.gbnf"

finish
