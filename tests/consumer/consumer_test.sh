#!/usr/bin/env bash
# Consumer tests of the SDK tarball (//:sdk): unpacks it with tools/install.sh, checks that
# libedgeq.so exports only edgeq_* and that libedgeq.a localizes everything else, then builds
# tests/consumer (a C and a C++ program) with CMake find_package(edgeq) and with pkg-config +
# make, static and shared, one static build also linking Debian's Abseil, and runs them on
# stories260K. An aarch64 tarball is built with Debian's cross compiler (toolchain-aarch64.cmake)
# and run under qemu ($EDGEQ_EXEC).
source tests/shell/check.sh
source tests/shell/reference_data.sh
set -uo pipefail

tarball=$(ls sdk/edgeq-*-linux-*.tar.gz | head -n 1)
arch=${tarball##*-linux-}
arch=${arch%.tar.gz}
work=$(mktemp -d)
prefix=$work/sdk
bash tools/install.sh "$prefix" "$PWD/$tarball" >/dev/null || { echo "FAIL: install.sh"; exit 1; }

nm=nm
if [ "$arch" = aarch64 ]; then nm=aarch64-linux-gnu-nm; fi
# 1. Exported symbols of the shared library: edgeq_* only (plus the version node EDGEQ_0).
bad=$($nm -D --defined-only "$prefix/lib/libedgeq.so" | awk '{print $3}' |
  grep -Ev '^(edgeq_[a-z0-9_]+|EDGEQ_0)(@@EDGEQ_0)?$' || true)
check "libedgeq.so exports only edgeq_*" test -z "$bad"
# ...and exactly the functions the header declares (sdk/edgeq.syms lists them; the header is
# parsed here again so that a function added to one and not the other is caught).
$nm -D --defined-only "$prefix/lib/libedgeq.so" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' |
  sort >"$work/exported.txt"
sed -n 's/.*EDGEQ_API[^(]*[ *]\(edgeq_[a-z0-9_]*\)(.*/\1/p' "$prefix/include/edgeq/edgeq.h" |
  sort -u >"$work/declared.txt"
check "libedgeq.so exports every function of edgeq.h and no other ($(wc -l <"$work/exported.txt") exported)" \
  cmp -s "$work/exported.txt" "$work/declared.txt"
check "sdk/edgeq.syms lists the functions of edgeq.h" cmp -s sdk/edgeq.syms "$work/declared.txt"
# 2. Strong global symbols the static archive defines: edgeq_* only (weak/unique COMDAT
#    symbols of inline functions and templates stay global, see sdk/archive.bzl).
bad=$($nm -g --defined-only "$prefix/lib/libedgeq.a" | awk 'NF==3 && $2 !~ /^[WVu]$/ {print $3}' |
  grep -Ev '^edgeq_' || true)
check "libedgeq.a defines no global symbol but edgeq_*" test -z "$bad"
if [ "$arch" = aarch64 ]; then
  check "libedgeq.so has 16 KB LOAD alignment" \
    sh -c "aarch64-linux-gnu-readelf -lW '$prefix/lib/libedgeq.so' | awk '/LOAD/ {print \$NF}' | grep -qx 0x4000"
fi

reference_data_dir models
model=$REPLY/stories260K.gguf

run() {  # run PROGRAM: runs it (under qemu for aarch64) on the model
  if [ "$arch" = aarch64 ]; then "${EDGEQ_EXEC:?no EDGEQ_EXEC for aarch64}" "$@" "$model"
  else "$@" "$model"; fi
}

cmake_args=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release)
make_env=(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" "RPATH=-Wl,-rpath,$prefix/lib")
if [ "$arch" = aarch64 ]; then
  cmake_args+=(-DCMAKE_TOOLCHAIN_FILE="$PWD/tests/consumer/toolchain-aarch64.cmake")
  sysroot_lib=/opt/edgeq/arm64-sysroot/usr/lib/aarch64-linux-gnu
  make_env+=(CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++
    "LDFLAGS=-L$sysroot_lib -Wl,-rpath-link,$sysroot_lib")
fi
# 3. CMake find_package(edgeq).
cp -r tests/consumer "$work/src"
if cmake -S "$work/src" -B "$work/cmake" "${cmake_args[@]}" >"$work/cmake.log" 2>&1 &&
   cmake --build "$work/cmake" -j 2 >>"$work/cmake.log" 2>&1; then
  check "cmake: C static runs" run "$work/cmake/consumer_c_static"
  check "cmake: C++ static runs" run "$work/cmake/consumer_cc_static"
  check "cmake: C shared runs" run "$work/cmake/consumer_c_shared"
  check "cmake: C++ shared runs" run "$work/cmake/consumer_cc_shared"
else
  tail -30 "$work/cmake.log"
  check "cmake configure + build" false
fi
# 4. pkg-config + make (static, shared, static next to Debian's Abseil).
if (cd "$work/src" && env "${make_env[@]}" make -s all LDLIBS= >"$work/make.log" 2>&1); then
  check "make: C static runs" run "$work/src/mk_c_static"
  check "make: C++ static runs" run "$work/src/mk_cc_static"
  check "make: C++ static + Debian's libabsl runs" run "$work/src/mk_cc_static_absl"
  check "make: C shared runs" run "$work/src/mk_c_shared"
else
  tail -30 "$work/make.log"
  check "make build" false
fi
finish
