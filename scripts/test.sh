#!/usr/bin/env bash
# Installs the dependencies, builds cucatch and runs every test (ctest). Tests labelled `gpu`
# report as skipped, by name, on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
