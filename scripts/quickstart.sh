#!/usr/bin/env bash
# Installs the dependencies, builds cucatch and runs it on the bundled example:
# examples/saxpy.cu -> nvcc -ptx -> cucatch-ptx (instrument, with --stats) -> ptxas.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/build.sh
nvcc=${CUCATCH_NVCC:-/usr/local/cuda/bin/nvcc}
ptxas=$(dirname "$nvcc")/ptxas
out=build/example
mkdir -p "$out"
"$nvcc" -ptx -arch=sm_80 -lineinfo examples/saxpy.cu -o "$out/saxpy.ptx"
build/tools/cucatch-ptx --stats "$out/saxpy.ptx" -o "$out/saxpy.cucatch.ptx"
"$ptxas" -arch=sm_80 "$out/saxpy.cucatch.ptx" -o "$out/saxpy.cucatch.cubin"
echo "instrumented: $out/saxpy.ptx -> $out/saxpy.cucatch.ptx ($(wc -c < "$out/saxpy.cucatch.ptx") bytes), accepted by ptxas -> $out/saxpy.cucatch.cubin"
