#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/targets.awk on hand-made CSVs (copies of a real run, in targets-base/, edited): each
# threshold just met and just missed, hit and miss from one kernel, rows and kernels missing,
# "nan" values, rows of two runs in one file, honest sizing with a layout missing, and the CLI
# and billion-URL runs at other sizes. usage: targets_test.sh
set -u

SRC=$(cd "$(dirname "$0")/../../bench" && pwd)
BASE=$(cd "$(dirname "$0")" && pwd)/targets-base # fixed: kept runs in bench/ do not move it
T=$(mktemp -d "${TMPDIR:-/tmp}/bloomline-targets.XXXXXX")
trap 'rm -rf "$T"' EXIT
PASS=0
FAIL=0

# fresh: the base CSVs in $T/c, to edit.
fresh() {
    rm -rf "$T/c"
    mkdir -p "$T/c"
    cp "$BASE"/{filters,fpr_bpk,fpr_p,fpr_space,cli,scale}.csv "$T/c/"
}
# set FILE KEY COLUMN VALUE: in the rows whose first fields are KEY (comma-separated), column
# COLUMN (1-based) becomes VALUE.
set_col() {
    awk -F, -v OFS=, -v key="$2" -v c="$3" -v v="$4" \
        'index($0, key ",") == 1 { $c = v } { print }' "$T/c/$1" > "$T/x" && mv "$T/x" "$T/c/$1"
}
# drop FILE KEY: remove the rows starting with KEY.
drop() {
    awk -v key="$2" 'index($0, key ",") != 1' "$T/c/$1" > "$T/x" && mv "$T/x" "$T/c/$1"
}
targets() {
    awk -F, -f "$SRC/targets.awk" "$T"/c/{filters,fpr_bpk,fpr_p,fpr_space,cli,scale}.csv
}
# expect TARGET VERDICT [MEASURED]: the row of TARGET (its first cell, exactly) has the verdict
# (met, missed, not measured) and, if given, MEASURED within its measured cell.
expect() {
    local line
    line=$(targets | awk -F' [|] ' -v t="| $1" '$1 == t')
    local verdict=$2
    [ "$verdict" = "not measured" ] || verdict="**$verdict**"
    if [ -n "$line" ] && [ "$(echo "$line" | awk -F' [|] ' '{ print $4 }')" = "$verdict" ] &&
        { [ $# -lt 3 ] || [[ $line == *"$3"* ]]; }; then
        PASS=$((PASS + 1))
    else
        FAIL=$((FAIL + 1))
        echo "FAIL: '$1' want $2${3:+ ($3)}, got: ${line:-no row}" >&2
    fi
}

K27=u64,134217728,bloomline,blocked
K24=u64,16777216,bloomline,blocked
K16=u64,65536,bloomline,blocked
K20=url,1048576,bloomline,blocked
# Columns of filters.csv: 11 insb, 13 hit1, 15 hitb, 17 miss1, 19 missb, 21 / 23 / 25 the probes
# timed beside hitb / missb / insb.

# 2^27: every kernel's hit ratio just over and just under 1.15 (probe 10 beside it).
fresh
for k in avx512 avx2 scalar; do
    set_col filters.csv $K27,$k 21 10; set_col filters.csv $K27,$k 15 11.6
    set_col filters.csv $K27,$k 23 10; set_col filters.csv $K27,$k 19 10
done
expect "2^27 u64 batched query, hit" missed "1.16x"
set_col filters.csv $K27,avx2 15 11.49
expect "2^27 u64 batched query, hit" met "1.15x (11.49 ns avx2"
# ... and its miss must come from that kernel: avx2 misses at 1.2x, avx512 at 1.0x.
set_col filters.csv $K27,avx2 23 10; set_col filters.csv $K27,avx2 19 12
set_col filters.csv $K27,avx512 23 10; set_col filters.csv $K27,avx512 19 10
set_col filters.csv $K27,scalar 15 11.7
expect "2^27 u64 batched query, hit" missed "avx512"
expect "2^27 u64 batched query, miss" met "avx512"
# insert: <= 1.15 x the RMW probe beside it
fresh
for k in avx512 avx2 scalar; do
    set_col filters.csv $K27,$k 25 10; set_col filters.csv $K27,$k 11 11.51
done
expect "2^27 u64 batched insert" missed
set_col filters.csv $K27,scalar 11 11.5
expect "2^27 u64 batched insert" met "scalar"

# 2^24: one kernel with hit 1.1x / miss 1.3x, another 1.3x / 1.1x: no kernel meets both.
fresh
for k in avx512 avx2 scalar; do
    set_col filters.csv $K24,$k 21 10; set_col filters.csv $K24,$k 23 10
    set_col filters.csv $K24,$k 15 13; set_col filters.csv $K24,$k 19 13
done
set_col filters.csv $K24,avx512 15 11; set_col filters.csv $K24,avx2 19 11
expect "2^24 u64 batched query, hit" missed
expect "2^24 u64 batched query, miss" missed
set_col filters.csv $K24,avx512 19 12.0
expect "2^24 u64 batched query, miss" met "1.20x"
# a "nan" in one kernel neither wins nor hides the others
set_col filters.csv $K24,avx2 15 -nan; set_col filters.csv $K24,avx2 19 nan
expect "2^24 u64 batched query, hit" met "avx512"
# the size not run at all: listed, not left out
drop filters.csv u64,16777216
expect "2^24 targets" "not measured"

# 2^16 batched (1.0 ns) and single (1.8 ns), with the best kernel for hits and misses both
fresh
for k in avx512 avx2 scalar; do
    for c in 15 19; do set_col filters.csv $K16,$k $c 3; done
    for c in 13 17; do set_col filters.csv $K16,$k $c 3; done
done
set_col filters.csv $K16,avx2 15 1.0; set_col filters.csv $K16,avx2 19 1.0
set_col filters.csv $K16,avx2 13 1.8; set_col filters.csv $K16,avx2 17 1.8
expect "2^16 u64 batched query, miss" met "avx2"
expect "2^16 u64 single query, hit" met "avx2"
set_col filters.csv $K16,avx2 19 1.0001; set_col filters.csv $K16,avx2 13 1.8001
expect "2^16 u64 batched query, miss" missed
expect "2^16 u64 single query, hit" missed
# AVX2 at least 1.5x scalar
fresh
set_col filters.csv $K16,scalar 15 3.0; set_col filters.csv $K16,avx2 15 2.0
expect "2^16 AVX2 vs scalar, batched query hit" met "1.50x"
set_col filters.csv $K16,avx2 15 2.001
expect "2^16 AVX2 vs scalar, batched query hit" missed
drop filters.csv $K16,avx2
expect "2^16 AVX2 vs scalar, batched query miss" "not measured"

# URL keys at 2^20: 5.5 ns
fresh
for k in avx512 avx2 scalar; do
    set_col filters.csv $K20,$k 15 9; set_col filters.csv $K20,$k 19 9
done
set_col filters.csv $K20,avx512 15 5.5; set_col filters.csv $K20,avx512 19 5.5
expect "2^20 URL batched query, hit" met
set_col filters.csv $K20,avx512 15 5.5001
expect "2^20 URL batched query, hit" missed

# libbloom: 20x, from the two timed in alternation when they were (columns 27-33 of libbloom's
# row); else hit and miss from one kernel, each side divided by the probe timed beside it
# (columns 21 and 23); the plain ratio only when libbloom's row has neither.
L27=u64,134217728,libbloom,classic
# vs KERNEL LIBBLOOM_NS BLOOMLINE_NS MEDIAN LOWEST: the head-to-head in libbloom's row (columns
# 27-33: kernel, libbloom ns, bloomline ns, the median and lowest ratio); all "" for none.
vs() {
    set_col filters.csv $L27 27 "$1"; set_col filters.csv $L27 28 "$2"
    set_col filters.csv $L27 30 "$3"; set_col filters.csv $L27 32 "$4"
    set_col filters.csv $L27 33 "$5"
}
fresh
vs "" "" "" "" "" # the rows apart first: the base run may have timed a head-to-head
set_col filters.csv $L27 13 100; set_col filters.csv $L27 17 100
set_col filters.csv $L27 21 10; set_col filters.csv $L27 23 10
for k in avx512 avx2 scalar; do
    set_col filters.csv $K27,$k 15 10; set_col filters.csv $K27,$k 19 10
    set_col filters.csv $K27,$k 21 10; set_col filters.csv $K27,$k 23 10
done
expect "2^27 u64 query vs libbloom" missed "10.00x at equal memory speed"
set_col filters.csv $K27,avx2 15 5; set_col filters.csv $K27,avx2 19 5
expect "2^27 u64 query vs libbloom" met "20.00x at equal memory speed"
set_col filters.csv $K27,avx2 19 5.001
expect "2^27 u64 query vs libbloom" missed
# libbloom timed on a busy memory side (its probe 20), bloomline on a quiet one (probes 5):
# 40x plain, 10x at equal speed.
set_col filters.csv $L27 13 200; set_col filters.csv $L27 17 200
set_col filters.csv $L27 21 20; set_col filters.csv $L27 23 20
set_col filters.csv $K27,avx2 19 5
set_col filters.csv $K27,avx2 21 5; set_col filters.csv $K27,avx2 23 5
expect "2^27 u64 query vs libbloom" missed "10.00x at equal memory speed"
expect "2^27 u64 query vs libbloom" missed "plain ratio 40.00x"
# ... and the other way round: 10x plain, 20x at equal speed, from the kernel best per probe
# (avx512: 5 ns beside 10, where avx2 reads 5 beside 5).
set_col filters.csv $L27 13 50; set_col filters.csv $L27 17 50
set_col filters.csv $L27 21 5; set_col filters.csv $L27 23 5
set_col filters.csv $K27,avx512 15 5; set_col filters.csv $K27,avx512 19 5
expect "2^27 u64 query vs libbloom" met "20.00x at equal memory speed"
expect "2^27 u64 query vs libbloom" met "avx512 beside 10.00"
# Timed in alternation: that median is the verdict, both ways of the rows apart (20x here).
vs avx512 100 5.01 19.99 12
expect "2^27 u64 query vs libbloom" missed "19.99x timed in alternation"
expect "2^27 u64 query vs libbloom" missed "lowest 12.00x; the rows apart, at equal memory speed: 20.00x"
set_col filters.csv $L27 13 20; set_col filters.csv $L27 17 20
vs avx2 100 4 25 18
expect "2^27 u64 query vs libbloom" met "25.00x timed in alternation (libbloom 100.0 ns, bloomline 4.00 ns avx2"
expect "2^27 u64 query vs libbloom" met "at equal memory speed: 8.00x"
# no probes beside libbloom: the alternation alone
set_col filters.csv $L27 21 ""; set_col filters.csv $L27 23 ""
expect "2^27 u64 query vs libbloom" met "lowest 18.00x; one run's load)"
set_col filters.csv $L27 21 5; set_col filters.csv $L27 23 5
# a head-to-head that did not run (no kernel) or gave "nan": the rows apart judge
vs "" 100 4 25 18
expect "2^27 u64 query vs libbloom" missed "8.00x at equal memory speed"
vs avx2 100 4 nan 18
expect "2^27 u64 query vs libbloom" missed "8.00x at equal memory speed"
vs "" "" "" "" ""
set_col filters.csv $L27 13 50; set_col filters.csv $L27 17 50
# no probe beside libbloom: the plain ratio, said so
set_col filters.csv $L27 21 ""; set_col filters.csv $L27 23 ""
expect "2^27 u64 query vs libbloom" missed "10.00x (libbloom 50.0 ns vs 5.00 ns"
expect "2^27 u64 query vs libbloom" missed "no paired probes"
drop filters.csv u64,134217728,libbloom
expect "2^27 u64 query vs libbloom" "not measured"

# Rows of two runs in one file: the file's targets are void and the mix is a miss.
fresh
grep "^$K27,avx512," "$T/c/filters.csv" > "$T/x" && cat "$T/x" >> "$T/c/filters.csv"
expect "filters.csv holds one run" missed
expect "2^27 targets" "not measured"
expect "2^16 u64 batched query, hit" "not measured"

# False-positive rate at 10 bits/key: 1.0%
fresh
set_col fpr_bpk.csv blocked,10 7 1.000000e-02
expect "blocked FPR at 10 bits/key" met
set_col fpr_bpk.csv blocked,10 7 1.000001e-02
expect "blocked FPR at 10 bits/key" missed
drop fpr_bpk.csv blocked,10
expect "blocked FPR at 10 bits/key" "not measured"

# Honest sizing: every layout at every p, the verdict from the counts
fresh
for l in blocked sbbf classic counting scalable; do set_col fpr_p.csv $l 6 0; done
expect "honest sizing, p = 1e-1..1e-6, every layout" met "30/30"
drop fpr_p.csv scalable
expect "honest sizing, p = 1e-1..1e-6, every layout" missed "missing: scalable@0.1"
fresh
for l in blocked sbbf classic counting scalable; do set_col fpr_p.csv $l 6 0; done
set_col fpr_p.csv blocked,0.01 6 21000 # 1.034e-2 > 1e-2 + 3 SE, with pass still 1
expect "honest sizing, p = 1e-1..1e-6, every layout" missed "fail: blocked@0.01"

# Space: blocked vs classic bits, 1.15x at 1% and 1.25x at 0.01%
fresh
set_col fpr_space.csv 0.01 6 1.15
set_col fpr_space.csv 0.0001 6 1.2501
expect "blocked vs classic bits at p = 1%" met
expect "blocked vs classic bits at p = 0.01%" missed

# CLI and billion-URL runs at other sizes are shown, not counted
fresh
set_col cli.csv bloomline,build 5 15000000
expect "CLI build, 10^7 URL lines, -t 2" met
sed -i 's/,10000000,/,1000000,/' "$T/c/cli.csv"
expect "CLI build, 1000000 URL lines, -t 2" "not measured"
fresh
set_col scale.csv 1000000000 7 60
expect "scale build (1e+09 keys)" met
set_col scale.csv 1000000000 1 10000000
expect "scale build (1e+07 keys)" "not measured"
fresh
set_col scale.csv 1000000000 3 0.01
expect "scale measured rate (1e+09 keys)" "not measured"

echo "targets: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
