#!/usr/bin/env bash
# Installs the edgeq SDK tarball (bazel build //:sdk) into PREFIX: include/, lib/ (libedgeq.a,
# libedgeq.so, pkgconfig/edgeq.pc, cmake/edgeq/), bin/, share/doc/.
#   tools/install.sh PREFIX [TARBALL]   (default: bazel-bin/sdk/edgeq-*-linux-<this arch>.tar.gz)
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; [ $# -ge 1 ] && exit 0; exit 2
fi
prefix=$1
tarball=${2:-}
if [ -z "$tarball" ]; then
  cd "$(dirname "$0")/.."
  tarball=$(ls bazel-bin/sdk/edgeq-*-linux-"$(uname -m)".tar.gz 2>/dev/null | head -n 1 || true)
  [ -n "$tarball" ] || { echo "install.sh: no SDK tarball; run: bazel build //:sdk" >&2; exit 1; }
  tarball=$PWD/$tarball
fi
mkdir -p "$prefix"
tar -xzf "$tarball" -C "$prefix" --strip-components=1
echo "installed $(basename "$tarball") into $prefix"
