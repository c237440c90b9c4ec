#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every Debian package bloomline needs to build, test and demo (run as root; idempotent).
set -euo pipefail

packages=(
  build-essential cmake pkg-config binutils time
  libxxhash-dev libsimde-dev libcmocka-dev libhwloc-dev
  clang libclang-rt-14-dev             # libFuzzer target
  valgrind                             # memcheck: reads of uninitialized memory
  shellcheck                           # the test scripts' lint (scripts/test.sh)
  gcc-aarch64-linux-gnu qemu-user      # the NEON kernel for real, under qemu
  libc6-dev:arm64 libcmocka-dev:arm64 libxxhash-dev:arm64
  default-jdk-headless libguava-java   # Guava interop test
  libbloom-dev gnuplot-nox mawk gawk   # benchmark peer, plots, the two awks the CLI is compared with
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
