#!/usr/bin/env python3
"""Instruments PTX modules with `cucatch-ptx --mode=check --stats` and checks that ptxas
accepts the result for the module's own target. Prints, per module, how many accesses were
instrumented and how many left out (and why).

Usage: instrument-corpus.py --tool CUCATCH_PTX --ptxas PTXAS FILE.ptx...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cucatch-ic-") as tmp:
        for f in a.files:
            out = os.path.join(tmp, os.path.basename(f))
            r = subprocess.run([a.tool, "--mode=check", "--stats", f, "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                failed += 1
                print(f"FAIL {f}: cucatch-ptx exited {r.returncode}\n{r.stderr}")
                continue
            summary = r.stderr.strip().splitlines()
            sm = re.search(r"^\s*\.target\s+(sm_\w+)", open(f).read(), re.M).group(1)
            p = subprocess.run([a.ptxas, f"-arch={sm}", out, "-o", os.devnull], capture_output=True, text=True)
            if p.returncode != 0:
                failed += 1
                print(f"FAIL {f}: ptxas rejects the instrumented module:\n{p.stderr[:2000]}")
                continue
            head = summary[0].split(": ", 1)[1] if summary else "no accesses"
            print(f"ok   {os.path.basename(f)}: {head}")
            for line in summary[1:]:
                print(f"     {line.strip()}")
    print(f"{len(a.files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
