#!/usr/bin/env python3
"""Device memory of cucatch's tables, side by side in one run (bench/memory/device_memory.cu).

Runs DIR/device_memory.plain, DIR/device_memory.cucatch and (where found) compute-sanitizer
--tool memcheck DIR/device_memory.plain, each once, and prints per step what the program holds,
the device memory in use under plain nvcc, and what cucatch and memcheck use beyond that, with
the target of issue 13: at most 8 MiB plus 1 % of what the program allocates.

    python3 bench/memory/run.py --bin-dir build/bench/memory [--no-sanitizer] [--json FILE]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

LINE_RE = re.compile(r"^MEMORY (?P<step>\S+) allocated=(?P<allocated>\d+) used=(?P<used>\d+)$")
MIB = 1 << 20


def parse(stdout):
    """{step: (allocated, used)} in the order printed."""
    steps = {}
    for line in stdout.splitlines():
        m = LINE_RE.match(line.strip())
        if m:
            steps[m["step"]] = (int(m["allocated"]), int(m["used"]))
    return steps


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"run.py: {' '.join(cmd)} exited with {p.returncode}:\n{p.stderr[-2000:]}")
    steps = parse(p.stdout)
    if not steps:
        sys.exit(f"run.py: {' '.join(cmd)} printed no MEMORY lines")
    return steps


def table(plain, others):
    """Markdown rows: step, allocated, plain in use, then each other config's extra and the target."""
    names = list(others)
    head = "| Step | Program holds (MiB) | Plain in use (MiB) | " + " | ".join(
        f"{n} extra (MiB)" for n in names) + " | Target (MiB) | cucatch within |"
    rows = [head, "|" + "---|" * (5 + len(names))]
    for step, (allocated, used) in plain.items():
        target = 8 * MIB + allocated / 100
        extras = []
        for n in names:
            other = others[n].get(step)
            extras.append(f"{(other[1] - used) / MIB:.1f}" if other else "-")
        cucatch = others.get("cucatch", {}).get(step)
        within = "yes" if cucatch and cucatch[1] - used <= target else "NO"
        rows.append(f"| {step} | {allocated / MIB:.1f} | {used / MIB:.1f} | " + " | ".join(extras) +
                    f" | {target / MIB:.1f} | {within} |")
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", required=True, help="folder holding device_memory.plain and .cucatch")
    ap.add_argument("--no-sanitizer", action="store_true", help="leave compute-sanitizer out")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    plain = run([os.path.join(args.bin_dir, "device_memory.plain")])
    others = {"cucatch": run([os.path.join(args.bin_dir, "device_memory.cucatch")])}
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    if not args.no_sanitizer and os.path.exists(sanitizer):
        others["memcheck"] = run([sanitizer, "--tool", "memcheck", os.path.join(args.bin_dir, "device_memory.plain")])
    print(table(plain, others))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"plain": plain, **others}, f, indent=1)


if __name__ == "__main__":
    main()
