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
# No static initializer at all: the library is built without <iostream>'s static
# std::ios_base::Init (.bazelrc, -D_GLIBCXX_IOSTREAM=1) and the built-in ops are constant data in
# the edgeq_builtin_ops section (runtime/ops/op_util.h, EDGEQ_REGISTER_OP), not registered by
# initializers.
nm_tool=nm readelf_tool=readelf
if [ "$strip_tool" = aarch64-linux-gnu-strip ]; then
  nm_tool=aarch64-linux-gnu-nm readelf_tool=aarch64-linux-gnu-readelf
fi
all_symbols=$("$nm_tool" sdk/libedgeq.so)
check "no static initializer" bash -c '! grep -q "_GLOBAL__sub_I_"' <<<"$all_symbols"
check "the built-in ops' section" bash -c '"$1" -SW sdk/libedgeq.so | grep -q " edgeq_builtin_ops "' \
  _ "$readelf_tool"
# Linked by lld (sdk/archive.bzl): relative relocations packed (DT_RELR) with the glibc version
# that makes an older loader refuse the library by name, and identical code folded.
dynamic=$("$readelf_tool" -dW sdk/libedgeq.so)
check "relative relocations packed (DT_RELR)" grep -q "(RELR)" <<<"$dynamic"
check "no unpacked relative relocations left (RELACOUNT)" bash -c '! grep -q "(RELACOUNT)"' \
  <<<"$dynamic"
check "needs GLIBC_ABI_DT_RELR" bash -c '"$1" -VW sdk/libedgeq.so | grep -q "GLIBC_ABI_DT_RELR"' \
  _ "$readelf_tool"
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
