#!/usr/bin/env bash
# Front-end throughput: parse+print MB/s of cucatch's PTX reader and printer (in process,
# median of 5) next to the time ptxas takes on the same module, for the largest corpus module
# and a synthetic module of 50 MB (bench/gen-synthetic-ptx.py). Usage: bench/frontend.sh [BUILD]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
bench=$build/bench/ptx-frontend-bench
[ -x "$bench" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

largest=$(ls -S "$root"/tests/corpus/ptx/*.ptx | sed -n 1p)  # not head: SIGPIPE under pipefail
python3 "$root/bench/gen-synthetic-ptx.py" "$tmp/synthetic-50MB.ptx" --mb 50 >/dev/null

printf '%-44s %10s %9s %9s %8s %10s %9s\n' module bytes parse_ms print_ms MB/s ptxas_ms front/ptxas
for f in "$largest" "$tmp/synthetic-50MB.ptx"; do
  line=$("$bench" "$f" 5)
  bytes=$(sed 's/.*bytes=\([0-9]*\) printed.*/\1/' <<<"$line")
  parse=$(sed 's/.*parse_ms=\([0-9.]*\).*/\1/' <<<"$line")
  print=$(sed 's/.*print_ms=\([0-9.]*\).*/\1/' <<<"$line")
  mbs=$(sed 's/.*mb_per_s=\([0-9.]*\).*/\1/' <<<"$line")
  sm=$(grep -m1 -o 'sm_[0-9a-z]*' "$f")
  start=$(date +%s%N)
  "$ptxas" -arch="$sm" "$f" -o "$tmp/out.cubin"
  ptxas_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  ratio=$(python3 -c "print(f'{($parse + $print) / $ptxas_ms * 100:.1f}%')")
  printf '%-44s %10s %9s %9s %8s %10s %9s\n' "$(basename "$f")" "$bytes" "$parse" "$print" "$mbs" "$ptxas_ms" "$ratio"
done
