#!/usr/bin/env bash
# bazel run //runtime/kernels:update_kernel_list: writes internal/kernel_list.inc from kernels.bzl
# (`bazel run` starts it in its runfiles, where the generated file is).
set -euo pipefail
dst="${BUILD_WORKSPACE_DIRECTORY:?run it with bazel run}/runtime/kernels/internal/kernel_list.inc"
cp runtime/kernels/generated/kernel_list.inc "$dst"
chmod 644 "$dst"
echo "wrote $dst"
