#!/usr/bin/env python3
"""JIT mode's start-up cost, side by side in one run (issue 11): a program whose one module holds
several MB of PTX (bench/jit/many_kernels.cu, 768 kernels), run

  plain      DIR/many_kernels.plain                          (nvcc: SASS for the device)
  cucatch    DIR/many_kernels.cucatch                        (cucatch-nvcc)
  jit cold   CUCATCH_RUN --jit -- DIR/many_kernels.plain     with an empty cucatch cache
             (CUCATCH_CACHE_DIR) and an empty driver JIT cache (CUDA_CACHE_PATH): the PTX is
             instrumented (register caps measured with ptxas) and compiled by the driver
  jit cached the same again, both caches filled by the cold run

each --repeats times (cold: each time with new, empty caches), and prints per configuration the
median wall time of the process and of its first launch (which loads the module), the module's
PTX size before and after instrumentation, and checks that every run printed the same checksum.

usage: startup.py --bin-dir BUILD/bench/jit --cucatch-run BUILD/tools/cucatch-run [--repeats 3]
Exit status: 0; 1 when a run failed or the checksums differ; 2 for bad usage.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd, env):
    start = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - start
    m = re.search(r"STARTUP kernels=(\d+) checksum=(\S+) first_launch_ms=([\d.]+)", p.stdout)
    if p.returncode != 0 or not m:
        print(f"FAILED: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr[-3000:]}")
        return None
    return {"wall_s": wall, "first_launch_s": float(m.group(3)) / 1000, "checksum": m.group(2),
            "kernels": int(m.group(1)), "stderr": [l for l in p.stderr.splitlines() if l.startswith("cucatch")]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--cucatch-run", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    plain = os.path.join(a.bin_dir, "many_kernels.plain")
    checked = os.path.join(a.bin_dir, "many_kernels.cucatch")
    for f in (plain, checked, a.cucatch_run):
        if not os.access(f, os.X_OK):
            print(f"startup.py: {f} is missing (build the target jit-startup-bench)")
            return 2
    try:
        device = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip()
    except OSError:
        device = "?"
    print(f"device: {device}")
    results = {}
    base = dict(os.environ)
    with tempfile.TemporaryDirectory() as scratch:
        def caches(tag):
            d = os.path.join(scratch, tag)
            os.makedirs(d, exist_ok=True)
            return {"CUCATCH_CACHE_DIR": os.path.join(d, "cucatch"), "CUDA_CACHE_PATH": os.path.join(d, "driver")}
        # The plain and cucatch builds with an empty driver cache too (their SASS needs none).
        for name, cmd in (("plain", [plain]), ("cucatch", [checked])):
            results[name] = [run(cmd, dict(base, **caches(name))) for _ in range(a.repeats)]
        jit = [a.cucatch_run, "--jit", "--", plain]
        results["jit cold"] = [run(jit, dict(base, **caches(f"cold{i}"))) for i in range(a.repeats)]
        results["jit cached"] = [run(jit, dict(base, **caches("cold0"))) for _ in range(a.repeats)]
    ok = True
    checksums = {r["checksum"] for rs in results.values() for r in rs if r}
    if any(r is None for rs in results.values() for r in rs) or len(checksums) != 1:
        ok = False
        print(f"FAILED: runs failed or checksums differ: {sorted(checksums)}")
    ptx = subprocess.run([os.path.join(os.path.dirname(a.cucatch_run), "cucatch-fatbin"), "list", plain],
                         capture_output=True, text=True).stdout
    print(ptx, end="")
    print(f"| configuration | wall s (median of {a.repeats}) | first launch s | notes |")
    print("|---|---:|---:|---|")
    for name, rs in results.items():
        good = [r for r in rs if r]
        if not good:
            print(f"| {name} | failed | failed | |")
            continue
        notes = "; ".join(sorted({l for r in good for l in r["stderr"]}))[:200]
        print(f"| {name} | {statistics.median(r['wall_s'] for r in good):.2f} | "
              f"{statistics.median(r['first_launch_s'] for r in good):.2f} | {notes} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
