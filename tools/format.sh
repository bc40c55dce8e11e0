#!/usr/bin/env bash
# Checks (default) or fixes (--fix) the formatting of edgeq's C++ sources with clang-format
# (Google style, .clang-format at the root). Exit 1 if a file needs formatting.
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
case "${1:-}" in
  --fix) fix=1 ;;
  "") ;;
  -h|--help) echo "Usage: tools/format.sh [--fix]"; exit 0 ;;
  *) echo "format.sh: unknown argument '$1' (expected --fix or --help)" >&2; exit 2 ;;
esac
mapfile -t files < <(git ls-files '*.cc' '*.h' | grep -v '^third_party/')
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
