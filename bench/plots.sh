#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Draw the benchmark plots (gnuplot, PNG) from the CSVs of one bench/run.
# usage: bench/plots.sh RESULTS_DIR IMG_DIR
set -euo pipefail
res=$1
img=$2
command -v gnuplot >/dev/null || { echo "plots.sh: gnuplot not installed: no plots" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$img"

# Series for the speed plots: "label|impl|layout|kernel|column". kernel "*" = the first kernel
# listed for that layout (the best the CPU runs: rows come best first).
series() {
    local kind=$1 col_b=$2 col_1=$3
    local kernels
    kernels=$(awk -F, -v k="$kind" '$1 == k && $3 == "bloomline" && $4 == "blocked" { print $5 }' "$res/filters.csv" | awk '!s[$0]++')
    local first
    first=$(echo "$kernels" | head -1)
    for kn in $kernels; do echo "bloomline blocked $kn, batched|bloomline|blocked|$kn|$col_b"; done
    echo "bloomline blocked $first, single|bloomline|blocked|$first|$col_1"
    for lay in sbbf counting scalable; do
        kn=$(awk -F, -v k="$kind" -v l="$lay" '$1 == k && $3 == "bloomline" && $4 == l { print $5; exit }' "$res/filters.csv")
        [ -n "$kn" ] && echo "bloomline $lay $kn, batched|bloomline|$lay|$kn|$col_b"
    done
    echo "bloomline classic, batched|bloomline|classic|any|$col_b"
    echo "libbloom (single)|libbloom|classic|-|$col_1"
    echo "exact hash set (single)|hash set|exact|-|$col_1"
    [ "$kind" = url ] && [ "$col_1" = 13 ] && echo "XXH3 of the key alone|XXH3 alone|-|-|13"
    echo "probe: rolling prefetch|probe|rolling|-|$col_b"
    echo "probe: batch prefetch|probe|batch|-|$col_b"
    echo "probe: no prefetch|probe|plain|-|$col_b"
}

# Distinct colours, one per series (gnuplot's default cycle repeats after eight).
colors=('#1f77b4' '#ff7f0e' '#2ca02c' '#d62728' '#9467bd' '#8c564b' '#e377c2' '#17becf'
    '#bcbd22' '#7f7f7f' '#000000' '#aa0000' '#0000aa' '#00aa00')

speed_plot() { # kind what col_batch col_single title
    local kind=$1 what=$2 cb=$3 c1=$4 title=$5
    local plot="" i=0
    while IFS='|' read -r label impl lay kn col; do
        i=$((i + 1))
        awk -F, -v k="$kind" -v im="$impl" -v l="$lay" -v kn="$kn" -v c="$col" \
            '$1 == k && $3 == im && $4 == l && $5 == kn && $c != "" { print $2, $c }' \
            "$res/filters.csv" > "$tmp/$kind-$what-$i.dat"
        [ -s "$tmp/$kind-$what-$i.dat" ] || continue
        local color=${colors[$(( (i - 1) % ${#colors[@]} ))]}
        local style="linespoints lw 1.5 pt $(( (i - 1) % 13 + 1 ))"
        case "$impl" in probe) style="lines dashtype $(( i % 3 + 2 )) lw 2.5" ;; esac
        plot+="${plot:+, }'$tmp/$kind-$what-$i.dat' using 1:2 with $style lc rgb '$color' title '$label'"
    done < <(series "$kind" "$cb" "$c1")
    [ -n "$plot" ] || return 0
    gnuplot <<GP
set terminal pngcairo size 1100,700 font ",10"
set output '$img/${what}_$kind.png'
set title '$title'
set logscale xy 2
set format x "2^{%L}"
set xlabel 'keys in the filter (10 bits/key)'
set ylabel 'ns per key (median)'
set key outside right top
set grid
plot $plot
GP
}

if [ -s "$res/filters.csv" ]; then
    speed_plot u64 query 15 13 "Query (present keys), uint64 keys: ns/key vs filter size"
    speed_plot url query 15 13 "Query (present keys), 50-byte URL keys: ns/key vs filter size"
    speed_plot u64 insert 11 9 "Insert, uint64 keys: ns/key vs filter size (probe: read-modify-write)"
    speed_plot url insert 11 9 "Insert, 50-byte URL keys: ns/key vs filter size (probe: read-modify-write)"
fi

if [ -s "$res/fpr_bpk.csv" ]; then
    plot=""
    for lay in $(awk -F, 'NR > 1 { print $1 }' "$res/fpr_bpk.csv" | awk '!s[$0]++'); do
        awk -F, -v l="$lay" '$1 == l && $7 > 0 { print $3, $7, $8 }' "$res/fpr_bpk.csv" > "$tmp/m-$lay.dat"
        awk -F, -v l="$lay" '$1 == l { print $3, $9 }' "$res/fpr_bpk.csv" > "$tmp/mod-$lay.dat"
        plot+="${plot:+, }'$tmp/m-$lay.dat' using 1:2:3 with yerrorbars title '$lay measured'"
        plot+=", '$tmp/mod-$lay.dat' using 1:2 with lines title '$lay model'"
    done
    awk -F, 'NR > 1 && $1 == "classic" { print $3, $11 }' "$res/fpr_bpk.csv" > "$tmp/classic-best.dat"
    plot+=", '$tmp/classic-best.dat' using 1:2 with lines dashtype 2 lw 2 title 'classic formula, best k'"
    gnuplot <<GP
set terminal pngcairo size 1100,700 font ",10"
set output '$img/fpr_bpk.png'
set title 'False-positive rate vs bits per key (measured +-1 SE, and each layout model)'
set logscale y
set format y "10^{%L}"
set xlabel 'bits per key (memory)'
set ylabel 'false-positive rate'
set xrange [3:25]
set key outside right top
set grid
plot $plot
GP
fi

if [ -s "$res/fpr_p.csv" ]; then
    plot=""
    i=0
    for lay in $(awk -F, 'NR > 1 { print $1 }' "$res/fpr_p.csv" | awk '!s[$0]++'); do
        # layouts side by side around each p (x scaled by 1.12^(i-2)) so the error bars stay apart
        awk -F, -v l="$lay" -v i="$i" '$1 == l && $7 > 0 { print $2 * 1.12 ^ (i - 2), $7, 3 * $8 }' \
            "$res/fpr_p.csv" > "$tmp/p-$lay.dat"
        i=$((i + 1))
        [ -s "$tmp/p-$lay.dat" ] || continue
        plot+="${plot:+, }'$tmp/p-$lay.dat' using 1:2:3 with yerrorbars title '$lay (+-3 SE)'"
    done
    gnuplot <<GP
set terminal pngcairo size 900,700 font ",10"
set output '$img/fpr_p.png'
set title 'Measured false-positive rate vs requested p (on or under the diagonal = honest)'
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel 'requested p'
set ylabel 'measured rate'
set xrange [5e-7:0.2]
set key left top
set grid
plot x with lines dashtype 2 lw 2 title 'measured = p', $plot
GP
fi
