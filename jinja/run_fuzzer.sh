#!/usr/bin/env bash
# Builds jinja_fuzzer.cc with clang (-fsanitize=fuzzer,address,undefined) outside Bazel, from the
# sources and Debian's static absl/utf8proc, and fuzzes it for N seconds from the seed corpus.
# A crash, leak or UB report fails the script; the input is left in OUT (crash-*).
#
#   jinja/run_fuzzer.sh [--seconds=N] [--out=DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
out=""
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    *) echo "run_fuzzer.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/edgeq_jinja_fuzz.XXXXXX")
mkdir -p "$out/corpus"
cp jinja/fuzz_corpus/* "$out/corpus/"
libdir=/usr/lib/$(gcc -print-multiarch)
echo "run_fuzzer.sh: building and fuzzing in $out"
${CXX:-clang++} -std=c++17 -O1 -g -fno-omit-frame-pointer -I. -DUTF8PROC_STATIC \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  jinja/jinja_fuzzer.cc jinja/{builtins,chat,filters,interpreter,lexer,operators,parser}.cc \
  jinja/{template,text,value}.cc core/bounded_input.cc -o "$out/jinja_fuzzer" \
  -Wl,--start-group "$libdir"/libabsl_*.a -Wl,--end-group -l:libutf8proc.a -pthread
cd "$out"
./jinja_fuzzer -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 -max_len=4096 corpus
