#!/usr/bin/env bash
# Installs the dependencies, builds cucatch and runs every test (ctest). Tests labelled `gpu`
# report as skipped, by name, on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
