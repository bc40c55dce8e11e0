#!/usr/bin/env bash
# Builds the checkpoint fuzz targets with clang (-fsanitize=fuzzer,address,undefined) and runs
# each for N seconds (or N runs) from its committed seed corpus. A crash, leak or UB report
# fails the script; the crashing input is left in $OUT/<target>/ (crash-*).
#
#   tests/fuzz/run_fuzzers.sh [--seconds=N] [--runs=N] [--jobs=N] [--out=DIR] [TARGET...]
#   TARGET: max gguf llama2c safetensors tokenizer (default: all)
#
# Built outside Bazel (whose C++ toolchain here is gcc) straight from the sources; absl and
# xxhash come from Debian's static archives, like in the Bazel build.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=20
runs=""
out="${TMPDIR:-/tmp}/edgeq_fuzz"
targets=()
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds="${arg#*=}" ;;
    --runs=*) runs="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    max|gguf|llama2c|safetensors|tokenizer) targets+=("$arg") ;;
    *) echo "run_fuzzers.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(max gguf llama2c safetensors tokenizer)

CXX=${CXX:-clang++}
if ! command -v "$CXX" >/dev/null; then
  echo "run_fuzzers.sh: $CXX not found (clang with libFuzzer is needed)" >&2; exit 1
fi
libdir=/usr/lib/$(gcc -print-multiarch)
flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -I. -DXXH_STATIC_LINKING_ONLY
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
common=(checkpoint/tensor_dict.cc checkpoint/internal/file_io.cc
        checkpoint/internal/metadata_codec.cc core/dtype.cc core/shape.cc core/tensor.cc)
declare -A lib=([max]=checkpoint/max_format.cc [gguf]=checkpoint/gguf.cc
                [llama2c]=checkpoint/llama2c.cc [safetensors]=checkpoint/safetensors.cc
                [tokenizer]="checkpoint/gguf.cc llm/tokenizer.cc llm/tokenizer_hf.cc
                             llm/tokenizer_regex.cc llm/unicode.cc")
mkdir -p "$out"
status=0
for t in "${targets[@]}"; do
  bin="$out/${t}_fuzzer"
  echo "=== $t: building $bin"
  read -r -a srcs <<< "$(echo ${lib[$t]})"
  "$CXX" "${flags[@]}" "tests/fuzz/${t}_fuzzer.cc" "${srcs[@]}" "${common[@]}" -o "$bin" \
    -Wl,--start-group "$libdir"/libabsl_*.a -Wl,--end-group -l:libxxhash.a -l:libutf8proc.a \
    -pthread
  work="$out/$t"
  mkdir -p "$work/corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$work/corpus/" 2>/dev/null || true
  limit=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit=(-runs="$runs")
  echo "=== $t: fuzzing (${limit[*]})"
  if (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$bin" "${limit[@]}" -max_len=8192 \
        -rss_limit_mb=2048 -print_final_stats=1 corpus 2>"$work/log.txt"); then
    grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$work/log.txt" | tail -2
  else
    echo "$t: FAILED (see $work/log.txt)"; tail -30 "$work/log.txt"; status=1
  fi
done
exit $status
