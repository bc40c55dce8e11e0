#!/usr/bin/env bash
# Keeps the shipped native libraries small: libedgeq.so and libedgeq_jni.so of this build
# (host, or aarch64 under --config=aarch64; with or without --define=edgeq_chat=off), stripped,
# must stay under the limits the BUILD file gives for that configuration (README, "Footprint").
#   footprint_test.sh LIBEDGEQ_LIMIT JNI_LIMIT   (bytes)
source tests/shell/check.sh
set -uo pipefail
lib_limit="$1" jni_limit="$2"
if [ "$lib_limit" = skip ]; then
  echo "SKIPPED: sizes are measured on optimized builds, not under --config=asan"
  exit 0
fi
strip_tool=strip
if readelf -h sdk/libedgeq.so | grep -q AArch64; then strip_tool=aarch64-linux-gnu-strip; fi
measure() {  # measure NAME FILE LIMIT
  local out="$TEST_TMPDIR/$1.stripped"
  "$strip_tool" -o "$out" "$2" || { check "strip $2" false; return; }
  local size
  size=$(stat -L -c %s "$out")
  echo "$1: $(stat -L -c %s "$2") bytes, stripped $size bytes (limit $3)"
  check "$1 stripped <= $3 bytes" test "$size" -le "$3"
}
measure libedgeq.so sdk/libedgeq.so "$lib_limit"
measure libedgeq_jni.so bindings/java/libedgeq_jni.so "$jni_limit"
# Cold code is built without <iostream>'s static std::ios_base::Init (.bazelrc,
# -D_GLIBCXX_IOSTREAM=1): these files had no other static initializer.
nm_tool=nm
if [ "$strip_tool" = aarch64-linux-gnu-strip ]; then nm_tool=aarch64-linux-gnu-nm; fi
all_symbols=$("$nm_tool" sdk/libedgeq.so)
for f in edgeq_c.cc tokenizer_gguf.cc json_schema.cc interpreter.cc; do
  check "no static initializer in $f" bash -c '! grep -q "_GLOBAL__sub_I_$1\$"' _ "$f" <<<"$all_symbols"
done
# On aarch64 every CPU has NEON: the generic qmatmul kernels NEON ones stand for are left out
# (runtime/kernels/qmatmul.cc, Dispatched). The unstripped library keeps its local symbols.
if [ "$strip_tool" = aarch64-linux-gnu-strip ]; then
  symbols=$(aarch64-linux-gnu-nm sdk/libedgeq.so)
  for k in kQ4_0NeonGemv kQ6_KNeonGemm; do
    check "$k is in" grep -q "$k" <<<"$symbols"
  done
  for k in kQ4_0GenericGemv kQ6_KGenericGemm kF16GenericGemv; do
    check "$k is left out" bash -c '! grep -q "$1"' _ "$k" <<<"$symbols"
  done
  # The same for attention (runtime/kernels/attention/attention.cc, SelectAttentionKernel).
  demangled=$(aarch64-linux-gnu-nm -C sdk/libedgeq.so)
  check "the NEON attention kernel is in" grep -q "AttendRows<.*NeonOps>" <<<"$demangled"
  check "the generic attention kernel is left out" \
    bash -c '! grep -q "AttendRows<.*GenericOps>"' <<<"$demangled"
  # One copy of each NEON activation quantizer (runtime/kernels/arm/activations_neon.h), not one
  # per kernel file.
  for q in QuantizeRowQ8_KNeon QuantizeRowQ8_0SNeon QuantizePairQ8_0PNeon; do
    check "one $q" test "$(grep -c "$q" <<<"$symbols")" -eq 1
  done
fi
finish
