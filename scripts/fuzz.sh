#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the libFuzzer target over bl_deserialize with clang (ASan + UBSan) and run it for a
# bounded time. Needs only Debian's clang and libclang-rt-14-dev (or another clang's runtime).
#   scripts/fuzz.sh [seconds]     (default 60; or BLOOMLINE_FUZZ_SECONDS)
# Exits non-zero if the fuzzer finds a crash; the input is saved as <build>/crash-*. Copy it into
# tests/fuzz/regressions/ (test_format replays that directory) once it is fixed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-${BLOOMLINE_FUZZ_SECONDS:-60}}
out=${BLOOMLINE_FUZZ_BUILD:-$root/build-fuzz}
cc=${BLOOMLINE_FUZZ_CC:-clang}

command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
mkdir -p "$out/corpus"

# The library's portable sources only: the ISA kernels are not needed to parse files.
echo "fuzz.sh: building $out/fuzz_deserialize with $cc"
# shellcheck disable=SC2046
"$cc" -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -I"$root/include" -I"$root/src" \
    $(ls "$root"/src/*.c "$root"/src/scalar/*.c) "$root/tests/fuzz/fuzz_deserialize.c" \
    -lm -lpthread -o "$out/fuzz_deserialize"

# New inputs go to $out/corpus (first directory); the committed seeds and past crashes are read.
echo "fuzz.sh: running for $secs s (log: $out/fuzz.log)"
status=0
"$out/fuzz_deserialize" "$out/corpus" "$root/tests/fuzz/corpus" "$root/tests/fuzz/regressions" \
    -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/" >"$out/fuzz.log" 2>&1 || status=$?
grep -E '^(INFO: seed corpus|#[0-9]+[[:space:]]+(INITED|DONE)|Done |stat::)' "$out/fuzz.log" || true
if [ "$status" -ne 0 ]; then
    tail -n 40 "$out/fuzz.log" >&2
    echo "fuzz.sh: FAILED with status $status (inputs: $out/crash-*)" >&2
    exit 1
fi
echo "fuzz.sh: no crash in $secs s"
