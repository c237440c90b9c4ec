#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection through the whole bloomline process: run_cli_fault_tests.sh BINARY SHIM
# Each command below runs twice without a fault (under the shim, fault_shim.c, which counts its
# calls of each class and traces which object made each: both runs must make the same calls),
# then once per call of a class with that call failing. Every run must end by itself (no signal,
# no hang) with the fault-free status, the same standard output and the same files, or with
# status 2 and a message naming the failure; either way the directory must hold the files it
# held before, unchanged, but for the command's output, which only a run with the fault-free
# status may replace (by the fault-free bytes): no damaged or partial file, no temporary left
# beside it. A failed fsync or rename has nothing to stand in for it: a run that still ends
# with the fault-free status must have warned of it.
# Calls made by the bloomline program itself are all failed in turn; those of other libraries
# are sampled: FOREIGN_SAMPLES of each class per command, evenly spread, first and last included;
# but not their allocations, which hwloc does not check (2.9 dereferences a failed malloc in
# hwloc_topology_load: SIGSEGV). With one worker (-t 1, as here) no command loads hwloc, whose
# topology discovery made hundreds of sysfs reads and allocations per run; the sampling is for
# what a future command might load. BLOOMLINE_FAULT_EXHAUSTIVE=1 fails every call. The C
# library's own calls count for the object whose call came last before them (the stdio buffer
# printf allocates is bloomline's; the allocations of opendir inside hwloc are hwloc's).
# The commands marked "-t 2" run two workers over inputs of two chunks (fixtures of their own):
# their calls come in an order that varies from run to run, so they fail the program's own calls
# only (BL_FAULT_ONLY: hwloc, loaded to pin the workers, would crash on a failed allocation), by
# number, whichever call that is in the run: every outcome must still be one of the two above.
# Two of them also fail hwloc's opens and reads, sampled as above.
# BLOOMLINE_FAULT_JOBS cases run at once (default 2). About 550 cases (360 with one worker), 10 to
# 60 s on two cores, as fast as the disk syncs.
set -u

USAGE="usage: run_cli_fault_tests.sh path/to/bloomline path/to/fault_shim.so"
B=${1:?$USAGE}
SHIM=${2:?$USAGE}
B=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")
SHIM=$(cd "$(dirname "$SHIM")" && pwd)/$(basename "$SHIM")
PROGRAM=$(basename "$B")
FOREIGN_SAMPLES=8
JOBS=${BLOOMLINE_FAULT_JOBS:-2}
# A run takes milliseconds; a hang is what this limit is for, not a slow machine.
CASE_TIMEOUT=60

T=$(mktemp -d "${TMPDIR:-/tmp}/bloomline-faults.XXXXXX")
trap 'rm -rf "$T"' EXIT

# ---- Fixtures: the files every run starts from ------------------------------------------------
FIX=$T/fixtures
mkdir "$FIX"
(
    set -e
    cd "$FIX"
    awk 'BEGIN { for (i = 0; i < 400; i++) printf "https://h%d.example/page/%d\n", i % 37, i }' \
        > keys.txt
    awk 'BEGIN { for (i = 0; i < 200; i++) printf "https://o%d.example/item/%d\n", i % 11, i }' \
        > more.txt
    head -n 100 keys.txt > gone.txt
    # half present, half absent, interleaved: query prints some lines and not others
    paste -d '\n' <(head -n 150 keys.txt) <(head -n 150 more.txt) > probe.txt
    "$B" build -q -t 1 -n 1000 -o base.blf keys.txt
    "$B" build -q -t 1 -n 1000 -o other.blf more.txt
    "$B" build -q -t 1 -n 300 -l sbbf -o target.blf more.txt # the build's output, replaced
    "$B" build -q -t 1 -n 1000 -l counting -o counting.blf keys.txt
    "$B" build -q -t 1 -n 100 -l scalable -o chain.blf keys.txt # several stages
    "$B" build -q -t 1 -l sbbf --bits 16384 -o sbbf.blf keys.txt
    "$B" build -q -t 1 -l classic -o classic.blf keys.txt
    "$B" export sbbf.blf --format parquet -o in.parquet
    "$B" export classic.blf --format guava -o in.guava
) || { echo "cli_faults: cannot make the fixtures"; exit 1; }
# For two workers: inputs of two 2 MiB chunks (3 MB each), so that both have work.
BIG=$T/fixtures-big
mkdir "$BIG"
(
    set -e
    cd "$BIG"
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "https://h%d.example/page/%d\n", i % 37, i }' \
        > keys.txt
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "https://o%d.example/item/%d\n", i % 11, i }' \
        > more.txt
    "$B" build -q -t 1 -n 250000 -o base.blf keys.txt
    "$B" build -q -t 1 -n 100000 -l counting -o counting.blf keys.txt
) || { echo "cli_faults: cannot make the fixtures"; exit 1; }

# NAME|STDIN|OUTPUT|ARGUMENTS: OUTPUT is the file the command writes ('-': standard output
# only), which may be one of the fixtures (replaced in place). Arguments have no spaces. One
# worker thread (-t 1): the calls then come in the same order in every run.
COMMANDS=(
    "build|/dev/null|target.blf|build -q -t 1 -o target.blf keys.txt"
    "build-scalable-stdin|keys.txt|grown.blf|build -q -t 1 -l scalable -o grown.blf -"
    "build-stdout|/dev/null|-|build -q -t 1 -l sbbf --bits 16384 -o - keys.txt"
    "add|/dev/null|base.blf|add -q -t 1 base.blf more.txt"
    "remove|/dev/null|counting.blf|remove -q -t 1 counting.blf gone.txt"
    "query|/dev/null|-|query -t 1 base.blf probe.txt"
    "info|/dev/null|-|info base.blf"
    "info-json-scalable|/dev/null|-|info --json chain.blf"
    "merge-in-place|/dev/null|base.blf|merge -o base.blf base.blf other.blf"
    "intersect|/dev/null|both.blf|intersect -o both.blf base.blf other.blf"
    "export-parquet|/dev/null|out.parquet|export sbbf.blf --format parquet -o out.parquet"
    "export-guava|/dev/null|out.guava|export classic.blf --format guava -o out.guava"
    "export-stdout|/dev/null|-|export sbbf.blf --format parquet-raw -o -"
    "import-parquet|/dev/null|imported.blf|import --format parquet in.parquet -o imported.blf"
    "import-guava-stdin|in.guava|imported.blf|import --format guava - -o imported.blf"
    "build-t2|/dev/null|built.blf|build -q -t 2 -n 250000 -o built.blf keys.txt"
    "add-t2|/dev/null|base.blf|add -q -t 2 base.blf more.txt"
    "remove-t2|/dev/null|counting.blf|remove -q -t 2 counting.blf keys.txt"
    "query-t2|/dev/null|-|query -t 2 base.blf more.txt keys.txt"
)

# Whether command INDEX runs two workers (its fixtures are BIG's; it fails the program's calls).
multi() { [[ ${COMMANDS[$1]} == *"-t 2"* ]]; }

# CLASS:ERRNO variants; each fails every selected call of its class. short-write is no error:
# the call writes half the bytes, and the command must write the rest.
VARIANTS="open:EACCES open:EMFILE read:EIO write:ENOSPC short-write:- fsync:EIO rename:EIO
rename:EXDEV truncate:ENOSPC mmap:ENOMEM malloc:ENOMEM"

# What a message about the failure says: the errno's text (strerror), or the library's words.
error_text() {
    case $1 in
    EACCES) echo "Permission denied" ;;
    EMFILE) echo "Too many open files" ;;
    EIO) echo "Input/output error" ;;
    ENOSPC) echo "No space left on device" ;;
    EXDEV) echo "Invalid cross-device link" ;;
    ENOMEM) echo "Cannot allocate memory|out of memory" ;;
    *) echo "" ;;
    esac
}

# run_command WORKDIR INDEX OUT ERR REPORT [VAR=VALUE...]: command INDEX in a fresh copy of the
# fixtures, under the shim with the given fault settings; sets STATUS (-1: no copy made).
run_command() {
    local work=$1 index=$2 out=$3 err=$4 report=$5
    shift 5
    local name stdin output args
    IFS='|' read -r name stdin output args <<< "${COMMANDS[$index]}"
    STATUS=-1
    local fixtures=$FIX only=
    multi "$index" && fixtures=$BIG only=$PROGRAM
    rm -rf "$work" "$report" && cp -R "$fixtures" "$work" || return
    # shellcheck disable=SC2086 # the arguments are words without spaces
    (cd "$work" && exec timeout -k 5 "$CASE_TIMEOUT" env LD_PRELOAD="$SHIM" \
        BL_FAULT_REPORT="$report" ${only:+BL_FAULT_ONLY="$only"} "$@" "$B" $args \
        < "$stdin" > "$out" 2> "$err")
    STATUS=$?
}

# The checksums of standard output, then of every file of the work directory: one process.
state_of() { # state_of WORKDIR OUT
    (cd "$1" && shopt -s dotglob nullglob && cksum "$2" ./*)
}

# ---- Fault-free runs: the expected results and the calls to fail ------------------------------
REF=$T/ref
mkdir "$REF"
PASS=0
FAIL=0
FIX_STATE=$(state_of "$FIX" /dev/null)
FIX_STATE=${FIX_STATE#*$'\n'}
BIG_STATE=$(state_of "$BIG" /dev/null)
BIG_STATE=${BIG_STATE#*$'\n'}
declare -a REF_STATUS REF_STDOUT REF_DIR REF_OK
for i in "${!COMMANDS[@]}"; do
    IFS='|' read -r name stdin output args <<< "${COMMANDS[$i]}"
    for run in 1 2; do
        run_command "$REF/work" "$i" "$REF/$i.out" "$REF/$i.err" "$REF/$i.report$run" \
            BL_FAULT_TRACE="$REF/$i.trace$run"
        state=$(state_of "$REF/work" "$REF/$i.out")
    done
    REF_STATUS[i]=$STATUS
    REF_STDOUT[i]=${state%%$'\n'*}
    REF_DIR[i]=${state#*$'\n'}
    # Fault-free, the command succeeds (query: selects lines), silently but for its output.
    if [ "$STATUS" -ne 0 ] || [ -s "$REF/$i.err" ]; then
        echo "FAIL: $name: fault-free run: status $STATUS, $(head -c 300 "$REF/$i.err")"
        FAIL=$((FAIL + 1))
        continue
    fi
    # The N-th call must be the same call in every run, or a case fails some other call.
    if ! multi "$i" && ! cmp -s "$REF/$i.trace1" "$REF/$i.trace2"; then
        echo "FAIL: $name: two fault-free runs made different calls (the cases would not repeat)"
        FAIL=$((FAIL + 1))
        continue
    fi
    # A shim that missed the calls (the C library routing them to names it does not wrap)
    # would fail nothing and pass every case.
    for need in open malloc $([ "$output" != - ] && echo rename fsync write); do
        if ! grep -q "^calls $need [1-9]" "$REF/$i.report1"; then
            echo "FAIL: $name: the shim saw no $need call"
            FAIL=$((FAIL + 1))
        fi
    done
    echo "# cli_faults: $name calls: $(sed -n 's/^calls //p' "$REF/$i.report1" | paste -sd ' ')"
    REF_OK[i]=1
done

# The shim's trace also tells who made each call. With -t left to its default, inputs of one
# chunk (2 MiB) or less get one worker and no core count: hwloc's load took ~2 of a small
# query's 3.6 ms. With -t 2 the workers are pinned, so hwloc's calls must show up (or the check
# could not tell).
for threads in default 2; do
    thread_args=()
    [ "$threads" = default ] || thread_args=(-t "$threads")
    (cd "$FIX" && env LD_PRELOAD="$SHIM" BL_FAULT_TRACE="$REF/startup.$threads" "$B" query \
        "${thread_args[@]}" base.blf probe.txt > /dev/null)
done
if grep -q ' libhwloc' "$REF/startup.default"; then
    echo "FAIL: query of a small file with the default -t loaded hwloc (one worker needs no cores)"
    FAIL=$((FAIL + 1))
elif ! grep -q ' libhwloc' "$REF/startup.2"; then
    echo "FAIL: query -t 2 made no hwloc call: the start-up check cannot see hwloc's"
    FAIL=$((FAIL + 1))
else
    PASS=$((PASS + 1))
fi

# awk: the k-th (from 0) of min(samples, n) positions in 1..n, evenly spread, first and last
# included (all of them when samples >= n).
SPREAD_AWK='function spread(k, n, samples) {
    return samples >= n ? k + 1 : 1 + int(k * (n - 1) / (samples - 1) + 0.5)
}'

# The calls of each class to fail, from the trace: "CLASS N" lines.
select_calls() { # select_calls TRACE
    awk -v prog="$PROGRAM" -v samples="$FOREIGN_SAMPLES" \
        -v all="${BLOOMLINE_FAULT_EXHAUSTIVE:-0}" "$SPREAD_AWK"'
        BEGIN { last = "self" }
        {
            owner = $4 == "libc.so.6" ? last : $4 == prog ? "self" : "foreign"
            last = owner
        }
        owner == "self" || all == 1 { print $1, $2; next }
        $1 != "malloc" { foreign[$1, ++nforeign[$1]] = $2 }
        END {
            for (c in nforeign) {
                n = nforeign[c]
                for (k = 0; k < samples && k < n; k++) {
                    j = spread(k, n, samples)
                    if (!((c, j) in done)) print c, foreign[c, j]
                    done[c, j] = 1
                }
            }
        }' "$1" | sort -k1,1 -k2,2n
}

# With two workers, every number up to the most calls of a class the fault-free runs made, for
# the classes matching KEEP; of those matching SAMPLED, SAMPLES numbers evenly spread, first and
# last included. "CLASS N" lines.
count_calls() { # count_calls KEEP SAMPLED SAMPLES REPORT...
    local keep=$1 sampled=$2 samples=$3
    shift 3
    awk -v keep="$keep" -v sampled="$sampled" -v samples="$samples" "$SPREAD_AWK"'
        $1 == "calls" && $2 ~ keep && $3 > n[$2] { n[$2] = $3 }
        END {
            for (c in n) {
                m = c ~ sampled ? samples : n[c]
                for (k = 0; k < m && k < n[c]; k++) print c, spread(k, n[c], m)
            }
        }' "$@" | sort -k1,1 -k2,2n -u
}

# hwloc with two workers, whose calls the other cases no longer make (one worker loads no
# topology): its failed opens and reads (a container's /sys) must leave the run as it was.
HWLOC_OBJECT=$(awk '$4 ~ /^libhwloc/ { print $4; exit }' "$REF/startup.2")
HWLOC_COMMANDS=" build-t2 query-t2 "

CASES=$T/cases
: > "$CASES"
for i in "${!COMMANDS[@]}"; do
    [ -n "${REF_OK[i]:-}" ] || continue
    # the allocations (about 60 a run, most of them the same few per chunk, each failed in turn
    # by the one-worker cases) sampled
    if multi "$i"; then
        calls=$(count_calls . '^malloc$' $((FOREIGN_SAMPLES * 2)) "$REF/$i.report"[12])
    else
        calls=$(select_calls "$REF/$i.trace1")
    fi
    name=${COMMANDS[$i]%%|*}
    hwloc_calls=
    if [ -n "$HWLOC_OBJECT" ] && [[ $HWLOC_COMMANDS == *" $name "* ]]; then
        run_command "$REF/work" "$i" "$REF/$i.out" "$REF/$i.err" "$REF/$i.hwloc" \
            BL_FAULT_ONLY="$HWLOC_OBJECT"
        hwloc_calls=$(count_calls '^(open|read)$' . "$FOREIGN_SAMPLES" "$REF/$i.hwloc")
    fi
    for variant in $VARIANTS; do
        class=${variant%%:*}
        errno=${variant#*:}
        traced=$class
        [ "$class" = short-write ] && traced="write"
        while read -r c n; do
            [ "$c" = "$traced" ] && echo "$i $class $errno $n -"
        done <<< "$calls" >> "$CASES"
    done
    for variant in $VARIANTS; do
        class=${variant%%:*}
        while read -r c n; do
            [ "$c" = "$class" ] && echo "$i $class ${variant#*:} $n $HWLOC_OBJECT"
        done <<< "$hwloc_calls" >> "$CASES"
    done
done

# ---- The cases ------------------------------------------------------------------------------

# Which files differ between two states, for a failure's line.
explain() { # explain GOT WANT
    local got=$1 want=$2 line name
    local -A have
    while read -r line; do
        [ -n "$line" ] && have[${line##* }]=$line
    done <<< "$got"
    while read -r line; do
        [ -n "$line" ] || continue
        name=${line##* }
        if [ -z "${have[$name]:-}" ]; then
            printf '%s removed; ' "${name#./}"
        elif [ "${have[$name]}" != "$line" ]; then
            printf '%s changed; ' "${name#./}"
        fi
        unset "have[$name]"
    done <<< "$want"
    for name in "${!have[@]}"; do
        printf '%s left behind; ' "${name#./}"
    done
}

# run_case SHARD I CLASS ERRNO N OBJECT: one line "FAIL: ..." on stdout if it went wrong. OBJECT:
# the one whose calls are counted ('-': the command's own choice).
run_case() {
    local shard=$1 i=$2 class=$3 errno=$4 n=$5 object=$6
    local name stdin output args
    IFS='|' read -r name stdin output args <<< "${COMMANDS[$i]}"
    local dir=$T/shard$shard
    [ "$errno" = - ] && errno=
    [ "$object" = - ] && object=
    local what="$name: ${object:+$object }$class${errno:+:$errno} #$n"
    run_command "$dir/work" "$i" "$dir/out" "$dir/err" "$dir/report" \
        BL_FAULT_CLASS="$class" BL_FAULT_AT="$n" ${errno:+BL_FAULT_ERRNO="$errno"} \
        ${object:+BL_FAULT_ONLY="$object"}
    local status=$STATUS report failed_fn=
    report=$(cat "$dir/report" 2> /dev/null)
    if [[ $report == *"failed "* ]]; then # the shim's line: "failed FUNCTION"
        failed_fn=${report#*failed }
        failed_fn=${failed_fn%%$'\n'*}
    fi
    what="$what${failed_fn:+ ($failed_fn)}"
    if [ "$status" -eq -1 ]; then
        echo "FAIL: $what: cannot copy the fixtures"
        return
    fi
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "FAIL: $what: hung (killed after $CASE_TIMEOUT s)"
        return
    fi
    if [ "$status" -gt 128 ]; then
        echo "FAIL: $what: died by signal $((status - 128)): $(head -c 200 "$dir/err")"
        return
    fi
    # With two workers a run may make fewer calls than the most of the fault-free runs: it must
    # then give the fault-free result (checked below).
    if [ -z "$failed_fn" ] && ! multi "$i"; then
        echo "FAIL: $what: the call was never made (status $status; calls differ between runs)"
        return
    fi
    local state got_stdout got_dir
    state=$(state_of "$dir/work" "$dir/out")
    got_stdout=${state%%$'\n'*}
    got_dir=${state#*$'\n'}
    local text
    text=$(error_text "$errno")
    # the checksum line names the file: compare the sums and sizes only
    if [ "$status" -eq "${REF_STATUS[i]}" ]; then
        if [ "${got_stdout% *}" != "${REF_STDOUT[i]% *}" ]; then
            echo "FAIL: $what: status $status but standard output differs from the fault-free run"
        elif [ "$got_dir" != "${REF_DIR[i]}" ]; then
            echo "FAIL: $what: status $status but the files differ from the fault-free run:" \
                "$(explain "$got_dir" "${REF_DIR[i]}")"
        elif [ -n "$failed_fn" ] && { [ "$class" = fsync ] || [ "$class" = rename ]; }; then
            # Nothing replaces a failed fsync or rename: a run that goes on as if it had worked
            # must at least say what failed, or it ignored the failure.
            grep -qE "^bloomline [a-z]+: warning: .*($text)" "$dir/err" ||
                echo "FAIL: $what: status $status with the failure unsaid (ignored?):" \
                    "$(head -c 200 "$dir/err" | tr '\n' ' ')"
        fi
        return
    fi
    if [ "$status" -ne 2 ] || [ "$class" = short-write ]; then
        echo "FAIL: $what: status $status (want ${REF_STATUS[i]}${text:+ or 2}):" \
            "$(head -c 200 "$dir/err" | tr '\n' ' ')"
        return
    fi
    if ! grep -qE "^bloomline [a-z]+: .*($text)" "$dir/err"; then
        echo "FAIL: $what: status 2 without a message naming the failure:" \
            "$(head -c 200 "$dir/err" | tr '\n' ' ')"
        return
    fi
    local before=$FIX_STATE
    multi "$i" && before=$BIG_STATE
    if [ "$got_dir" != "$before" ]; then
        local replaced=
        [ "$got_dir" = "${REF_DIR[i]}" ] && replaced=" ($output is the new file)"
        echo "FAIL: $what: status 2 but the files changed$replaced:" \
            "$(explain "$got_dir" "$before")"
    fi
}

# run_shard SHARD: every JOBS-th case from the SHARD-th; "K ok" or "K FAIL: ..." for case K.
run_shard() {
    local shard=$1 k=0 i class errno n object line
    mkdir -p "$T/shard$shard"
    while read -r i class errno n object; do
        k=$((k + 1))
        [ $(((k - 1) % JOBS)) -eq "$shard" ] || continue
        line=$(run_case "$shard" "$i" "$class" "$errno" "$n" "$object")
        echo "$k ${line:-ok}"
    done < "$CASES" > "$T/shard$shard/results"
}

for ((shard = 0; shard < JOBS; shard++)); do
    run_shard "$shard" &
done
wait

# Cases per command and class, for the log.
awk '{ n[$1] = n[$1] " " $2 ($5 == "-" ? "" : "@" $5) } END { for (i in n) print i n[i] }' \
    "$CASES" | sort -n |
    while read -r i classes; do
        echo "# cli_faults: ${COMMANDS[$i]%%|*} cases:$(tr ' ' '\n' <<< "$classes" |
            uniq -c | awk '{ printf " %s %s", $2, $1 }')"
    done
sort -n "$T"/shard*/results | grep -v '^[0-9]* ok$' | cut -d ' ' -f 2-
TOTAL=$(wc -l < "$CASES")
PASSED=$(cat "$T"/shard*/results | grep -c '^[0-9]* ok$')
RAN=$(cat "$T"/shard*/results | wc -l)
if [ "$RAN" -ne "$TOTAL" ]; then # a shard that died would leave its cases unchecked
    echo "FAIL: $((TOTAL - RAN)) of $TOTAL cases did not run"
    FAIL=$((FAIL + 1))
fi
PASS=$((PASS + PASSED))
FAIL=$((FAIL + RAN - PASSED))
echo "cli_faults: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
