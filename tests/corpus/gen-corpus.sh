#!/usr/bin/env bash
# Regenerates tests/corpus/ptx from tests/corpus/src. Needs the CUDA 13 toolkit and, for the
# older-ISA part, the pinned NVRTC wheels: bash scripts/install-deps.sh --corpus
#
# For every program: nvcc -O3 for sm_75, sm_80, sm_90 and sm_90a; one -lineinfo and one -G
# build, the architecture rotating so every arch appears in every mode (-G output over 3 MB
# is dropped: the CUB/Thrust ones reach tens of MB). Then the programs that need no host
# headers through NVRTC 12.4 (PTX ISA 8.4) and 11.8 (PTX ISA 7.8).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${CUCATCH_NVCC:-/usr/local/cuda/bin/nvcc}
ptxas=$(dirname "$nvcc")/ptxas
pip_prefix=${CUCATCH_PIP_PREFIX:-/opt/cucatch-pip}
out=$here/ptx
rm -rf "$out"
mkdir -p "$out"
archs=(sm_75 sm_80 sm_90 sm_90a)
jobs=()
i=0
for src in "$here"/src/*.cu; do
  prog=$(basename "$src" .cu)
  for a in "${archs[@]}"; do jobs+=("$src $prog $a O3"); done
  jobs+=("$src $prog ${archs[$((i % 4))]} lineinfo")
  jobs+=("$src $prog ${archs[$(((i + 2) % 4))]} G")
  i=$((i + 1))
done
compile() {
  set -e
  local src=$1 prog=$2 arch=$3 mode=$4 flags=(-O3)
  [ "$mode" = lineinfo ] && flags=(-O3 -lineinfo)
  [ "$mode" = G ] && flags=(-G)
  local o="$OUT/$prog.$arch.$mode.ptx"
  "$NVCC" -std=c++17 -ptx -arch="$arch" "${flags[@]}" "$src" -o "$o"
  if [ "$mode" = G ] && [ "$(stat -c %s "$o")" -gt 3000000 ]; then
    echo "skip (over 3 MB): $(basename "$o")"; rm -f "$o"
  fi
}
export -f compile
export OUT=$out NVCC=$nvcc
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 bash -c 'compile $0 $1 $2 $3'

# Older toolkits through NVRTC: programs without host-header includes.
for spec in "nvrtc12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12:nvrtc124:sm_75 sm_80 sm_90" \
            "nvrtc11/nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2:nvrtc118:sm_75 sm_80"; do
  lib=$pip_prefix/${spec%%:*}
  rest=${spec#*:}
  tag=${rest%%:*}
  tarchs=${rest#*:}
  if [ ! -f "$lib" ]; then echo "missing $lib: run scripts/install-deps.sh --corpus" >&2; exit 1; fi
  for src in "$here"/src/*.cu; do
    grep -q '#include' "$src" && continue
    prog=$(basename "$src" .cu)
    for a in $tarchs; do
      python3 "$here/nvrtc-ptx.py" "$lib" "$src" "$out/$prog.$a.$tag.ptx" \
        --gpu-architecture=compute_${a#sm_} -std=c++17 -default-device -lineinfo 2>/dev/null ||
        { echo "skip ($tag cannot compile it for $a): $prog"; rm -f "$out/$prog.$a.$tag.ptx"; }
    done
  done
done

# Every module must be accepted by ptxas for its own target.
bad=0
for f in "$out"/*.ptx; do
  sm=$(grep -m1 -o 'sm_[0-9a-z]*' "$f")
  "$ptxas" -arch="$sm" "$f" -o /dev/null 2>/dev/null || { echo "ptxas rejects $f"; bad=1; }
done
[ $bad -eq 0 ]
n=$(ls "$out"/*.ptx | wc -l)
bytes=$(cat "$out"/*.ptx | wc -c)
echo "corpus: $n modules, $bytes bytes; ISA versions: $(grep -h -m1 '^\.version' "$out"/*.ptx | sort | uniq -c | tr '\n' ' ')"
