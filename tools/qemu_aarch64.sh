#!/bin/sh
# Runs an aarch64 Linux binary under qemu-user (used by `bazel test --config=aarch64`).
#   EDGEQ_QEMU_CPU   qemu CPU model: max (default: NEON+dotprod+i8mm), cortex-a76 (dotprod, no
#                    i8mm), cortex-a53 (NEON only).
#
# The dynamic loader and glibc must come from ONE glibc build. tools/setup.sh installs Debian's
# multiarch libc6:arm64 (with the arm64 -dev packages), so the guest root is / and the loader is
# /lib/ld-linux-aarch64.so.1. Using the cross toolchain's /usr/aarch64-linux-gnu as the root
# instead mixes its loader (2.36-8cross1) with the multiarch libc found through ld.so.cache
# (2.36-9+deb12uN), and every pthread_create then hangs. cpuinfo, XNNPACK and pthreadpool come
# from the sysroot tools/setup.sh extracts.
set -eu
cpu="${EDGEQ_QEMU_CPU:-max}"
[ -n "$cpu" ] || cpu=max
sysroot_lib="${EDGEQ_ARM64_SYSROOT:-/opt/edgeq/arm64-sysroot}/usr/lib/aarch64-linux-gnu"
# A test that is a shell script runs on the host; it starts aarch64 binaries through
# $EDGEQ_EXEC (this script).
if [ "$(head -c 2 "$1" 2>/dev/null)" = "#!" ]; then
  EDGEQ_EXEC="$0" exec "$@"
fi
if ! command -v qemu-aarch64 >/dev/null 2>&1; then
  echo "qemu_aarch64: qemu-aarch64 not found; run tools/setup.sh" >&2
  exit 127
fi
if [ -e /lib/ld-linux-aarch64.so.1 ]; then
  root=/
  libpath="$sysroot_lib:/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu"
else
  root=/usr/aarch64-linux-gnu
  libpath="$sysroot_lib:/usr/aarch64-linux-gnu/lib"
fi
exec qemu-aarch64 -cpu "$cpu" -L "$root" -E "LD_LIBRARY_PATH=$libpath" "$@"
