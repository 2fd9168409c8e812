#!/usr/bin/env bash
# Builds the parser fuzz target with clang-14 + libFuzzer (ASan/UBSan) and runs it for
# SECONDS (default 300), seeded with the unit-test samples and a few corpus modules.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-300}
build=${CUCATCH_FUZZ_BUILD:-$root/build-fuzz}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DCUCATCH_BUILD_FUZZERS=ON -DCUCATCH_BUILD_TESTS=OFF >/dev/null
ninja -C "$build" fuzz-parser >/dev/null
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
# Small seeds keep the fuzzer fast: the first 4 KB of a few corpus modules.
for f in $(ls "$root"/tests/corpus/ptx/*.ptx 2>/dev/null | head -40); do head -c 4096 "$f" > "$seeds/$(basename "$f")"; done
cp "$here"/seeds/* "$seeds"/ 2>/dev/null || true
mkdir -p "$build/fuzz-corpus"
"$build/tests/fuzz/fuzz-parser" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -max_len=8192 -print_final_stats=1 "$build/fuzz-corpus" "$seeds"
