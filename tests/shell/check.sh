# Helpers for edgeq's shell tests (sh_test), sourced after `set -uo pipefail`:
#   check NAME COMMAND...   runs COMMAND; prints "ok: NAME" or "FAIL: NAME" and counts failures
#   expect_error NAME CODE PATTERN COMMAND...
#                           COMMAND must exit with CODE, print PATTERN (grep) on stderr and
#                           nothing on stdout (three checks)
#   finish                  prints "<n> failed" and exits 0 only if nothing failed
fails=0

check() {
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

expect_error() {
  local name="$1" code="$2" pattern="$3"; shift 3
  "$@" >"$TEST_TMPDIR/expect_error.out" 2>"$TEST_TMPDIR/expect_error.err"
  local rc=$?
  check "$name: exit $code" test "$rc" -eq "$code"
  check "$name: message" grep -q -- "$pattern" "$TEST_TMPDIR/expect_error.err"
  check "$name: nothing on stdout" test ! -s "$TEST_TMPDIR/expect_error.out"
}

finish() {
  echo "$fails failed"
  [ "$fails" -eq 0 ]
  exit
}
