#!/usr/bin/env bash
# Re-runs @huggingface/jinja (node) on the chat templates of the npm packages and edgeq's own
# test template, and checks that jinja/testdata/goldens.json holds what it renders
# (jinja/testdata/README.md).
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"
reference_data_dir npm
npm=$REPLY
require_node
check "goldens equal @huggingface/jinja's renderings" \
  node "$ws/jinja/testdata/make_goldens.js" "$npm" "$ws/jinja/testdata" \
  --check "$ws/jinja/testdata/goldens.json"
finish
