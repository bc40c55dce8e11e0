#!/usr/bin/env bash
# README "Quick start" command a: installs what is missing (host only) and runs edgeq's main
# end-to-end demo. Extra arguments are passed to the demo.
#   tools/demo.sh [--skip-setup] [demo arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "Usage: tools/demo.sh [--skip-setup] [demo arguments...]"
  echo "Installs edgeq's dependencies (Debian packages) and runs the main demo: the TinyStories"
  echo "pipeline (examples/tinystories; its --help lists the arguments)."
  exit 0
fi
if [ "${1:-}" = "--skip-setup" ]; then shift; else bash tools/setup.sh --host; fi
# The main demo: the TinyStories pipeline. stories260K (in tests/testdata) is quantized to Q4_0,
# saved as .max, loaded back and asked for a story. Arguments replace the defaults below.
if [ "$#" -eq 0 ]; then
  set -- --prompt="Once upon a time" --out="${TMPDIR:-/tmp}/stories260K_q4_0.max"
fi
exec bazel run --color=no --ui_event_filters=-info,-stdout,-stderr --noshow_progress \
  //examples/tinystories -- "$@"
