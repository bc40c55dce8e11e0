#!/usr/bin/env bash
# Re-runs @huggingface/jinja (node) on the chat templates of the npm packages and checks that
# llm/testdata/chat_template_goldens.json holds what it renders (llm/testdata/README.md).
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"
reference_data_dir npm
npm=$REPLY
require_node
check "goldens equal @huggingface/jinja's renderings of the npm packages' templates" \
  node "$ws/llm/testdata/check_chat_goldens.js" "$npm" "$ws/llm/testdata/chat_template_goldens.json"
finish
