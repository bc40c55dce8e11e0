#!/usr/bin/env bash
# tools/check_code_size.py on the source tree (the size rules), then on made-up files: a function
# of 121 lines and a file of 801 are found, 120 and 800 pass, and an allow-list entry that
# matches nothing is an error.
set -uo pipefail
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell/check.sh"
has() { grep -qF -- "$2" <<<"$1"; }
check_eq() { check "$3" test "$1" -eq "$2"; }
check_contains() { check "$3" has "$1" "$2"; }
check_not_contains() { check "$3" bash -c '! grep -qF -- "$1" <<<"$0"' "$1" "$2"; }
script="$(readlink -f "${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/check_code_size.py")"
root="$(dirname "$(dirname "$script")")"

# The tree (the runfiles link back to the sources; the test is tagged external: never cached).
out=$(python3 "$script" --root "$root" 2>&1); rc=$?
echo "$out"
check_eq "$rc" 0 "check_code_size on the tree"

tmp="${TEST_TMPDIR}/tree"
mkdir -p "$tmp/llm" "$tmp/tools" "$tmp/examples"
fn() {  # fn NAME BODY_LINES: a function of BODY_LINES + 2 lines
  echo "int $1(int x) {"
  for ((i = 0; i < $2; i++)); do echo "  x += $i;  // {"; done
  echo "  return x; }"
}
{ echo '#include <string>'; echo 'namespace a {'; echo 'const char* s = "}";'
  fn Short 118; fn Long 119; echo 'class C {'; echo ' public:'; echo '  void M() {'
  for ((i = 0; i < 130; i++)); do echo "    if (true) { (void)0; }"; done
  echo '  }'; echo '};'; echo '}  // namespace a'; } > "$tmp/llm/f.cc"
fn Other 130 > "$tmp/examples/g.cc"  # outside the checked folders: not a finding
for ((i = 0; i < 801; i++)); do echo "// $i"; done > "$tmp/tools/big.h"
for ((i = 0; i < 800; i++)); do echo "// $i"; done > "$tmp/tools/ok.h"
out=$(python3 "$script" --root "$tmp" 2>&1); rc=$?
check_eq "$rc" 1 "findings exit 1"
check_contains "$out" "llm/f.cc:" "a finding names the file"
check_contains "$out" "function Long is 121 lines; expected at most 120" "121-line function"
check_not_contains "$out" "function Short" "120-line function passes"
check_contains "$out" "function M is 132 lines" "a member function defined in its class"
check_not_contains "$out" "g.cc" "examples/ is not checked for functions"
check_contains "$out" "tools/big.h: 801 lines; expected at most 800" "801-line file"
check_not_contains "$out" "ok.h" "800-line file passes"

mkdir -p "$tmp/tools"
cat > "$tmp/tools/code_size_allowlist.txt" <<'LIST'
# comment
function llm/f.cc Long -- a table
file tools/big.h -- generated
function llm/f.cc Gone -- stale
LIST
out=$(python3 "$script" --root "$tmp" 2>&1); rc=$?
check_eq "$rc" 1 "a stale entry exits 1"
check_not_contains "$out" "function Long" "an allowed function"
check_not_contains "$out" "big.h: 801" "an allowed file"
check_contains "$out" "entry 'function llm/f.cc Gone' matches nothing over the limit; remove it" \
  "a stale entry is named"
echo "function llm/f.cc" > "$tmp/tools/code_size_allowlist.txt"
out=$(python3 "$script" --root "$tmp" 2>&1)
check_contains "$out" "expected 'function PATH NAME -- reason' or 'file PATH -- reason'" \
  "an entry without a reason"
finish
