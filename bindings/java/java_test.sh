#!/usr/bin/env bash
# JUnit 4 tests of the dev.edgeq binding on the host JVM (Debian's JDK 17, junit4 + hamcrest
# jars from tools/setup.sh): compiles src/test against the built classes jar, runs the graph
# tests, then (with @edgeq_refdata//:models) the LLM tests, under -Xcheck:jni: the JVM checks
# every JNI call and reports a native frame that holds more local references than it reserved
# ("WARNING: JNI local refs: N, exceeds capacity: M"); any such report fails the test.
source tests/shell/check.sh
source tests/shell/reference_data.sh
set -uo pipefail
lib=bindings/java/libedgeq_jni.so
if [ -n "${EDGEQ_EXEC:-}" ] || ! readelf -h "$lib" | grep -q "X86-64"; then
  echo "SKIPPED: the JUnit tests run on the x86-64 host JVM only (this libedgeq_jni.so is another arch)"
  exit 0
fi
junit=/usr/share/java/junit4.jar
hamcrest=/usr/share/java/hamcrest-core.jar
for jar in "$junit" "$hamcrest"; do
  if [ ! -f "$jar" ]; then
    echo "FAIL: $jar is missing; tools/setup.sh installs Debian's junit4 (with libhamcrest-java)"
    exit 1
  fi
done
work="$TEST_TMPDIR/java"
mkdir -p "$work/lib" "$work/classes"
cp bindings/java/libedgeq.so "$lib" "$work/lib/"
classpath="bindings/java/edgeq-java.jar:$junit:$hamcrest:$work/classes"
check "javac the tests" /usr/bin/javac -Xlint:all -Werror -encoding UTF-8 -cp "$classpath" \
  -d "$work/classes" bindings/java/src/test/java/dev/edgeq/*.java

# run_junit NAME CLASS...: JUnit under -Xcheck:jni; fails on a failed test or a JNI warning.
run_junit() {
  local name="$1"; shift
  /usr/bin/java -Xcheck:jni -Dedgeq.library.dir="$work/lib" "${props[@]}" -cp "$classpath" \
    org.junit.runner.JUnitCore "$@" >"$work/$name.log" 2>&1
  local rc=$?
  cat "$work/$name.log"
  check "$name: JUnit" test "$rc" -eq 0
  check "$name: no -Xcheck:jni warning" bash -c "! grep -q 'WARNING' '$work/$name.log'"
}

props=()
run_junit graph dev.edgeq.GraphTest
reference_data_dir models
props=("-Dedgeq.model=$REPLY/stories260K.gguf"
  "-Dedgeq.golden_dir=$PWD/tests/testdata/tinystories")
run_junit llm dev.edgeq.LlmTest dev.edgeq.LongGenerationTest dev.edgeq.StateTest
finish
