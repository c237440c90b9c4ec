#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: installs the packages, builds, and runs the demo (a generated URL
# list and access log: build a filter, query the log, show info).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
bash scripts/demo.sh "$root/build"
