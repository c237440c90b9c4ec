#!/bin/sh
# SPDX-License-Identifier: MIT
# Guava interop, both directions, against the real jar: compile GuavaInterop.java, then
#  1. Murmur3: Guava's Hashing.murmur3_128() and bloomline's hash agree on every key;
#  2. bloomline -> Guava: BloomFilter.readFrom on bloomline's export finds every key and answers
#     every negative key exactly as bloomline does;
#  3. Guava -> bloomline: bl_import of BloomFilter.writeTo's stream finds every key and answers
#     every negative key exactly as Guava does; a corrupted strategy byte is refused by both.
# Usage: run_guava_interop.sh TOOL SOURCE_DIR WORK_DIR [NKEYS]. Exit 77 (ctest SKIP) without
# java, javac or the jar (Debian: default-jdk-headless, libguava-java).
set -eu
tool=$1
src=$2
work=$3
nkeys=${4:-20000}
jar=${GUAVA_JAR:-/usr/share/java/guava.jar}
# Set by tests/interop.cmake in cross builds (the cross-compiling emulator, e.g. "qemu-aarch64").
emulator=${BLOOMLINE_TOOL_EMULATOR:-}

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 || [ ! -r "$jar" ]; then
    echo "SKIP: needs java, javac and $jar (apt-get install default-jdk-headless libguava-java)"
    exit 77
fi

rm -rf "$work"
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" -cp "$jar" "$src/GuavaInterop.java"
run_java() { java -cp "$work/classes:$jar" GuavaInterop "$@"; }
# $emulator is a command line: word splitting wanted.
run_tool() { $emulator "$tool" "$@"; }

seed=${BLOOMLINE_TEST_SEED:-$(date +%s)}
echo "# guava interop: seed $seed (replay with BLOOMLINE_TEST_SEED), $nkeys keys"
run_tool keys "$seed" "$nkeys" "$work/pos.txt" "$work/neg.txt"

# 1. The hash itself.
run_java murmur "$work/pos.txt" "$work/murmur.txt"
run_tool murmur "$work/pos.txt" "$work/murmur.txt"

# 2. bloomline -> Guava, at two rates.
for fpp in 0.01 0.0001; do
    run_tool export "$work/pos.txt" "$nkeys" "$fpp" "$work/bl.guava" "$work/neg.txt" "$work/bl.answers"
    run_java read "$work/bl.guava" "$work/pos.txt" "$work/neg.txt" "$work/java_on_bl.answers"
    cmp "$work/bl.answers" "$work/java_on_bl.answers"
    echo "ok: Guava answers exactly as bloomline on every negative key (fpp $fpp)"
done

# 3. Guava -> bloomline, at two rates.
for fpp in 0.03 0.001; do
    run_java write "$work/pos.txt" "$nkeys" "$fpp" "$work/java.guava" "$work/neg.txt" "$work/java.answers"
    run_tool import "$work/java.guava" "$work/pos.txt" "$work/neg.txt" "$work/java.answers" "$work/bad.guava"
    run_java reject "$work/bad.guava"
    echo "ok: bloomline answers exactly as Guava on every negative key (fpp $fpp)"
done
echo "guava interop: all passed"
