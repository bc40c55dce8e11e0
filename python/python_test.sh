#!/usr/bin/env bash
# Installs the Python module with pip offline (Debian's python3, setuptools, numpy, pytest) into
# a temporary directory, with the freshly built libedgeq.so, and runs its pytest tests.
source tests/shell/check.sh
source tests/shell/reference_data.sh
set -uo pipefail
py=/usr/bin/python3
# Under --config=aarch64 libedgeq.so is an ARM library that the host's python3 cannot load.
if [ -n "${EDGEQ_EXEC:-}" ] || ! readelf -h sdk/libedgeq.so | grep -q "X86-64"; then
  echo "SKIPPED: the Python module test runs on x86-64 only (libedgeq.so here is another arch)"
  exit 0
fi
work=$(mktemp -d)
cp -r python "$work/src"
cp sdk/libedgeq.so "$work/src/edgeq/"
check "pip install (offline)" "$py" -m pip install -q --no-index --no-build-isolation \
  --no-deps --target "$work/site" "$work/src"
reference_data_dir models
export EDGEQ_MODEL=$REPLY/stories260K.gguf
export EDGEQ_GOLDEN_DIR=$PWD/tests/testdata/golden
export EDGEQ_JINJA_TESTDATA=$PWD/jinja/testdata
reference_data_dir vocab  # a random bert-tiny with the bert-bge vocabulary (tests/test_embed.py)
llm/tools/make_random_encoder --shape=bert-tiny --vocab="$REPLY/ggml-vocab-bert-bge.gguf" \
  --out="$work/bert_tiny.gguf" && export EDGEQ_ENCODER=$work/bert_tiny.gguf
export EDGEQ_ENCODER_GOLDEN=$PWD/llm/testdata/embed/encoder_bert_tiny_mean.f32
check "pytest" env PYTHONPATH="$work/site" "$py" -m pytest -q -p no:cacheprovider \
  "$work/src/tests"
check "import edgeq from the installed copy" env PYTHONPATH="$work/site" "$py" -c \
  "import edgeq, numpy as np; q = edgeq.quantize(np.ones((2, 32), np.float32), 'q8_0'); assert edgeq.qmatmul(np.ones(32, np.float32), q).shape == (2,); assert edgeq.__file__.startswith('$work/site')"
# The seeds' qmatmul example and a save/load round trip, as a user types them.
check "python3 -c: the seeds' qmatmul example and edgeq.save/load" env PYTHONPATH="$work/site" \
  "$py" -c "
import edgeq, numpy as np
graph = edgeq.Graph(edgeq.TensorType(edgeq.DType.float32, (32, 64)))
qw = graph.quantize(edgeq.Q4_0Encoding, np.full((32, 64), 0.15, np.float32))
graph.output(edgeq.ops.qmatmul(edgeq.Q4_0Encoding, graph[0], qw))
y = edgeq.InferenceSession().load(graph).execute('input0', np.full((32, 64), 0.5, np.float32)).get('output0')
assert y.shape == (32, 32) and abs(float(y[0, 0]) - 4.8005) < 1e-3, y[0, 0]
w = np.arange(64, dtype=np.float32).reshape(2, 32)
edgeq.save({'w': w, 'q': edgeq.quantize(w, 'q8_0')}, '$work/rt.gguf')
back = edgeq.load('$work/rt.gguf')
assert (back['w'] == w).all() and back['q'].encoding == 'q8_0'
print('seed example output0[0, 0] =', y[0, 0])
"
finish
