#!/bin/sh
# Runs an aarch64 Linux binary under qemu-user (used by `bazel test --config=aarch64`).
#   EDGEQ_QEMU_CPU   qemu CPU model: max (default: NEON+dotprod+i8mm), cortex-a76 (dotprod, no
#                    i8mm), cortex-a53 (NEON only).
# glibc comes from Debian's cross toolchain (/usr/aarch64-linux-gnu); cpuinfo, XNNPACK and
# pthreadpool from the sysroot tools/setup.sh extracts.
set -eu
cpu="${EDGEQ_QEMU_CPU:-max}"
[ -n "$cpu" ] || cpu=max
sysroot_lib="${EDGEQ_ARM64_SYSROOT:-/opt/edgeq/arm64-sysroot}/usr/lib/aarch64-linux-gnu"
if ! command -v qemu-aarch64 >/dev/null 2>&1; then
  echo "qemu_aarch64: qemu-aarch64 not found; run tools/setup.sh" >&2
  exit 127
fi
exec qemu-aarch64 -cpu "$cpu" -L /usr/aarch64-linux-gnu \
  -E "LD_LIBRARY_PATH=$sysroot_lib:/usr/lib/aarch64-linux-gnu" "$@"
