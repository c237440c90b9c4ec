#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs bloomline into a scratch prefix, then compiles the README example against it twice
# (with pkg-config and with CMake's find_package(bloomline)) and runs the parallel-build and
# one-key-at-a-time examples.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name bloomline.pc | head -n1)")
export PKG_CONFIG_PATH
read -ra pc_flags <<< "$(pkg-config --cflags --libs bloomline)"
cc -o "$prefix/hello-pc" "$root/examples/hello.c" "${pc_flags[@]}" \
  -Wl,-rpath,"$(pkg-config --variable=libdir bloomline)"
"$prefix/hello-pc"
cmake -S "$root/examples" -B "$prefix/ex" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/ex" >/dev/null
"$prefix/ex/hello"
"$prefix/ex/parallel_build"
"$prefix/ex/one_at_a_time"
echo "install: pkg-config and find_package both work"
