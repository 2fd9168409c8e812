#!/usr/bin/env python3
"""Round trip of PTX modules through cucatch's front end, checked by ptxas.

For each module: parse -> print -> parse gives an identical IR (ptx-roundtrip), and ptxas of
the printed PTX gives a cubin identical, section by section, to ptxas of the original with the
same flags. Modules with `.loc` make ptxas embed the PTX text in `.nv_debug_ptx_txt`; that one
section is compared by name only.

Usage: roundtrip.py --roundtrip BIN --ptxas PTXAS FILE.ptx...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ELF_COMPARE = os.path.join(HERE, "..", "tools", "elf-compare.py")


def ptxas_args(ptx_text):
    m = re.search(r"^\s*\.target\s+([^\n]*)", ptx_text, re.M)
    if not m:
        raise ValueError("no .target directive")
    targets = [t.strip() for t in m.group(1).split("//")[0].split(",")]
    sm = next(t for t in targets if t.startswith("sm_"))
    return [f"-arch={sm}"]


def check(path, tool, ptxas, workdir):
    text = open(path, encoding="utf-8", errors="replace").read()
    base = os.path.basename(path)
    orig_dir = os.path.join(workdir, "orig")
    printed_dir = os.path.join(workdir, "printed")
    os.makedirs(orig_dir, exist_ok=True)
    os.makedirs(printed_dir, exist_ok=True)
    printed = os.path.join(printed_dir, base)
    r = subprocess.run([tool, path, printed], capture_output=True, text=True)
    if r.returncode != 0:
        return f"IR round trip failed:\n{r.stderr}"
    args = ptxas_args(text)
    cubins = []
    for src, d in ((path, orig_dir), (printed, printed_dir)):
        out = os.path.join(d, base + ".cubin")
        r = subprocess.run([ptxas, *args, src, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            return f"ptxas {' '.join(args)} failed on {src}:\n{r.stderr}"
        cubins.append(out)
    r = subprocess.run([sys.executable, ELF_COMPARE, *cubins, "--ignore", ".nv_debug_ptx_txt"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"cubins differ:\n{r.stdout}{r.stderr}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--roundtrip", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cucatch-rt-") as tmp:
        for f in a.files:
            err = check(f, a.roundtrip, a.ptxas, tmp)
            size = os.path.getsize(f)
            if err:
                failed += 1
                print(f"FAIL {f} ({size} bytes): {err}")
            else:
                print(f"ok   {f} ({size} bytes): identical IR, identical cubin")
    print(f"{len(a.files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
