#!/usr/bin/env bash
# Every chat template @huggingface/ollama-utils lists, over conversations.json: edgeq's engine
# (jinja_render --batch) must render what @huggingface/jinja renders, byte for byte
# (jinja/testdata/check_ollama_templates.js).
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"
reference_data_dir npm
npm=$REPLY
require_node
native_command "$ws/jinja/jinja_render"
render=$REPLY
check "edgeq renders what @huggingface/jinja renders for every ollama-utils template" \
  node "$ws/jinja/testdata/check_ollama_templates.js" "$npm" "$ws/jinja/testdata" \
  "$render" "$TEST_TMPDIR" "$ws/llm/testdata/chat_template_goldens.json"
finish
