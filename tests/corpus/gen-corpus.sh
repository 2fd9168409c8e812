#!/usr/bin/env bash
# Regenerates tests/corpus/ptx/ from the CUDA programs in tests/corpus/src/.
#
#   bash scripts/install-deps.sh --corpus && bash tests/corpus/gen-corpus.sh
#
# Needs the CUDA 13 toolkit (nvcc, ptxas; CUCATCH_NVCC overrides the nvcc path) and, for the
# older PTX ISA versions, the pinned NVRTC wheels that `install-deps.sh --corpus` puts under
# /opt/cucatch-pip (CUCATCH_PIP_PREFIX overrides): NVRTC 12.4 (PTX ISA 8.4) and 11.8 (ISA 7.8).
#
# What it builds, for every src/<prog>.cu (N = its index in sorted order):
#   nvcc -O3             for sm_75, sm_80, sm_90 and sm_90a    -> <prog>.<arch>.O3.ptx
#   nvcc -O3 -lineinfo   for one arch, archs[N % 4]            -> <prog>.<arch>.lineinfo.ptx
#   nvcc -G              for one arch, archs[(N + 2) % 4]      -> <prog>.<arch>.G.ptx
#     A -G module over 3 MB (CUCATCH_CORPUS_G_LIMIT bytes) is dropped and reported: the
#     CUB/Thrust programs reach 10-30 MB at -G, which would swamp the corpus.
# and for every program whose source has a line `// corpus-nvrtc: 124 118` (the ones that need
# no header NVRTC lacks; M = its index among those):
#   NVRTC 12.4 for compute_75, compute_80, compute_90  -> <prog>.<arch>.nvrtc124.ptx
#              -lineinfo for archs3[M % 3], -G for archs3[(M + 1) % 3]
#                                                       -> <prog>.<arch>.nvrtc124-lineinfo.ptx / -G.ptx
#   NVRTC 11.8 for compute_75, compute_80              -> <prog>.<arch>.nvrtc118.ptx
#              -lineinfo for archs2[M % 2], -G for archs2[(M + 1) % 2]
#                                                       -> <prog>.<arch>.nvrtc118-lineinfo.ptx / -G.ptx
# A line `// corpus-flags: ...` in a source adds flags to all its builds (-rdc=true for the
# separate-compilation programs). NVRTC always gets -default-device -std=c++17.
#
# Any compile error stops the script (the log is printed) and leaves ptx/ untouched: everything is
# built in a staging directory and only copied over ptx/ once every module has been built and
# accepted by `ptxas -arch=<the module's .target sm_XX> FILE -o /dev/null`. Then the construct
# coverage (coverage.py) is printed and written into README.md between the coverage markers;
# a construct marked required in coverage.py that no module contains fails the run.
#
# Sources are compiled from a fixed staging path (/tmp/cucatch-corpus/src): nvcc writes the
# absolute source path into `.file` and derives the names of internal-linkage symbols from it, so
# a fixed path makes the output byte-for-byte reproducible whatever the checkout location.
# JOBS (default 2) compiles run at once.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
NVCC=${CUCATCH_NVCC:-/usr/local/cuda/bin/nvcc}
PTXAS=$(dirname "$NVCC")/ptxas
PIP_PREFIX=${CUCATCH_PIP_PREFIX:-/opt/cucatch-pip}
NVRTC124=$PIP_PREFIX/nvrtc12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
NVRTC118=$PIP_PREFIX/nvrtc11/nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2
G_LIMIT=${CUCATCH_CORPUS_G_LIMIT:-3000000}
JOBS=${JOBS:-2}
STAGE=/tmp/cucatch-corpus
start=$(date +%s)

die() { echo "gen-corpus: $*" >&2; exit 1; }
[ -x "$NVCC" ] || die "no nvcc at $NVCC (set CUCATCH_NVCC)"
[ -x "$PTXAS" ] || die "no ptxas at $PTXAS"
for lib in "$NVRTC124" "$NVRTC118"; do
  [ -f "$lib" ] || die "missing $lib: run 'bash scripts/install-deps.sh --corpus'"
done
v124=$(python3 "$here/nvrtc-ptx.py" "$NVRTC124" --version)
v118=$(python3 "$here/nvrtc-ptx.py" "$NVRTC118" --version)
[ "$v124" = 12.4 ] || die "$NVRTC124 is NVRTC $v124, expected 12.4"
[ "$v118" = 11.8 ] || die "$NVRTC118 is NVRTC $v118, expected 11.8"
echo "gen-corpus: $("$NVCC" --version | grep -o 'release [0-9.]*, V[0-9.]*'), NVRTC $v124 and $v118, $JOBS jobs"

mkdir -p "$(dirname "$STAGE")"
exec 9>"$STAGE.lock"
flock -n 9 || die "another gen-corpus.sh holds $STAGE.lock"
rm -rf "$STAGE"
mkdir -p "$STAGE/src" "$STAGE/ptx" "$STAGE/log"
cp "$here"/src/*.cu "$STAGE/src/"
: > "$STAGE/skipped"

# ---- the job list: one line "TOOL PROG ARCH MODE" per module
archs=(sm_75 sm_80 sm_90 sm_90a)
archs124=(sm_75 sm_80 sm_90)
archs118=(sm_75 sm_80)
n=0
m=0
{
  for src in "$STAGE"/src/*.cu; do
    prog=$(basename "$src" .cu)
    for a in "${archs[@]}"; do echo "nvcc $prog $a O3"; done
    echo "nvcc $prog ${archs[$((n % 4))]} lineinfo"
    echo "nvcc $prog ${archs[$(((n + 2) % 4))]} G"
    n=$((n + 1))
    if grep -q '^// corpus-nvrtc:.*\b124\b' "$src"; then
      for a in "${archs124[@]}"; do echo "nvrtc124 $prog $a O3"; done
      echo "nvrtc124 $prog ${archs124[$((m % 3))]} lineinfo"
      echo "nvrtc124 $prog ${archs124[$(((m + 1) % 3))]} G"
    fi
    if grep -q '^// corpus-nvrtc:.*\b118\b' "$src"; then
      for a in "${archs118[@]}"; do echo "nvrtc118 $prog $a O3"; done
      echo "nvrtc118 $prog ${archs118[$((m % 2))]} lineinfo"
      echo "nvrtc118 $prog ${archs118[$(((m + 1) % 2))]} G"
    fi
    grep -q '^// corpus-nvrtc:' "$src" && m=$((m + 1))
  done
} > "$STAGE/jobs"
echo "gen-corpus: $n programs ($m also through NVRTC), $(wc -l < "$STAGE/jobs") modules to build"

# ---- one compile; exit 255 makes xargs stop launching new jobs at the first failure
compile() {
  local tool=$1 prog=$2 arch=$3 mode=$4
  local src="$STAGE/src/$prog.cu" flags opt=() out log
  flags=$(sed -n 's#^// corpus-flags:##p' "$src")
  case $mode in
    O3) ;;
    lineinfo) opt=(-lineinfo) ;;
    G) opt=(-G) ;;
  esac
  if [ "$tool" = nvcc ]; then
    out="$STAGE/ptx/$prog.$arch.$mode.ptx"
    [ "$mode" = G ] || opt=(-O3 "${opt[@]}")
    log="$STAGE/log/$prog.$arch.$mode.log"
    # shellcheck disable=SC2086
    (cd "$STAGE/src" && "$NVCC" -std=c++17 -ptx -arch="$arch" "${opt[@]}" $flags "$prog.cu" -o "$out") > "$log" 2>&1 || {
      cat "$log" >&2
      echo "gen-corpus: FAILED: nvcc -std=c++17 -ptx -arch=$arch ${opt[*]} $flags $prog.cu" >&2
      exit 255
    }
  else
    local lib=$NVRTC124 suffix=$tool
    [ "$tool" = nvrtc118 ] && lib=$NVRTC118
    [ "$mode" = O3 ] || suffix=$tool-$mode
    out="$STAGE/ptx/$prog.$arch.$suffix.ptx"
    log="$STAGE/log/$prog.$arch.$suffix.log"
    # shellcheck disable=SC2086
    python3 "$HERE/nvrtc-ptx.py" "$lib" "$src" "$out" --gpu-architecture=compute_${arch#sm_} -default-device \
        -std=c++17 "${opt[@]}" $flags > "$log" 2>&1 || {
      cat "$log" >&2
      echo "gen-corpus: FAILED: $tool --gpu-architecture=compute_${arch#sm_} ${opt[*]} $flags $prog.cu" >&2
      exit 255
    }
  fi
  if [ "$mode" = G ] && [ "$(stat -c %s "$out")" -gt "$G_LIMIT" ]; then
    echo "$(basename "$out") $(stat -c %s "$out")" >> "$STAGE/skipped"
    rm -f "$out"
  fi
}

# ---- ptxas must accept each module for its own target. A `.target sm_XX, debug` module (-G)
# needs no -g: ptxas compiles it with debug information anyway (and refuses -O3 with it).
verify() {
  local f=$1 sm
  sm=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\(sm_[0-9a-z]*\).*/\1/p' "$f" | head -1)
  [ -n "$sm" ] || { echo "gen-corpus: no .target in $f" >&2; exit 255; }
  "$PTXAS" -arch="$sm" "$f" -o /dev/null > "$f.ptxas.log" 2>&1 || {
    cat "$f.ptxas.log" >&2
    echo "gen-corpus: FAILED: ptxas -arch=$sm $(basename "$f") -o /dev/null" >&2
    exit 255
  }
  rm -f "$f.ptxas.log"
}
export -f compile verify
export STAGE NVCC PTXAS NVRTC124 NVRTC118 G_LIMIT HERE=$here

xargs -P "$JOBS" -L 1 bash -c 'compile "$@"' _ < "$STAGE/jobs" || die "a compile failed (see above); ptx/ left as it was"
t_build=$(($(date +%s) - start))
while read -r f size; do echo "gen-corpus: dropped $f ($size bytes, over the $G_LIMIT-byte -G limit)"; done < "$STAGE/skipped"

find "$STAGE/ptx" -name '*.ptx' -print0 | xargs -0 -P "$JOBS" -n 1 bash -c 'verify "$1"' _ ||
  die "ptxas rejected a module (see above); ptx/ left as it was"
t_verify=$(($(date +%s) - start - t_build))

rm -rf "$here/ptx"
mkdir -p "$here/ptx"
cp "$STAGE"/ptx/*.ptx "$here/ptx/"

# ---- summary
cd "$here/ptx"
files=$(ls ./*.ptx | wc -l)
bytes=$(cat ./*.ptx | wc -c)
echo
echo "corpus: $files modules from $n programs, $bytes bytes ($((bytes / 1024)) KiB)"
echo "  nvcc 13: $(ls ./*.O3.ptx ./*.lineinfo.ptx ./*.G.ptx | wc -l), NVRTC 12.4: $(ls ./*.nvrtc124*.ptx | wc -l), NVRTC 11.8: $(ls ./*.nvrtc118*.ptx | wc -l)"
echo "  PTX ISA versions (modules): $(grep -h -m1 '^\.version' ./*.ptx | awk '{print $2}' | sort -V | uniq -c | awk '{printf "%s (%s) ", $2, $1}')"
echo "  targets (modules): $(grep -h -m1 '^\.target' ./*.ptx | sed 's/^\.target *//' | sort | uniq -c | awk '{$1=$1; n=$1; $1=""; printf "%s (%s) ", substr($0, 2), n}')"
echo "  -G modules dropped for size: $(wc -l < "$STAGE/skipped")"
echo "  time: build ${t_build}s, ptxas check ${t_verify}s, total $(($(date +%s) - start))s"
echo
python3 "$here/coverage.py" "$here/ptx" --readme "$here/README.md"
