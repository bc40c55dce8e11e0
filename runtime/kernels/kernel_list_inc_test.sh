#!/usr/bin/env bash
# internal/kernel_list.inc (checked in: read by qmatmul.cc, the tests and the benchmarks) is what
# kernels.bzl's table generates.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/shell/check.sh"
dir="$TEST_SRCDIR/$TEST_WORKSPACE/runtime/kernels"
same() { diff -u "$dir/internal/kernel_list.inc" "$dir/generated/kernel_list.inc"; }
check "internal/kernel_list.inc matches kernels.bzl (bazel run //runtime/kernels:update_kernel_list)" same
finish
