#!/usr/bin/env bash
# The wheel as a user installs it: the shell lines of README.md between
# "<!-- wheel-install:begin" and "<!-- wheel-install:end -->" run verbatim (bash -e) in a fresh
# HOME, in a directory whose bazel-bin/python/ holds the built wheel, with pip's index pointed at
# a closed port (offline); then the README's seeds' example (the python block after
# "<!-- python-seeds-example -->") runs in that venv, checked for its documented values, and
# edgeq must come from the venv's site-packages with its own libedgeq.so.
source tests/shell/check.sh
set -uo pipefail
whl=$(ls python/edgeq-*.whl)
if [ -n "${EDGEQ_EXEC:-}" ] || [[ "$whl" != *linux_x86_64.whl ]]; then
  echo "SKIPPED: the wheel test runs on x86-64 only (this wheel is $(basename "$whl"))"
  exit 0
fi
work="$TEST_TMPDIR/wheel"
mkdir -p "$work/home" "$work/cwd/bazel-bin/python"
cp "$whl" "$work/cwd/bazel-bin/python/"
awk '/<!-- wheel-install:begin/ {on=1; next} /<!-- wheel-install:end/ {on=0} on' README.md \
  | sed '/^```/d' >"$work/install.sh"
echo "--- README's install commands:"; cat "$work/install.sh"
check "README has the install commands" grep -q "python3 -m venv" "$work/install.sh"
check "README's install commands do not use pip --user" bash -c "! grep -q -- '--user' '$work/install.sh'"
offline=(HOME="$work/home" PIP_INDEX_URL=http://127.0.0.1:9/simple PIP_NO_CACHE_DIR=1
  PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONNOUSERSITE=1 EDGEQ_LIBRARY= PATH=/usr/bin:/bin)
check "the README's install commands, verbatim" \
  bash -c "cd '$work/cwd' && env ${offline[*]} bash -e '$work/install.sh' >'$work/install.log' 2>&1"
cat "$work/install.log"
check "it printed the version" grep -qx "0.1.0" "$work/install.log"
venv_py="$work/home/.venvs/edgeq/bin/python"
awk '/<!-- python-seeds-example -->/ {on=1; next} on && /^```python/ {inb=1; next}
     inb && /^```/ {exit} inb' README.md >"$work/seeds_body.py"
{
  echo "import numpy as np, edgeq"
  cat "$work/seeds_body.py"
  echo "assert result.shape == (32, 32), result.shape"
  echo "assert abs(float(result[0, 0]) - 4.8005) < 1e-3 and abs(float(result.max() - result.min())) < 1e-5"
  echo "import os; assert edgeq.__file__.startswith(os.environ['HOME'] + '/.venvs/edgeq/'), edgeq.__file__"
  echo "assert os.path.isfile(os.path.join(os.path.dirname(edgeq.__file__), 'libedgeq.so'))"
  echo "print('seeds example output0[0, 0] =', result[0, 0])"
} >"$work/seeds.py"
check "the README's seeds' example has its lines" grep -q "graph.quantize(edgeq.Q4_0Encoding" "$work/seeds_body.py"
check "the seeds' example in the venv" \
  bash -c "cd '$work/cwd' && env ${offline[*]} '$venv_py' '$work/seeds.py'"
check "pip lists the installed wheel" \
  bash -c "env ${offline[*]} '$venv_py' -m pip show edgeq | grep -qx 'Version: 0.1.0'"
finish
