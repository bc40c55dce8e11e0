#!/usr/bin/env bash
# Random expressions and random templates (statements and white space) rendered by edgeq and by
# @huggingface/jinja must agree wherever the reference renders
# (jinja/testdata/check_random_expressions.js and check_random_templates.js, fixed seeds).
set -uo pipefail
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
source "$ws/tests/shell/check.sh"
source "$ws/tests/shell/reference_data.sh"
reference_data_dir npm
npm=$REPLY
require_node
native_command "$ws/jinja/jinja_render"
render=$REPLY
check "random expressions: edgeq == @huggingface/jinja" \
  node "$ws/jinja/testdata/check_random_expressions.js" "$npm" "$render" \
  "$TEST_TMPDIR" 1 2 3
check "random templates: edgeq == @huggingface/jinja" \
  node "$ws/jinja/testdata/check_random_templates.js" "$npm" "$render" \
  "$TEST_TMPDIR" 7 8 9
finish
