#!/usr/bin/env bash
# Every C++ source of the tree is clang-format clean (Google style, .clang-format at the root;
# tools/format.sh --fix formats them). Tagged external: it reads the tree through the runfiles'
# links, so it is never cached.
set -uo pipefail
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell/check.sh"
script="$(readlink -f "${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/format.sh")"
root="$(dirname "$(dirname "$script")")"
if ! command -v clang-format >/dev/null; then
  echo "FAIL: clang-format is not installed (tools/setup.sh installs it)"; exit 1
fi
# The sources below the root, not following links (bazel-* output links, third_party/ excluded).
mapfile -t files < <(cd "$root" && find . -path ./third_party -prune -o -path ./.git -prune -o \
  \( -name '*.cc' -o -name '*.h' \) -type f -print | sort)
check "C++ sources found below $root" test "${#files[@]}" -gt 100
bad=()
for f in "${files[@]}"; do
  (cd "$root" && clang-format --dry-run --Werror "$f" >/dev/null 2>&1) || bad+=("$f")
done
check "every source clang-format clean (tools/format.sh --fix; not: ${bad[*]:-none})" \
  test "${#bad[@]}" -eq 0
# The check itself finds a badly formatted file.
tmp="${TEST_TMPDIR}/fmt"
mkdir -p "$tmp" && cp "$root/.clang-format" "$tmp/"
printf 'int  f( int x ){return x;}\n' > "$tmp/bad.cc"
check "a badly formatted file is found" bash -c "! (cd '$tmp' && clang-format --dry-run --Werror bad.cc >/dev/null 2>&1)"
# The script's arguments: files given are the only ones checked; anything else is refused (2).
check "one file checked" bash -c "'$script' core/tensor.cc | grep -qx 'all 1 files formatted'"
for bad_arg in -x README.md no_such_file.cc; do
  check "'$bad_arg' refused with exit 2" bash -c "'$script' '$bad_arg' >/dev/null 2>&1; test \$? -eq 2"
done
finish
