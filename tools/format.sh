#!/usr/bin/env bash
# Checks (default) or fixes (--fix) the formatting of edgeq's C++ sources with clang-format
# (Google style, .clang-format at the root). Exit 1 if a file needs formatting.
#   tools/format.sh [--fix] [FILE...]   FILE: .cc/.h files to check or fix (default: every tracked
#                                       one outside third_party/), relative to the repository root
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "Usage: tools/format.sh [--fix] [FILE.cc|FILE.h ...]"; }
fix=0
files=()
for arg in "$@"; do
  case "$arg" in
    --fix) fix=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "format.sh: unknown option '$arg' (expected --fix, --help or files)" >&2; exit 2 ;;
    *.cc|*.h)
      if [ ! -f "$arg" ]; then
        echo "format.sh: no such file '$arg' (paths are relative to the repository root)" >&2
        exit 2
      fi
      files+=("$arg") ;;
    *) echo "format.sh: '$arg' is not a C++ source (expected a .cc or .h file)" >&2; exit 2 ;;
  esac
done
if [ "${#files[@]}" -eq 0 ]; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' | grep -v '^third_party/')
fi
if [ "$fix" -eq 1 ]; then
  clang-format -i "${files[@]}"
  echo "formatted ${#files[@]} files"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "needs formatting: $f"; bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "all ${#files[@]} files formatted"
exit "$bad"
