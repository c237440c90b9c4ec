#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-compile the library and test suite for aarch64 (Debian's gcc-aarch64-linux-gnu against the
# arm64 multiarch -dev packages) and run ctest under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR),
# so the NEON kernel is auto-selected and tested as on an arm64 machine. Exits non-zero on any
# failure.
#   scripts/test-aarch64.sh [build-dir]          (default: build-aarch64)
# Packages: gcc-aarch64-linux-gnu qemu-user libc6-dev:arm64 libcmocka-dev:arm64 libxxhash-dev:arm64
# (after dpkg --add-architecture arm64), plus libsimde-dev.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-aarch64}
jobs=$(nproc)

fail() {
    echo "test-aarch64: FAIL: $*" >&2
    exit 1
}

for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-objdump qemu-aarch64 cmake; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool not found (apt-get install gcc-aarch64-linux-gnu qemu-user cmake)"
done
for f in /usr/lib/aarch64-linux-gnu/libcmocka.so /usr/lib/aarch64-linux-gnu/libc.so \
    /usr/lib/aarch64-linux-gnu/pkgconfig/cmocka.pc; do
    [ -e "$f" ] || fail "$f missing (dpkg --add-architecture arm64; apt-get install libc6-dev:arm64 libcmocka-dev:arm64 libxxhash-dev:arm64)"
done

# The CLI's end-to-end test (ctest's cli) runs the aarch64 binary under qemu-aarch64 too (about
# 90 s; BLOOMLINE_AARCH64_CLI=OFF leaves the CLI out). Benchmarks are not tests.
cmake -S "$root" -B "$build" \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DBLOOMLINE_WERROR=ON \
    -DBLOOMLINE_BUILD_TESTS=ON -DBLOOMLINE_BUILD_BENCH=OFF -DBLOOMLINE_TEST_TIMEOUT=1200 \
    -DBLOOMLINE_BUILD_CLI="${BLOOMLINE_AARCH64_CLI:-ON}" ||
    fail "configure"
cmake --build "$build" -j "$jobs" || fail "build"

# The NEON kernel object must hold real NEON code (not SIMDe's scalar fallback): tbl over four
# registers for the blocked line and vector multiplies.
neon_obj=$build/CMakeFiles/bloomline_objects.dir/src/neon/kernels_neon.c.o
[ -f "$neon_obj" ] || fail "no NEON kernel object ($neon_obj)"
aarch64-linux-gnu-objdump -d "$neon_obj" | grep -qE '[[:space:]]tbl[[:space:]]+v[0-9]+\.16b, \{v[0-9]+\.16b-v[0-9]+\.16b\}' ||
    fail "kernels_neon.c.o has no 4-register tbl: NEON not compiled natively"
aarch64-linux-gnu-objdump -d "$neon_obj" | grep -qE '[[:space:]]mul[[:space:]]+v[0-9]+\.4s' ||
    fail "kernels_neon.c.o has no vector multiply: NEON not compiled natively"

# With BLOOMLINE_KERNEL unset, aarch64 must pick NEON (test_kernels asserts it, and prints it).
out=$(env -u BLOOMLINE_KERNEL qemu-aarch64 "$build/tests/test_kernels" 2>&1) ||
    { echo "$out" >&2; fail "test_kernels under qemu-aarch64"; }
echo "$out" | grep -q 'running kernel: neon' || { echo "$out" >&2; fail "the default kernel on aarch64 is not neon"; }
echo "test-aarch64: default kernel under qemu-aarch64: neon"

# Tests may shrink their heaviest cases under emulation (everything runs ~20x slower there).
# Extra ctest arguments (e.g. -R, -E) come from BLOOMLINE_AARCH64_CTEST_ARGS.
export BLOOMLINE_TEST_EMULATED=1
# shellcheck disable=SC2086
(cd "$build" && ctest --output-on-failure -j "$jobs" ${BLOOMLINE_AARCH64_CTEST_ARGS:-}) ||
    fail "ctest under qemu-aarch64"
echo "test-aarch64: PASS"
