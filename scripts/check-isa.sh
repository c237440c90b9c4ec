#!/bin/sh
# SPDX-License-Identifier: MIT
# Static ISA check: no object of the library outside src/avx2 and src/avx512 may contain AVX2 or
# AVX-512 code (ymm/zmm/opmask registers, any VEX/EVEX instruction, BMI2), so the library loads
# and runs on any x86-64; runtime dispatch alone decides when the ISA folders' code runs.
# The ISA objects must contain such code, which proves the patterns detect what they look for.
#   scripts/check-isa.sh [build-dir]   (default: build-isa, configured and built if needed)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-isa}
case $(uname -m) in x86_64|amd64) ;; *) echo "check-isa: x86-64 only, skipped on $(uname -m)"; exit 0 ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DBLOOMLINE_BUILD_TESTS=OFF -DBLOOMLINE_BUILD_BENCH=OFF \
        -DBLOOMLINE_BUILD_CLI=OFF >/dev/null
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cmake --build "$build" --target bloomline_objects -j "$(nproc)" >"$log" 2>&1; then
    cat "$log" >&2
    echo "check-isa: FAIL: build failed" >&2
    exit 1
fi
objdir=$build/CMakeFiles/bloomline_objects.dir
[ -d "$objdir" ] || { echo "check-isa: FAIL: no objects in $objdir" >&2; exit 1; }

# ymm/zmm/opmask registers, any mnemonic starting with v (VEX/EVEX: AVX, AVX2, AVX-512), BMI2.
pattern='%[yz]mm[0-9]|%k[0-7]\b|^ *[0-9a-f]+:[[:space:]]+(v[a-z0-9]+|shlx|shrx|sarx|rorx|mulx|pdep|pext)[[:space:]]'

status=0 checked=0 isa_seen=0
for obj in $(find "$objdir" -name '*.o' | sort); do
    rel=${obj#"$objdir"/}
    hits=$(objdump -d --no-show-raw-insn "$obj" | grep -cE "$pattern" || true)
    case $rel in
    src/avx2/*|src/avx512/*)
        if [ "$hits" -eq 0 ]; then
            echo "check-isa: FAIL: $rel has no AVX2/AVX-512 instructions: the check cannot detect them" >&2
            status=1
        else
            echo "check-isa: ok (ISA folder): $rel has $hits AVX2/AVX-512 instructions"
            isa_seen=$((isa_seen + 1))
        fi
        ;;
    *)
        checked=$((checked + 1))
        if [ "$hits" -ne 0 ]; then
            echo "check-isa: FAIL: $rel contains $hits AVX2/AVX-512/BMI2 instructions:" >&2
            objdump -d --no-show-raw-insn "$obj" | grep -E "$pattern" | head -5 >&2
            status=1
        fi
        ;;
    esac
done
if [ "$isa_seen" -eq 0 ]; then
    echo "check-isa: FAIL: no src/avx2 objects built (BLOOMLINE_ENABLE_AVX2 off?)" >&2
    status=1
fi
# The AVX-512 objects must really use 512-bit code, or the kernel would not deserve its name.
for obj in $(find "$objdir/src/avx512" -name '*.o' 2>/dev/null | sort); do
    if ! objdump -d --no-show-raw-insn "$obj" | grep -q '%zmm'; then
        echo "check-isa: FAIL: ${obj#"$objdir"/} has no zmm instructions" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "check-isa: PASS: $checked portable objects free of AVX2/AVX-512/BMI2 code"
exit "$status"
