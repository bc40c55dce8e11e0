#!/usr/bin/env bash
# README "Quick start" command a: installs what is missing (host only) and runs edgeq's main
# end-to-end demo. Extra arguments are passed to the demo.
#   tools/demo.sh [--skip-setup] [demo arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "Usage: tools/demo.sh [--skip-setup] [demo arguments...]"
  echo "Installs edgeq's dependencies (Debian packages) and runs the main demo."
  exit 0
fi
if [ "${1:-}" = "--skip-setup" ]; then shift; else bash tools/setup.sh --host; fi
# The main demo: the TinyStories pipeline once it exists, else the seed's qmatmul example.
if [ -f examples/tinystories/BUILD ]; then
  exec bazel run --color=no --ui_event_filters=-info,-stdout,-stderr --noshow_progress \
    //examples/tinystories -- "$@"
fi
exec bazel run --color=no --ui_event_filters=-info,-stdout,-stderr --noshow_progress \
  //examples/qmatmul -- "$@"
