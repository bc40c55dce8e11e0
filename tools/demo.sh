#!/usr/bin/env bash
# README "Quick start" command a: installs what is missing (host only) and runs edgeq's main
# end-to-end demo, the TinyStories pipeline: a Llama model quantized to Q4_0, saved as .max,
# loaded back and asked for a story. Extra arguments are passed to the pipeline.
#   tools/demo.sh [--skip-setup] [pipeline arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  cat <<'USAGE'
Usage: tools/demo.sh [--skip-setup] [pipeline arguments...]
Installs edgeq's dependencies (Debian packages) and runs the main demo: the TinyStories pipeline
(examples/tinystories; `bazel run //examples/tinystories -- --help` lists its arguments).

With ../shared beside the clone, it runs the real stories260K model (../shared/models).
Without it, it first makes a model of stories15M's shape with seeded random weights and a made-up
vocabulary (make_random_llama), and runs the same pipeline on that: quantize, save, reload,
generate. Random weights write nonsense; to see a real story, put the shared test files in
../shared, or pass your own model: tools/demo.sh --model=PATH.bin --tokenizer=TOKENIZER.bin
(a llama2.c .bin with its tokenizer, or a GGUF/.max that carries its vocabulary).
USAGE
  exit 0
fi
if [ "${1:-}" = "--skip-setup" ]; then shift; else bash tools/setup.sh --host; fi
out="${TMPDIR:-/tmp}"
bazel_run() {
  bazel run --color=no --ui_event_filters=-info,-stdout,-stderr --noshow_progress "$@"
}
if [ "$#" -eq 0 ]; then
  if [ -f ../shared/models/stories260K.bin ]; then
    set -- --prompt="Once upon a time" --out="$out/stories260K_q4_0.max"
  else
    random="$out/edgeq_random_stories15M.max"
    echo "demo: ../shared/models not found beside this clone, so the real stories260K model is"
    echo "demo: unavailable. Making a model of stories15M's shape with RANDOM weights instead:"
    echo "demo: the pipeline runs end to end, but the text it writes is nonsense."
    echo "demo: For a real story, put the shared test files in ../shared (see README, 'Test data')"
    echo "demo: or run: tools/demo.sh --model=YOUR_MODEL.bin --tokenizer=YOUR_TOKENIZER.bin"
    bazel_run //examples/tinystories:make_random_llama -- --out="$random"
    set -- --model="$random" --prompt="Once upon a time" --steps=64 \
      --out="$out/edgeq_random_stories15M_q4_0.max"
  fi
fi
exec bazel run --color=no --ui_event_filters=-info,-stdout,-stderr --noshow_progress \
  //examples/tinystories -- "$@"
