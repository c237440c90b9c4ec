#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad arguments to the benchmark programs and scripts: each must stop at once with status 2 and a
# message naming what is wrong, never run with a made-up value, print empty tables and succeed,
# or start a run of minutes. usage: run_bench_arg_tests.sh BUILD_DIR
set -u

BUILD=$(cd "${1:?usage: run_bench_arg_tests.sh BUILD_DIR}" && pwd)
BIN=$BUILD/bench
SRC=$(cd "$(dirname "$0")/../../bench" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/bloomline-bench-args.XXXXXX")
trap 'rm -rf "$T"' EXIT

PASS=0
FAIL=0
# expect STATUS PATTERN COMMAND...: the command (given 60 s at most: a bad argument taken for a
# good one may start a long run; a good --quick run takes 4-9 s, more on a busy machine) exits
# with STATUS and its stderr, or stdout when STATUS is 0, matches the extended regular expression
# PATTERN.
expect() {
    local want=$1 pat=$2 got stream=$T/err
    shift 2
    timeout 60 "$@" > "$T/out" 2> "$T/err"
    got=$?
    [ "$want" -eq 0 ] && stream=$T/out
    if [ "$got" -eq "$want" ] && grep -Eq -- "$pat" "$stream"; then
        PASS=$((PASS + 1))
    else
        FAIL=$((FAIL + 1))
        echo "FAIL: $* -> status $got (want $want), $(head -c 300 "$stream")" >&2
    fi
}
# lacks FILE PATTERN WHAT: FILE (the last command's out or err) has no line matching PATTERN.
lacks() {
    if grep -Eqi -- "$2" "$1"; then
        FAIL=$((FAIL + 1))
        echo "FAIL: $3: $(grep -Ei -- "$2" "$1" | head -2)" >&2
    fi
}

for p in bench_probe bench_filters bench_fpr bench_parts bench_scale bench_urls bench_ab; do
    expect 0 "^usage: $p" "$BIN/$p" --help
    expect 2 "unknown option '--bogus'|usage: $p" "$BIN/$p" --bogus
done

expect 2 "--reps: .*'1e12'" "$BIN/bench_probe" --reps 1e12
expect 2 "--reps: .*'5x'" "$BIN/bench_probe" --reps 5x
expect 2 "--bits-per-key: .*'10abc'" "$BIN/bench_probe" --bits-per-key 10abc
expect 2 "--bits-per-key: .*'1e30'" "$BIN/bench_probe" --bits-per-key 1e30
expect 2 "--dist: .*'2\^33'" "$BIN/bench_probe" --dist 2^33
expect 2 "--sample: .*'2\^40'" "$BIN/bench_probe" --sizes 10 --sample 2^40
expect 2 "--sizes: .*'10,,12'" "$BIN/bench_probe" --sizes 10,,12
expect 2 "--clock needs a value" "$BIN/bench_probe" --quick --clock
expect 2 "--keys: 'foo'" "$BIN/bench_filters" --quick --keys foo
expect 2 "--layouts: 'block'" "$BIN/bench_filters" --quick --layouts block
expect 2 "--kernels: 'foo'" "$BIN/bench_filters" --quick --kernels foo
expect 2 "--dist: .*'1e12'" "$BIN/bench_filters" --quick --dist 1e12
expect 2 "--hashset-max-gib: .*'abc'" "$BIN/bench_filters" --quick --hashset-max-gib abc
expect 2 "--layouts: 'block'" "$BIN/bench_fpr" --quick --layouts block
expect 2 "--keys: .*'2\^10x'" "$BIN/bench_fpr" --keys 2^10x
expect 2 "--queries-max 4 is below" "$BIN/bench_fpr" --queries-min 5 --queries-max 4
expect 2 "unknown option '--x'" "$BIN/bench_parts" --quick --x
expect 2 "--threads: .*'1e3'" "$BIN/bench_scale" --keys 1000 --threads 1e3
expect 2 "--fpp: .*'0.01abc'" "$BIN/bench_scale" --keys 1000 --fpp 0.01abc
expect 2 "N: .*'0'" "$BIN/bench_urls" keys 0
expect 2 "N: .*'1e30'" "$BIN/bench_urls" keys 1e30
# bench_ab: two copies of this build's library; a path, option or library it cannot use stops it
# before any filter is made.
LIB=$BUILD/libbloomline.so
cp "$LIB" "$T/old.so" && cp "$LIB" "$T/new.so"
echo "not a library" > "$T/text.so"
expect 2 "expected two libraries.*got 0" "$BIN/bench_ab"
expect 2 "expected two libraries.*got 1" "$BIN/bench_ab" "$T/old.so" --size 10
expect 2 "--reps: .*'0'" "$BIN/bench_ab" "$T/old.so" "$T/new.so" --reps 0
expect 2 "--ops: 'single-querry'" "$BIN/bench_ab" "$T/old.so" "$T/new.so" --ops single-querry
expect 2 "--keys: 'str'" "$BIN/bench_ab" "$T/old.so" "$T/new.so" --keys str
expect 2 "--layout: 'block' is not a layout" "$BIN/bench_ab" "$T/old.so" "$T/new.so" --layout block
expect 2 "--kernel: 'foo'" "$BIN/bench_ab" "$T/old.so" "$T/new.so" --kernel foo
expect 2 "text.so \\(new\\): cannot load" "$BIN/bench_ab" "$T/old.so" "$T/text.so"
expect 2 "no symbol bl_" "$BIN/bench_ab" "$T/old.so" libc.so.6
expect 2 "one library to the dynamic loader" "$BIN/bench_ab" "$T/old.so" "$T/old.so"
cell='[0-9.]+ \([0-9.]+\)'
expect 0 "^\| batch-query hit \| $cell \| $cell \| [0-9.]+ \| [0-9.]+-[0-9.]+ \|" \
    "$BIN/bench_ab" "$T/old.so" "$T/new.so" --size 10 --reps 3
lacks "$T/out" nan "bench_ab --size 10 --reps 3"

# The CPU to pin to, from the environment: read whole and within the CPUs this machine has.
for v in abc 1x -1 99999; do
    expect 2 "BLOOMLINE_BENCH_CPU=$v: expected a CPU number" env BLOOMLINE_BENCH_CPU="$v" \
        "$BIN/bench_probe" --quick
done
expect 0 "rolling" env BLOOMLINE_BENCH_CPU=0 "$BIN/bench_probe" --quick

# A CSV that cannot be written fails the run (status 1), before it starts where it can be opened.
expect 1 "/nonexistent/p.csv" "$BIN/bench_probe" --quick --csv /nonexistent/p.csv
expect 1 "/nonexistent/f.csv" "$BIN/bench_filters" --quick --csv /nonexistent/f.csv
expect 1 "/nonexistent/s.csv" "$BIN/bench_fpr" --quick --csv-space /nonexistent/s.csv
expect 1 "/nonexistent/c.csv" "$BIN/bench_scale" --keys 1000 --csv /nonexistent/c.csv
lacks "$T/err" building "bench_scale with a bad --csv path ran"
expect 1 "/dev/full: writing the CSV failed" "$BIN/bench_probe" --quick --csv /dev/full

# Filters that cannot be created (2^62 keys: beyond every layout's limit) fail the run.
expect 1 "size too large" "$BIN/bench_fpr" --keys 2^62 --queries-min 1 --queries-max 1 \
    --layouts blocked

# Odd but valid sizes: a table, no "nan" in it (the hash set's insert cell was -nan when the
# filter had fewer keys than two a repetition beyond the sample).
expect 0 "hash set" "$BIN/bench_filters" --sizes 1,2 --sample 1 --reps 5 --keys u64,url --no-libbloom \
    --layouts blocked --kernels scalar
lacks "$T/out" nan "bench_filters --sizes 1,2 --sample 1"

# The scripts: a missing value, a build dir in no directory, counts their shell arithmetic and
# bench_urls cannot both take; nothing of the run starts.
expect 2 "--out needs a value" "$SRC/run" --quick --no-build --out
expect 2 "/nonexistent is not a directory" "$SRC/run" --quick --no-build --build-dir /nonexistent/b
expect 2 "--cli-lines: .*'1e3'" "$SRC/run" --quick --no-build --cli-lines 1e3
expect 2 "--lines needs a value" "$SRC/cli.sh" --lines
for v in 1e3 0 abc; do
    expect 2 "--lines: .*'$v'" "$SRC/cli.sh" --build-dir "$BUILD" --out "$T/o" --work "$T/w" \
        --lines "$v"
    expect 2 "--reps: .*'$v'" "$SRC/cli.sh" --build-dir "$BUILD" --out "$T/o" --work "$T/w" \
        --reps "$v"
done
[ ! -e "$T/w" ] || lacks <(ls "$T/w") . "bench/cli.sh with a bad --lines left files"
expect 2 "--build-dir needs a value" "$SRC/scale" --no-record --build-dir

# A run with --skip-cli has no CLI verdicts, whatever an earlier run left in its directory (it
# used to report that run's cli.csv as its own).
mkdir -p "$T/q"
printf 'tool,phase,lines,seconds,lines_per_s,max_rss_kb,exit,selected\n%s\n%s\n' \
    bloomline,build,10000000,0.25,40000000,25628,0,- \
    bloomline,query,10000000,0.14,71428571,26156,0,5049904 > "$T/q/cli.csv"
expect 0 "CLI targets.*not run" "$SRC/run" --quick --no-build --build-dir "$BUILD" --out "$T/q" \
    --skip-cli

echo "bench args: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
