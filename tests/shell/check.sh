# Helpers for edgeq's shell tests (sh_test), sourced after `set -uo pipefail`:
#   check NAME COMMAND...   runs COMMAND; prints "ok: NAME" or "FAIL: NAME" and counts failures
#   finish                  prints "<n> failed" and exits 0 only if nothing failed
fails=0

check() {
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

finish() {
  echo "$fails failed"
  [ "$fails" -eq 0 ]
  exit
}
