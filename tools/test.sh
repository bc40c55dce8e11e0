#!/usr/bin/env bash
# edgeq's whole test suite (README "Quick start" command b, and CI):
#   1. installs what is missing (tools/setup.sh),
#   2. host tests (x86-64): bazel test //...
#   3. aarch64 tests under qemu-aarch64 -cpu max (NEON + dotprod + i8mm), then the kernel tests again
#      under -cpu cortex-a76 (dotprod, no i8mm) and -cpu cortex-a53 (NEON only), and the
#      selective build's size (--config=selective, tests/footprint),
#   4. the parser/codec tests under AddressSanitizer + UndefinedBehaviorSanitizer, the runtime's
#      threaded tests under ThreadSanitizer,
#   5. a short run of every fuzzer (tests/fuzz, libFuzzer with clang).
# After each stage it prints how many test cases were skipped and why. Tests that need real models
# or vocabularies read them from ../shared (see README, "Test data"); without it they are skipped,
# unless EDGEQ_REQUIRE_REFERENCE_DATA=1 (CI sets it), which makes them fail instead.
# Prints one closing line "N passed, N failed" and exits non-zero if anything failed.
#
#   tools/test.sh [--host-only] [--skip-setup] [--help]
set -uo pipefail

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

host_only=0
skip_setup=0
for arg in "$@"; do
  case "$arg" in
    --host-only) host_only=1 ;;
    --skip-setup) skip_setup=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg' (expected --host-only, --skip-setup or --help)" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
if [ "$skip_setup" -eq 0 ]; then
  if [ "$host_only" -eq 1 ]; then bash tools/setup.sh --host; else bash tools/setup.sh; fi || {
    echo "test.sh: setup failed"; echo "0 passed, 1 failed"; exit 1; }
fi

BAZEL=${BAZEL:-bazel}
log_dir=$(mktemp -d)
total_pass=0
total_fail=0
stage_failed=0

# free_disk: the space left where Bazel writes (its output base), as "N.N GiB". A full CI run
# writes about 7 GiB there (host, aarch64, sanitizer builds) plus 0.5 GiB of fuzz objects.
free_disk() {
  df -Pk "$HOME" . 2>/dev/null | awk 'NR > 1 && (min == "" || $4 < min) { min = $4 }
    END { printf "%.1f GiB", min / 1048576 }'
}
echo "test.sh: $(free_disk) free on disk"

# run_stage NAME bazel-test-arguments...
run_stage() {
  local name="$1"; shift
  local log="$log_dir/$name.log"
  echo "=== $name: bazel test $*"
  local start=$SECONDS
  "$BAZEL" test --color=no --curses=no "$@" >"$log" 2>&1
  local rc=$?
  # Bazel's per-test summary lines: "//pkg:name  [(cached)] PASSED in 0.1s", FAILED, TIMEOUT,
  # FLAKY, NO STATUS, FAILED TO BUILD.
  local pass fail
  # "(cached) PASSED", and "(6/8 cached) PASSED" for a sharded test some of whose shards were
  # cached.
  pass=$(grep -Ec '^//[^ ]+ +(\(([0-9]+/[0-9]+ )?cached\) )?PASSED' "$log")
  fail=$(grep -Ec '^//[^ ]+ +(\(([0-9]+/[0-9]+ )?cached\) )?(FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)' "$log")
  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
    # The build broke before any test ran (or Bazel itself failed): count the stage as a failure.
    fail=1
  fi
  if [ "$rc" -ne 0 ] || [ "$fail" -ne 0 ]; then
    stage_failed=1
    if grep -q 'No space left on device' "$log"; then
      echo "test.sh: stage $name ran out of disk space ($(free_disk) free now)"
    fi
    grep -E '^(ERROR|FAIL|//.*(FAILED|TIMEOUT|NO STATUS))' "$log" | head -40
    # Show the failing tests' own logs (last lines).
    grep -Eo '/[^ ]+/test\.log' "$log" | sort -u | head -5 | while read -r f; do
      echo "--- $f"; tail -30 "$f"; done
  fi
  echo "    $name: $pass passed, $fail failed ($((SECONDS - start)) s, $(free_disk) free after)"
  # What the stage skipped, and why (GTEST_SKIP reasons; "SKIPPED:" lines of shell tests).
  local a cfg=()
  for a in "$@"; do case "$a" in --config=*) cfg+=("$a") ;; esac; done
  python3 tools/test_skips.py "$log" "$("$BAZEL" info "${cfg[@]}" bazel-testlogs 2>/dev/null)" |
    sed 's/^/    /'

  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
}

run_stage host //...
if [ "$host_only" -eq 0 ]; then
  run_stage aarch64-max --config=aarch64 //...
  run_stage aarch64-a76 --config=aarch64 --test_env=EDGEQ_QEMU_CPU=cortex-a76 \
    --build_tests_only //runtime/kernels/...
  run_stage aarch64-a53 --config=aarch64 --test_env=EDGEQ_QEMU_CPU=cortex-a53 \
    --build_tests_only //runtime/kernels/...
  # The selective build's size (README, "Footprint"): only the files that read its --define
  # values recompile (the defines leave Bazel's output paths as they are).
  run_stage aarch64-selective --config=aarch64 --config=selective \
    //tests/footprint:selective_footprint_test
fi
# Parsers and codecs under ASan + UBSan. Packages that do not exist yet are skipped.
asan_targets=()
for pkg in core quantization checkpoint convert tokenizer llm c_api tests; do
  [ -f "$pkg/BUILD" ] && asan_targets+=("//$pkg/...")
done
# tests/consumer builds the SDK tarball and links it with the system compilers: not under ASan.
run_stage asan --config=asan --build_tests_only "${asan_targets[@]}" -- -//tests/consumer/...
# The runtime's threaded tests (two Models executing at once, 2-thread kernels) under
# ThreadSanitizer.
run_stage tsan --config=tsan --build_tests_only //runtime:session_test //runtime:ops_test \
  //runtime:qmatmul_op_test //runtime:execute_alloc_test

# Every fuzz target built (objects compiled in parallel and cached between runs outside the clone,
# see run_fuzzers.sh) and run for 20 s, two at a time; one passed/failed count per target.
if [ -x tests/fuzz/run_fuzzers.sh ]; then
  echo "=== fuzz: tests/fuzz/run_fuzzers.sh (short run)"
  start=$SECONDS
  tests/fuzz/run_fuzzers.sh --seconds="${EDGEQ_FUZZ_SECONDS:-20}" >"$log_dir/fuzz.log" 2>&1
  rc=$?
  read -r pass _ fail _ < <(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log_dir/fuzz.log" | tail -1)
  pass=${pass:-0}
  fail=${fail:-0}
  if [ "$rc" -ne 0 ]; then
    [ "$fail" -ne 0 ] || fail=1  # it stopped before fuzzing (setup or compilation)
    stage_failed=1; tail -40 "$log_dir/fuzz.log"
  fi
  echo "    fuzz: $pass passed, $fail failed ($((SECONDS - start)) s, $(free_disk) free after)"
  grep -E '^run_fuzzers.sh: .*\([0-9]+ s\)$' "$log_dir/fuzz.log" | sed 's/^/    /'
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
fi

echo "logs: $log_dir"
echo "${total_pass} passed, ${total_fail} failed"
[ "$stage_failed" -eq 0 ] && [ "$total_fail" -eq 0 ]
