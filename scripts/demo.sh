#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's demo: a blocklist of URLs, a web access log, build a filter, query the log, info.
# usage: scripts/demo.sh [BUILD_DIR]   (default: build/ of this checkout; DEMO_KEYS=N to resize)
set -euo pipefail

BUILD=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
[ -d "$BUILD" ] && BUILD=$(cd "$BUILD" && pwd)
B=$BUILD/bloomline
[ -x "$B" ] || B=$BUILD/src/cli/bloomline
if [ ! -x "$B" ]; then
    echo "demo: no bloomline binary in $BUILD (build it first: cmake --build $BUILD)" >&2
    exit 2
fi
N=${DEMO_KEYS:-1000000}
T=$(mktemp -d "${TMPDIR:-/tmp}/bloomline-demo.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
TIMEFORMAT='  (%R s)'

# URL number i, the same in both files; the blocklist holds 0..N-1, the log asks for 1 in 20 of
# those and otherwise for URLs the blocklist never saw.
echo "# generating $N blocklisted URLs and an access log of $((2 * N)) requests in $T"
awk -v n="$N" '
function url(i) {
    return sprintf("https://%s%d.%s/%s/%08x?id=%d", host[i % 5 + 1], i % 9973, tld[i % 4 + 1],
                   dir[i % 6 + 1], (i * 2654435761) % 4294967296, i)
}
BEGIN {
    split("cdn ads track shop news", host, " "); split("com net io org", tld, " ")
    split("static/js ads/banner pixel articles p/item search", dir, " ")
    for (i = 0; i < n; i++) print url(i) > "blocklist.txt"
    srand(20261122); hits = 0
    for (j = 0; j < 2 * n; j++) {
        if (rand() < 0.05) { i = int(rand() * n); hits++ } else i = n + int(rand() * 100 * n)
        printf "2026-11-22T%02d:%02d:%02dZ 10.%d.%d.%d GET %s %d %d\n", j / 3600000 % 24,
               j / 60000 % 60, j / 1000 % 60, j % 256, j / 256 % 256, j / 65536 % 256, url(i),
               (i < n) ? 403 : 200, 200 + (i * 7) % 90000 > "access.log"
    }
    print hits > "true_hits"
}'
ls -l blocklist.txt access.log | awk '{ printf "  %-14s %8.1f MB\n", $NF, $5 / 1e6 }'

echo
echo "$ bloomline build -p 0.001 -o blocklist.blf blocklist.txt"
time "$B" build -p 0.001 -o blocklist.blf blocklist.txt

echo
echo "$ bloomline query -f 4 -d ' ' blocklist.blf access.log | head -3"
"$B" query -f 4 -d ' ' blocklist.blf access.log | head -3 || true

echo
echo "$ bloomline query -c -f 4 -d ' ' blocklist.blf access.log"
time selected=$("$B" query -c -f 4 -d ' ' blocklist.blf access.log)
hits=$(cat true_hits)
# The rate with its standard error at p: a count of ~1900 moves by ~44 from sample to sample.
echo "  $selected requests selected: $hits blocklisted, $((selected - hits)) false positives" \
    "($(awk -v f=$((selected - hits)) -v n=$((2 * N - hits)) \
        'BEGIN { printf "rate %.5f +- %.5f", f / n, sqrt(0.001 * 0.999 / n) }'), target 0.001)"

echo
echo "$ bloomline info blocklist.blf"
"$B" info blocklist.blf
