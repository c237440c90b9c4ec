#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every test: shellcheck over the shell scripts, -Werror build + ctest (unit, per-kernel,
# CLI, interop, bench smoke), the same built with clang and under ASan+UBSan (gcc and clang), the
# AVX-512 kernel over SIMDe (ASan + UBSan), the threaded tests under TSan, the parser and file
# tests under valgrind, the aarch64 build under qemu (NEON kernel), the ISA check, the fuzzer, and
# the install check.
# Usage: bash scripts/test.sh   (from anywhere)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup-debian.sh

jobs=$(nproc)
step() { printf '\n=== %s\n' "$*"; }

# The shell scripts at warning level (SC2046 and the like: word splitting of a command's output,
# loop variables never read). The recorded benchmark runs' meta.sh files are data, not scripts.
step "shellcheck"
git ls-files -z -- '*.sh' .ci/run bench/run bench/scale ':!bench/results*/meta.sh' |
  xargs -0 shellcheck -S warning
echo "shellcheck: clean"

step "release build (-Werror) and ctest"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBLOOMLINE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# The same with clang, whose warnings differ from gcc's (-Wbitwise-instead-of-logical, ...): a
# user building with either compiler gets a clean -Werror build and the same answers.
step "clang build (-Werror) and ctest"
CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release -DBLOOMLINE_WERROR=ON >/dev/null
cmake --build build-clang -j"$jobs"
ctest --test-dir build-clang --output-on-failure -j"$jobs"

# ASan + UBSan with both compilers: their checks differ, and so do their macros (Clang 14 has no
# __SANITIZE_ADDRESS__, so a test that skips under ASan failed only in the Clang build).
for cc in gcc clang; do
  dir=build-asan; [ "$cc" = gcc ] || dir=build-asan-$cc
  step "ASan + UBSan build ($cc) and ctest"
  CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMLINE_WERROR=ON \
    -DBLOOMLINE_SANITIZE_ADDRESS=ON -DBLOOMLINE_SANITIZE_UNDEFINED=ON \
    -DBLOOMLINE_BUILD_BENCH=OFF >/dev/null
  cmake --build "$dir" -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$dir" --output-on-failure -j"$jobs"
done

# The AVX-512 kernel where the CPU lacks AVX-512: built over SIMDe's AVX-512 (as the NEON kernel
# runs on x86; CMake option BLOOMLINE_AVX512_VIA_SIMDE) and picked as "avx512" by every test,
# under ASan + UBSan, so that its bits and answers are checked against scalar on any x86-64 CI
# machine, not only on AVX-512 ones.
if [ "$(uname -m)" = x86_64 ]; then
  step "AVX-512 kernel through SIMDe, ASan + UBSan, and ctest"
  cmake -S . -B build-avx512-simde -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMLINE_WERROR=ON \
    -DBLOOMLINE_SANITIZE_ADDRESS=ON -DBLOOMLINE_SANITIZE_UNDEFINED=ON \
    -DBLOOMLINE_BUILD_BENCH=OFF -DBLOOMLINE_AVX512_VIA_SIMDE=ON >/dev/null
  cmake --build build-avx512-simde -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-avx512-simde --output-on-failure -j"$jobs"
fi

# The tests that start threads (concurrent inserts and counting adds, the sizing model's fill,
# the CLI's workers) under ThreadSanitizer, which reports a race even where the results come
# out right.
step "TSan build and the threaded tests"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMLINE_WERROR=ON \
  -DBLOOMLINE_SANITIZE_THREAD=ON -DBLOOMLINE_BUILD_BENCH=OFF >/dev/null
cmake --build build-tsan -j"$jobs"
ctest --test-dir build-tsan --output-on-failure -j"$jobs" \
  -R '^(test_filter|test_counting|test_parts|test_sizing_threads|cli)$'

# Reads of uninitialized memory, which neither ASan nor UBSan reports (cli_parse_double read an
# unset pointer for -p ' 0.5' until valgrind showed it): the kernels (each against scalar), the
# filters, the parsers, the file format, the exports, the files, and every allocation and file
# call failed in turn run under memcheck, on the release build (valgrind hides AVX-512, so the
# AVX2 kernel where there is one; ~3 min). Not the sizing model's tests: valgrind computes long
# double at double precision, and their checks of the model fail there.
step "valgrind memcheck: kernels, filters, parsers, file format, exports, files, injected failures"
for t in test_kernels test_filter test_counting test_scalable test_pipeline test_parts \
         test_counts test_cli_args test_cli_split test_cli_count test_smoke test_hash \
         test_format test_compat test_persist test_alloc_failure test_io_failure; do
  log=$root/build/valgrind-$t.log
  if ! (cd tests && CMOCKA_MESSAGE_OUTPUT=stdout \
        valgrind -q --error-exitcode=99 "$root/build/tests/$t" > "$log" 2>&1); then
    cat "$log"
    echo "valgrind memcheck: $t failed (log: $log)"
    exit 1
  fi
  echo "$t: clean"
done

for s in check-isa test-aarch64 fuzz test-install; do
  if [ -f "scripts/$s.sh" ]; then
    step "$s"
    bash "scripts/$s.sh"
  fi
done
step "all tests passed"
