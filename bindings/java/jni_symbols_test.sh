#!/usr/bin/env bash
# libedgeq_jni.so (host, or aarch64 under --config=aarch64) needs only the C API (edgeq_*, from
# libedgeq.so) and libc-level functions, and on aarch64 its LOAD segments are aligned to 16 KB
# pages (-z max-page-size=16384, Android 15's 16 KB page devices). readelf reads either arch.
source tests/shell/check.sh
set -uo pipefail
lib=bindings/java/libedgeq_jni.so
# libc/libm/libdl/libpthread/liblog-level functions the JNI layer may call.
allowed='^(malloc|calloc|realloc|free|memcpy|memmove|memset|strlen|strcmp|abort|__cxa_finalize|__gmon_start__|_ITM_registerTMCloneTable|_ITM_deregisterTMCloneTable|__stack_chk_fail|__stack_chk_guard|__android_log_print)$'
readelf --dyn-syms -W "$lib" | awk '$7 == "UND" && $8 != "" {sub(/@.*/, "", $8); print $8}' \
  | sort -u >"$TEST_TMPDIR/undefined.txt"
echo "undefined symbols of $lib:"; cat "$TEST_TMPDIR/undefined.txt"
grep -v '^edgeq_' "$TEST_TMPDIR/undefined.txt" | grep -Ev "$allowed" >"$TEST_TMPDIR/bad.txt"
check "only edgeq_* and libc-level symbols undefined" test ! -s "$TEST_TMPDIR/bad.txt"
cat "$TEST_TMPDIR/bad.txt"
check "it calls the C API" grep -q '^edgeq_llm_generate$' "$TEST_TMPDIR/undefined.txt"
readelf -d "$lib" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}' >"$TEST_TMPDIR/needed.txt"
echo "needed: $(tr '\n' ' ' <"$TEST_TMPDIR/needed.txt")"
check "needs only libedgeq.so and libc/libm/libdl/liblog" \
  bash -c "! grep -Ev '^(libedgeq\\.so|libc\\.so\\.6|libm\\.so\\.6|libdl\\.so\\.2|libc\\.so|libm\\.so|libdl\\.so|liblog\\.so)$' '$TEST_TMPDIR/needed.txt'"
check "the JNI entry points are exported" \
  bash -c "readelf --dyn-syms -W '$lib' | grep -q ' Java_dev_edgeq_Native_llmGenerate$'"
if readelf -h "$lib" | grep -q "AArch64"; then
  check "aarch64: LOAD segments aligned to 16 KB" \
    bash -c "readelf -l -W '$lib' | awk '\$1 == \"LOAD\" {n++; if (\$NF != \"0x4000\") bad++} END {exit !(n > 0 && bad == 0)}'"
fi
finish
