#!/usr/bin/env bash
# Issue 27's crafted inputs, end to end through the `edgeq` CLI. Every case must be refused with an
# exit code in 1..123 (no abort, no signal, no hang) and one error line on stderr, last, that names
# the problem in at most 1000 bytes, and (on the host) must stay within 64 MiB of peak memory above the
# process's baseline, under a 4 GiB address-space limit. F12 (a degenerate temperature) must
# behave as greedy decoding instead.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
# Under --config=aarch64, EDGEQ_EXEC (tools/qemu_aarch64.sh) runs the binaries under qemu.
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
craft() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tests/hostile/craft_hostile_inputs" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"
# host=1: a native build without AddressSanitizer, where the address-space limit and the memory
# budget apply (ASan and qemu map far more address space of their own).
host=1
if [ -n "${EDGEQ_EXEC:-}" ] || grep -q -e AddressSanitizer -e __asan_init "$ws/tools/edgeq"; then
  host=0
fi

gen --shape=smollm2-135m --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=64 \
  --vocab_size=300 --synthetic_vocab --out="$tmp/m.gguf" 2>/dev/null
check "make_random_gguf" test $? -eq 0
craft --base="$tmp/m.gguf" --out="$tmp" 2>"$tmp/craft.err"
check "craft_hostile_inputs" test $? -eq 0
cat "$tmp/craft.err"

# Peak resident memory (KiB) of a command, or 0 off the host.
maxrss_of() {
  if [ "$host" -eq 1 ]; then
    /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1
    tail -n 1 "$tmp/rss"
  else
    echo 0
  fi
}
baseline_kib=$(maxrss_of "$ws/tools/edgeq" inspect "$tmp/does-not-exist.gguf")
budget_kib=$((baseline_kib + 64 * 1024))
echo "baseline peak RSS: ${baseline_kib} KiB; budget ${budget_kib} KiB"

# refuse NAME PATTERN [--as KIB] -- ARGS...: `edgeq ARGS` exits 1..123 within 120 s with exactly
# one error line (the last, matching PATTERN with grep -E; no line over 1000 bytes: quoted paths
# are cut at 256), and stays within the memory budget.
refuse() {
  local name="$1" pattern="$2"; shift 2
  local as_kib=4194304
  if [ "$1" = "--as" ]; then as_kib="$2"; shift 2; fi
  [ "$1" = "--" ] && shift
  local rc
  if [ "$host" -eq 1 ]; then
    ( ulimit -v "$as_kib"; exec /usr/bin/time -f %M -o "$tmp/rss" timeout -s KILL 120 \
        "$ws/tools/edgeq" "$@" ) </dev/null >"$tmp/out" 2>"$tmp/err"
    rc=$?
  else
    timeout -s KILL 600 ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@" </dev/null \
      >"$tmp/out" 2>"$tmp/err"
    rc=$?
  fi
  # /usr/bin/time adds "Command exited with non-zero status N" to its -o file, not to stderr.
  check "$name: exit 1..123 (got $rc)" test "$rc" -ge 1 -a "$rc" -le 123
  # Refused at load: the error is the only line. Refused later (perplexity of NaN weights), the
  # load report comes first: one error line, the last one.
  # The error line is "edgeq COMMAND: [error: ]MESSAGE".
  local errs
  errs=$(grep -Ec '^edgeq [a-z-]+: ' "$tmp/err")
  check "$name: one error line (got $errs)" test "$errs" -eq 1
  check "$name: the error line is the last" bash -c "tail -n 1 '$tmp/err' | grep -Eq '^edgeq [a-z-]+: '"
  check "$name: every line is at most 1000 bytes" \
    test "$(head -c 1000000 "$tmp/err" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -le 1000
  check "$name: at most 8 lines on stderr" test "$(wc -l <"$tmp/err")" -le 8
  if ! grep -Eq -- "$pattern" "$tmp/err"; then
    echo "   stderr: $(head -c 400 "$tmp/err")"
    check "$name: message matches '$pattern'" false
  fi
  if [ "$host" -eq 1 ]; then
    local kib
    kib=$(tail -n 1 "$tmp/rss")
    check "$name: peak RSS ${kib} KiB within ${budget_kib} KiB" test "${kib:-999999999}" -le "$budget_kib"
  fi
}

m="$tmp/m.gguf"

# F1: a block count far above the layers present, refused before any allocation per layer.
for cmd in run bench perplexity; do
  case $cmd in
    run) args=(run "$tmp/f1_layers_2p30.gguf" -p x -n 1 -t 1) ;;
    bench) args=(bench "$tmp/f1_layers_2p30.gguf" -p 8 -n 2 -r 1 -t 1) ;;
    perplexity) args=(perplexity "$tmp/f1_layers_2p30.gguf" -f /dev/null -t 1) ;;
  esac
  refuse "F1 block_count 2^30 ($cmd)" "block_count" -- "${args[@]}"
done
refuse "F1 block_count 2^20" "block_count" -- run "$tmp/f1_layers_2p20.gguf" -p x -n 1 -t 1
# F6: fewer layers declared than present; the count stored as a bool.
refuse "F6 block_count 1 with 2 layers" "blk\.1|block_count" -- run "$tmp/f6_layers_1_of_2.gguf" -p x -n 1 -t 1
refuse "F6 block_count stored as bool" "block_count" -- run "$tmp/f6_layers_bool.gguf" -p x -n 1 -t 1
# F14: a tokenizer flag stored as a string.
refuse "F14 add_space_prefix as a string" "add_space_prefix" -- tokenize "$tmp/f14_add_space_prefix_string.gguf" "hello"
# A 10 MB architecture name: named, cut.
refuse "10 MB architecture string" "architecture" -- run "$tmp/arch_10mb.gguf" -p x -n 1 -t 1
# Non-finite weights: perplexity refuses a NaN or infinite result; inspect --values finds them.
for i in $(seq 1 60); do echo "the cat sat on the mat and the dog ran in the park"; done >"$tmp/text.txt"
refuse "NaN weights: perplexity" "NaN|non-finite|not finite" -- perplexity "$tmp/nan_weights.gguf" -f "$tmp/text.txt" -c 32 -t 1
refuse "Inf weights: perplexity" "NaN|non-finite|not finite|inf" -- perplexity "$tmp/inf_weights.gguf" -f "$tmp/text.txt" -c 32 -t 1
refuse "NaN weights: inspect --verify --values" "NaN" -- inspect "$tmp/nan_weights.gguf" --verify --values

# F2: an HF layer count of 10^7 and 2^31.
refuse "F2 num_hidden_layers 10^7" "num_hidden_layers" -- convert "$tmp/f2_layers_1e7" "$tmp/out1.gguf"
refuse "F2 num_hidden_layers 2^31" "num_hidden_layers" -- convert "$tmp/f2_layers_2p31" "$tmp/out2.gguf"
# F3: JSON nested 100000 deep.
refuse "F3 deep config.json" "deep|nest" -- convert "$tmp/f3_deep_config" "$tmp/out3.gguf"
refuse "F3 deep index.json" "deep|nest" -- convert "$tmp/f3_deep_index" "$tmp/out4.gguf"
refuse "F3 deep safetensors header" "deep|nest" -- inspect "$tmp/f3_deep_header.safetensors"
# F7: a stray tensor whose layer is spelled "00".
refuse "F7 layer index 00" "layers\.00" -- convert "$tmp/f7_layer_00" "$tmp/out7.gguf"
# F8: converting a directory onto one of its own inputs.
cp "$tmp/f8_self/model.safetensors" "$tmp/f8_before.safetensors"
refuse "F8 convert onto its own input" "input" -- convert "$tmp/f8_self" "$tmp/f8_self/model.safetensors"
check "F8: the input is unchanged" cmp -s "$tmp/f8_self/model.safetensors" "$tmp/f8_before.safetensors"
# F13: a duplicate key in a safetensors header.
refuse "F13 duplicate safetensors key" "twice" -- inspect "$tmp/f13_duplicate_key.safetensors"
refuse "F13 duplicate key after 25,000 entries" "twice" -- inspect "$tmp/f13_many_entries_duplicate.safetensors"
for out in out1 out2 out3 out4 out7; do
  check "no output file left behind ($out)" test ! -e "$tmp/$out.gguf"
done

# F4: endless streams as text files.
refuse "F4 perplexity -f /dev/zero" "limit" -- perplexity "$m" -f /dev/zero -c 32 -t 1
refuse "F4 chat --template /dev/zero" "limit" -- chat "$m" --template /dev/zero -t 1
# F5: more threads than the address space allows: an error, not a hang.
refuse "F5 run -t 300 under 2 GiB" "thread" --as 2097152 -- run "$m" -p x -n 1 --temp 0 -t 300
refuse "F5 run -t 1024 under 4 GiB" "thread" -- run "$m" -p x -n 1 --temp 0 -t 1024
# F11: values that do not fit are refused, not truncated.
refuse "F11 -n 2^32+1" "n-predict|-n" -- run "$m" -p x -n 4294967297 --temp 0 -t 1
refuse "F11 --top-k 2^32+1" "top-k" -- run "$m" -p x -n 1 --top-k 4294967297 -t 1
refuse "F11 --repeat-last-n 2^32" "repeat-last-n" -- run "$m" -p x -n 1 --repeat-last-n 4294967296 -t 1

# F12: a temperature whose logits / temp overflow decodes greedily.
edgeq run "$m" -p "once upon a time" -n 16 --temp 0 -t 1 >"$tmp/greedy.txt" 2>/dev/null
check "F12 greedy run" test $? -eq 0
edgeq run "$m" -p "once upon a time" -n 16 --temp 1e-45 --top-k 0 --top-p 1 --min-p 0 -s 3 -t 1 \
  >"$tmp/tiny_temp.txt" 2>/dev/null
check "F12 --temp 1e-45 exit 0" test $? -eq 0
check "F12 --temp 1e-45 equals greedy" cmp -s "$tmp/greedy.txt" "$tmp/tiny_temp.txt"

finish
