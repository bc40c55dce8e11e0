#!/usr/bin/env bash
# The AAR-shaped packaging test archive (//:android_aar): its entries, aarch64 ELF libraries
# with 16 KB-aligned segments, Java 8 class files, consumer ProGuard rules keeping the native
# methods, and one Java_dev_edgeq_Native_* export in libedgeq_jni.so for every native method of
# dev.edgeq.Native (and no export without its method).
source tests/shell/check.sh
set -uo pipefail
aar=$(ls ./*.aar)
work="$TEST_TMPDIR/aar"
mkdir -p "$work"
check "the name says it is a packaging test of glibc builds" \
  bash -c "[[ '$aar' == *packaging-test-aarch64-glibc.aar ]]"
python3 - "$aar" "$work" <<'PY' >"$work/entries.txt"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
z.extractall(sys.argv[2])
print("\n".join(sorted(z.namelist())))
PY
printf '%s\n' AndroidManifest.xml R.txt classes.jar jni/arm64-v8a/libedgeq.so \
  jni/arm64-v8a/libedgeq_jni.so proguard.txt >"$work/want.txt"
check "entries" diff "$work/want.txt" "$work/entries.txt"
for so in libedgeq.so libedgeq_jni.so; do
  f="$work/jni/arm64-v8a/$so"
  check "$so is an AArch64 ELF shared object" bash -c "readelf -h '$f' | grep -q AArch64"
  check "$so: LOAD segments aligned to 16 KB" \
    bash -c "readelf -l -W '$f' | awk '\$1 == \"LOAD\" {n++; if (\$NF != \"0x4000\") bad++} END {exit !(n > 0 && bad == 0)}'"
done
check "libedgeq_jni.so needs libedgeq.so" \
  bash -c "readelf -d '$work/jni/arm64-v8a/libedgeq_jni.so' | grep -q 'NEEDED.*\[libedgeq.so\]'"
mkdir -p "$work/classes"
(cd "$work/classes" && python3 -c "import zipfile; zipfile.ZipFile('../classes.jar').extractall()")
check "classes.jar holds the binding" test -f "$work/classes/dev/edgeq/LlmModel.class"
check "every class is Java 8 bytecode (major version 52)" python3 - "$work/classes" <<'PY'
import pathlib, sys
bad = [str(p) for p in pathlib.Path(sys.argv[1]).rglob("*.class")
       if int.from_bytes(p.read_bytes()[6:8], "big") != 52]
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "proguard.txt keeps the native methods" grep -q "native <methods>;" "$work/proguard.txt"
check "proguard.txt keeps the JNI callback" grep -q "onNativeToken(int, byte\[\])" "$work/proguard.txt"
check "the manifest names the package" grep -q 'package="dev.edgeq"' "$work/AndroidManifest.xml"
/usr/bin/javap -p -cp "$work/classes.jar" dev.edgeq.Native \
  | sed -n 's/.* native .* \([A-Za-z0-9_]*\)(.*/\1/p' | sort >"$work/methods.txt"
readelf --dyn-syms -W "$work/jni/arm64-v8a/libedgeq_jni.so" \
  | awk '$7 != "UND" {print $8}' | sed -n 's/^Java_dev_edgeq_Native_//p' | sort >"$work/exports.txt"
echo "native methods: $(wc -l <"$work/methods.txt"), exports: $(wc -l <"$work/exports.txt")"
check "native methods have at least 30 entries" test "$(wc -l <"$work/methods.txt")" -ge 30
check "each native method has its JNI export and no export lacks its method" \
  diff "$work/methods.txt" "$work/exports.txt"
finish
