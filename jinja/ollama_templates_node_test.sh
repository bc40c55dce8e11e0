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
if ! command -v node >/dev/null; then
  if [ "${EDGEQ_REQUIRE_REFERENCE_DATA:-0}" = 1 ]; then
    echo "FAIL: node is not installed (tools/setup.sh installs it; EDGEQ_REQUIRE_REFERENCE_DATA=1)"
    exit 1
  fi
  echo "SKIPPED: node is not installed (tools/setup.sh installs it)"
  exit 0
fi
check "edgeq renders what @huggingface/jinja renders for every ollama-utils template" \
  node "$ws/jinja/testdata/check_ollama_templates.js" "$npm" "$ws/jinja/testdata" \
  "$ws/jinja/jinja_render" "$TEST_TMPDIR" "$ws/llm/testdata/chat_template_goldens.json"
finish
