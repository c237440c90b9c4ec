#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI comparison: `bloomline build` / `bloomline query` on 10^7 URL lines vs awk and grep -F.
# Time and peak memory through /usr/bin/time -v, inputs read from a warm page cache; bloomline's
# rows are the median of --reps runs (the peers take a minute each and run once).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build="$root/build-bench"
lines=10000000
threads=2
out="$here/results"
work="${TMPDIR:-/tmp}/bloomline-cli-bench"
grep_timeout=300
grep_mem_gib=8
reps=5

usage() {
    cat <<EOF
usage: bench/cli.sh [--build-dir DIR] [--lines N] [--threads T] [--out DIR] [--work DIR]
                    [--grep-timeout S] [--grep-mem-gib G] [--reps R]
Writes cli.csv and cli.md into the output directory (default bench/results).
EOF
}

# need OPTION ARGS...: the option has a value (a missing one was "$2: unbound variable").
need() {
    [ $# -ge 2 ] || { echo "bench/cli.sh: $1 needs a value (bench/cli.sh --help)" >&2; exit 2; }
}
# count OPTION VALUE: a whole number from 1. "1e3" passed bench_urls but not the shell's
# arithmetic, which then left the expected count empty and cli.md unwritten; "abc" and "0" left
# an empty keys file behind.
count() {
    [[ $2 =~ ^[1-9][0-9]*$ ]] ||
        { echo "bench/cli.sh: $1: expected a whole number from 1, got '$2'" >&2; exit 2; }
}
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) need "$@"; build=$2; shift 2 ;;
    --lines) need "$@"; count "$@"; lines=$2; shift 2 ;;
    --threads) need "$@"; count "$@"; threads=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --work) need "$@"; work=$2; shift 2 ;;
    --grep-timeout) need "$@"; count "$@"; grep_timeout=$2; shift 2 ;;
    --grep-mem-gib) need "$@"; count "$@"; grep_mem_gib=$2; shift 2 ;;
    --reps) need "$@"; count "$@"; reps=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done

bl="$build/bloomline"
[ -x "$bl" ] || bl="$build/src/cli/bloomline"
urls="$build/bench/bench_urls"
mkdir -p "$out" "$work"
md="$out/cli.md"
csv="$out/cli.csv"

if [ ! -x "$bl" ]; then
    echo "bench/cli.sh: $bl does not exist yet (the CLI is not built): CLI comparison skipped" >&2
    printf '_CLI comparison skipped: %s was not built._\n' "$bl" > "$md"
    : > "$csv"
    exit 0
fi
if [ ! -x "$urls" ]; then
    echo "bench/cli.sh: $urls missing: build the bench targets first" >&2
    exit 1
fi

keys="$work/keys-$lines.txt"
queries="$work/queries-$lines.txt"
# Inputs are kept between runs; written under another name first, so that a run stopped while
# writing one cannot leave a short file that later runs would take for the whole input.
for kind in keys queries; do
    f="$work/$kind-$lines.txt"
    [ -s "$f" ] || { "$urls" "$kind" "$lines" > "$f.part" && mv "$f.part" "$f"; }
done
cat "$keys" "$queries" > /dev/null # warm page cache
key_mb=$(( $(stat -c %s "$keys") / 1000000 ))
expect=$(( (lines + 1) / 2 )) # the even query lines are present keys

echo "tool,phase,lines,seconds,lines_per_s,max_rss_kb,exit,selected" > "$csv"

# run REPS NAME PHASE OUTFILE CMD...: run CMD REPS times under /usr/bin/time -v (for the peak
# RSS), timed in nanoseconds around it (time -v's clock counts hundredths); record the median
# run's seconds and exit status and the largest RSS. The host is shared: a single timed run of
# the 10^7-line query read 0.70 s (14.3 M lines/s, under the 15 M target), the median of five
# in the next run 0.44 s.
run() {
    local reps=$1 name=$2 phase=$3 res=$4
    shift 4
    local tv="$work/time.txt" runs="$work/runs.txt" rc start end
    : > "$runs"
    for _ in $(seq "$reps"); do
        rc=0
        start=$(date +%s%N)
        /usr/bin/time -v "$@" > "$res" 2> "$tv" || rc=$?
        end=$(date +%s%N)
        echo "$((end - start)) $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv") $rc" \
            >> "$runs"
    done
    local secs rss
    read -r secs _ rc < <(sort -n "$runs" | sed -n "$(((reps + 1) / 2))p")
    secs=$(awk -v ns="$secs" 'BEGIN { printf "%.3f", ns / 1e9 }')
    rss=$(sort -n -k2,2 "$runs" | tail -n 1 | cut -d' ' -f2)
    local sel="-"
    [ "$phase" = build ] || sel=$(wc -l < "$res")
    local rate
    rate=$(awk -v n="$lines" -v s="$secs" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print 0 }')
    echo "$name,$phase,$lines,$secs,$rate,$rss,$rc,$sel" >> "$csv"
    echo "  $name $phase: ${secs}s, $rate lines/s, max RSS ${rss} kB, exit $rc, selected $sel" >&2
}

echo "bench/cli.sh: $lines keys (${key_mb} MB) and $lines query lines (half present) in $work" >&2
filter="$work/urls.bl"
run "$reps" bloomline build /dev/null "$bl" build -q -o "$filter" -p 0.01 -t "$threads" "$keys"
run "$reps" bloomline query "$work/bl.out" "$bl" query -q -t "$threads" "$filter" "$queries"
awk_prog='NR==FNR{a[$0];next} $0 in a'
# Debian's default awk is mawk; gawk (package gawk) is the other common one, so it runs too.
# Installing gawk makes it /usr/bin/awk through the alternatives, so the "awk" row names mawk
# itself when it is there (on one machine it had compared gawk alone, and twice).
awk_bin=$(command -v mawk || command -v awk)
run 1 awk build+query "$work/awk.out" "$awk_bin" "$awk_prog" "$keys" "$queries"
if command -v gawk >/dev/null && [ "$(readlink -f "$awk_bin")" != "$(readlink -f "$(command -v gawk)")" ]; then
    run 1 gawk build+query "$work/gawk.out" gawk "$awk_prog" "$keys" "$queries"
fi
# grep -F with 10^7 patterns can need many GB: bounded in memory and time so it cannot take
# the machine down; a bound hit is reported as such.
run 1 "grep -F -x -f" build+query "$work/grep.out" \
    bash -c "ulimit -v $((grep_mem_gib * 1024 * 1024)); exec timeout $grep_timeout grep -F -x -f '$keys' '$queries'"

awk -F, -v lines="$lines" -v threads="$threads" -v reps="$reps" -v when="$(date -u '+%Y-%m-%d %H:%M UTC')" -v expect="$expect" -v gto="$grep_timeout" -v gmem="$grep_mem_gib" \
    -v awkbin="$(readlink -f "$awk_bin")" '
NR == 1 { next }
{ tool[NR] = $1; phase[NR] = $2; sec[NR] = $4; rate[NR] = $5; rss[NR] = $6; rc[NR] = $7; sel[NR] = $8; n = NR
  if ($1 == "bloomline") { blsec += $4; if ($6 > blrss) blrss = $6 }
  if ($1 == "awk") { awksec = $4; awkrss = $6 }
  if ($1 == "gawk") { gawksec = $4; gawkrss = $6 } }
END {
  printf "Run %s by `bench/cli.sh --lines %d`. ", when, lines
  printf "%d keys and %d query lines (~50-byte URLs, half of the queries present; %d expected matches), warm page cache, `bloomline` with -t %s, its rows the median of %d runs (the others: one).\n\n", lines, lines, expect, threads, reps
  print "| tool | phase | seconds | lines/s | peak RSS MiB | exit | lines selected | note |"
  print "|---|---|---:|---:|---:|---:|---:|---|"
  for (i = 2; i <= n; i++) {
    note = ""
    if (tool[i] ~ /^grep/ && rc[i] == 124) note = "killed at the " gto " s bound (RSS then)"
    else if (tool[i] ~ /^grep/ && rc[i] != 0 && rc[i] != 1) note = "failed (memory bound " gmem " GiB?)"
    if (tool[i] == "awk") note = awkbin
    printf "| %s | %s | %.2f | %.2fM | %.0f | %s | %s | %s |\n", tool[i], phase[i], sec[i], rate[i] / 1e6, rss[i] / 1024, rc[i], sel[i], note
  }
  if (blsec > 0 && blrss > 0 && awksec > 0)
    printf "\nbloomline build + query: %.2f s, peak %.0f MiB; awk (%s): %.2f s, peak %.0f MiB: **%.1fx faster, %.1fx less memory**.\n", blsec, blrss / 1024, awkbin, awksec, awkrss / 1024, awksec / blsec, awkrss / blrss
  if (blsec > 0 && blrss > 0 && gawksec > 0)
    printf "Against gawk: %.2f s, peak %.0f MiB: **%.1fx faster, %.1fx less memory**.\n", gawksec, gawkrss / 1024, gawksec / blsec, gawkrss / blrss
}' "$csv" > "$md"

# Start-up: what one small run costs, paid by every call of a script that runs bloomline per
# file. 1000 keys, 1000 query lines (half present); ms per run, median of 5 batches of 100 runs.
small_keys="$work/small-keys.txt"
small_queries="$work/small-queries.txt"
small_filter="$work/small.bl"
head -n 1000 "$keys" > "$small_keys"
head -n 1000 "$queries" > "$small_queries"
"$bl" build -q -o "$small_filter" "$small_keys"
per_run_ms() { # per_run_ms CMD...
    local start end
    for _ in 1 2 3 4 5; do
        start=$(date +%s%N)
        for _ in $(seq 100); do "$@" > /dev/null || true; done
        end=$(date +%s%N)
        awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 100 / 1e6 }'
    done | sort -n | sed -n 3p
}
{
    printf '\nStart-up: one run on 1000 query lines, ms per process (median of 5 batches of'
    printf ' 100).\n\n'
    echo "| command | ms per run |"
    echo "|---|---:|"
    printf '| bloomline query (default -t: one worker for inputs of 2 MiB or less) | %s |\n' \
        "$(per_run_ms "$bl" query -q "$small_filter" "$small_queries")"
    printf '| bloomline query -t %s (a worker per core: hwloc finds the cores) | %s |\n' \
        "$threads" "$(per_run_ms "$bl" query -q -t "$threads" "$small_filter" "$small_queries")"
    printf '| grep -F -x -f (1000 patterns) | %s |\n' \
        "$(per_run_ms grep -F -x -f "$small_keys" "$small_queries")"
    printf '| /bin/true (starting a process) | %s |\n' "$(per_run_ms /bin/true)"
} >> "$md"
cat "$md"
