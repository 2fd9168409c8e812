#!/usr/bin/env bash
# Installs everything cucatch needs to build and test on a Debian 12 machine.
# CI runs this too (through .ci/run), so it must be idempotent and non-interactive.
#
#   scripts/install-deps.sh [--corpus] [--bench]
#
# --corpus  also the older NVRTC wheels for tests/corpus/gen-corpus.sh --older
# --bench   also matplotlib for the charts of bench/overhead/run.py --plot
set -euo pipefail

CORPUS=0
BENCH=0
for arg in "$@"; do
  case "$arg" in
    --corpus) CORPUS=1 ;;
    --bench) BENCH=1 ;;
    *) echo "usage: $0 [--corpus] [--bench]" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

PKGS=(
  cmake ninja-build g++ python3 python3-pip
  antlr4 libantlr4-runtime-dev        # grammar tool 4.7.2 + C++ runtime 4.9 (static lib)
  libfmt-dev                          # header-only use
  catch2                              # v2 unit tests
  llvm-14-tools                       # FileCheck, lit
  libcli11-dev nlohmann-json3-dev
  clang-14 libclang-rt-14-dev         # libFuzzer target for the parser
  binutils                            # readelf for cubin comparison
  libzstd-dev                         # compressed fatbinary entries (static lib)
  libssl-dev                          # SHA-256 names of JIT mode's cache entries (libcrypto)
  libunwind8                          # fast host backtraces, loaded at run time (src/runtime/Unwinder.h)
)
# Only for bench/overhead/run.py --plot, which imports it on demand; Debian's package is for
# /usr/bin/python3 (a pip one would have to match whichever python3 runs the script).
if [ "$BENCH" = 1 ]; then PKGS+=(python3-matplotlib); fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# cuobjdump, which the toolkit here lacks: the cucatch-nvcc tests read fatbinaries with it. Pinned
# (the oldest CUDA 13 wheel on PyPI; it reads CUDA 13.0 fatbinaries), in a private prefix.
PIP_PREFIX="${CUCATCH_PIP_PREFIX:-/opt/cucatch-pip}"
if [ ! -x "$PIP_PREFIX/cuobjdump/nvidia/cu13/bin/cuobjdump" ] && ! command -v cuobjdump >/dev/null; then
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$PIP_PREFIX/cuobjdump" \
    nvidia-cuda-cuobjdump==13.2.51
fi

# Only for regenerating the committed PTX corpus (tests/corpus/gen-corpus.sh --older), not for
# building or testing: NVRTC from older toolkits (the pip wheels ship no nvcc/cicc) produces PTX of
# older ISA versions. Pinned; installed into a private prefix so nothing shadows /usr/local/cuda.
if [ "$CORPUS" = 1 ]; then
  PIP_PREFIX="${CUCATCH_PIP_PREFIX:-/opt/cucatch-pip}"
  for spec in nvrtc12:nvidia-cuda-nvrtc-cu12==12.4.127 nvrtc11:nvidia-cuda-nvrtc-cu11==11.8.89; do
    dir="$PIP_PREFIX/${spec%%:*}"
    [ -d "$dir/nvidia" ] || python3 -m pip install -q --disable-pip-version-check --no-deps --target "$dir" "${spec#*:}"
  done
fi
