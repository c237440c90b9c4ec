#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets over bl_deserialize (native format) and bl_import (Parquet and
# Guava) with clang (ASan + UBSan) and run each for half of a bounded time. Needs only Debian's
# clang and libclang-rt-14-dev (or another clang's runtime).
#   scripts/fuzz.sh [seconds]     (default 60; or BLOOMLINE_FUZZ_SECONDS)
# They start from the hand-made seeds (tests/fuzz/corpus, corpus-import) and from what a longer
# run found (tests/fuzz/found, found-import: inputs reaching paths that this run's minute does
# not; the tests replay them too).
# Exits non-zero if a fuzzer finds a crash; the input is saved as <build>/crash-* (bl_deserialize)
# or <build>/import-crash-* (bl_import). Copy it into tests/fuzz/regressions/ (test_format replays
# that directory) or tests/fuzz/regressions-import/ (test_compat) once it is fixed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-${BLOOMLINE_FUZZ_SECONDS:-60}}
out=${BLOOMLINE_FUZZ_BUILD:-$root/build-fuzz}
cc=${BLOOMLINE_FUZZ_CC:-clang}

command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
case $secs in
'' | *[!0-9]*) echo "fuzz.sh: seconds must be a whole number, not '$secs'" >&2; exit 2 ;;
esac
mkdir -p "$out/corpus" "$out/corpus-import"

# The library's portable sources only: the ISA kernels are not needed to parse files. -Werror:
# this is the one build with no ISA kernel at all (as on a CPU family bloomline has none for).
for target in fuzz_deserialize fuzz_import; do
    echo "fuzz.sh: building $out/$target with $cc"
    # shellcheck disable=SC2046
    "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
        -I"$root/include" -I"$root/src" \
        $(ls "$root"/src/*.c "$root"/src/scalar/*.c) "$root/tests/fuzz/$target.c" \
        -lm -lpthread -o "$out/$target"
done

# run <target> <seconds> <log> <artifact prefix> <corpus directories...>: new inputs go to the
# first directory; the committed seeds and past crashes are read. Sets status on a crash.
status=0
run() {
    target=$1 t=$2 log=$3 prefix=$4
    shift 4
    echo "fuzz.sh: running $target for $t s (log: $log)"
    rc=0
    "$out/$target" "$@" \
        -max_total_time="$t" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$prefix" >"$log" 2>&1 || rc=$?
    grep -E '^(INFO: seed corpus|#[0-9]+[[:space:]]+(INITED|DONE)|Done |stat::)' "$log" || true
    if [ "$rc" -ne 0 ]; then
        tail -n 40 "$log" >&2
        echo "fuzz.sh: $target FAILED with status $rc (inputs: $prefix""crash-*)" >&2
        status=1
    fi
}
# Half of the time each (libFuzzer reads 0 s as no limit, so each gets at least 1 s).
half=$((secs / 2))
[ "$half" -ge 1 ] || half=1
rest=$((secs - half))
[ "$rest" -ge 1 ] || rest=1
run fuzz_deserialize "$half" "$out/fuzz.log" "$out/" \
    "$out/corpus" "$root/tests/fuzz/corpus" "$root/tests/fuzz/found" "$root/tests/fuzz/regressions"
run fuzz_import "$rest" "$out/fuzz_import.log" "$out/import-" \
    "$out/corpus-import" "$root/tests/fuzz/corpus-import" "$root/tests/fuzz/found-import" \
    "$root/tests/fuzz/regressions-import"
if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: FAILED" >&2
    exit 1
fi
echo "fuzz.sh: no crash in $secs s"
