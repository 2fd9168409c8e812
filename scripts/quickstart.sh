#!/usr/bin/env bash
# Installs the dependencies, builds cucatch and runs it on the bundled examples:
#  1. examples/saxpy.cu -> nvcc -ptx -> cucatch-ptx --stats (what was instrumented) -> ptxas;
#  2. examples/vector_add.cu (correct) and examples/oob.cu (a bug) built with cucatch-nvcc, as a
#     user would; on a machine with a GPU both are run: vector_add silently, oob with a report.
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
echo "instrumented: $out/saxpy.ptx -> $out/saxpy.cucatch.ptx ($(wc -c < "$out/saxpy.cucatch.ptx") bytes), accepted by ptxas"
for program in vector_add oob; do
  build/tools/cucatch-nvcc -arch=sm_80 -lineinfo "examples/$program.cu" -o "$out/$program"
  echo "built with cucatch-nvcc: $out/$program"
done
if nvidia-smi -L >/dev/null 2>&1; then
  echo "--- $out/vector_add (correct: runs silently)"
  "$out/vector_add"
  echo "--- $out/oob (one element past the end: reported, exit status 1)"
  "$out/oob" || echo "exit status $?"
else
  echo "no GPU here: run $out/vector_add and $out/oob on a machine with one (a report for oob, nothing for vector_add)"
fi
