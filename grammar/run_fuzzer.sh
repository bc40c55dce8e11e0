#!/usr/bin/env bash
# Builds grammar_fuzzer.cc with clang (-fsanitize=fuzzer,address,undefined) outside Bazel, as
# tests/fuzz/run_fuzzers.sh does for the checkpoint readers, and runs it for N seconds from a
# copy of the committed seed corpus. A crash or UB report fails the script and leaves the input
# in OUT (a new folder per run, printed first).
#
#   grammar/run_fuzzer.sh [SECONDS]     (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
CXX=${CXX:-clang++}
command -v "$CXX" >/dev/null || { echo "run_fuzzer.sh: $CXX not found" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/edgeq_grammar_fuzz.XXXXXX")
echo "run_fuzzer.sh: building and fuzzing in $out"
libdir=/usr/lib/$(gcc -print-multiarch)
"$CXX" -std=c++17 -O1 -g -fno-omit-frame-pointer -I. \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  grammar/grammar_fuzzer.cc grammar/gbnf.cc grammar/matcher.cc grammar/json_schema.cc \
  grammar/json_schema_util.cc grammar/json_schema_pattern.cc core/bounded_input.cc \
  -Wl,--start-group "$libdir"/libabsl_*.a -Wl,--end-group -pthread -o "$out/grammar_fuzzer"
mkdir -p "$out/corpus"
cp grammar/testdata/fuzz_corpus/* "$out/corpus/"
cd "$out"
./grammar_fuzzer -max_total_time="$seconds" -rss_limit_mb=1024 -max_len=2048 corpus
