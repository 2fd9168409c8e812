#!/usr/bin/env python3
"""Cost of global-memory instrumentation at build time and its first runtime signal.

For each module (default: the corpus's sm_80 -O3 modules): the time cucatch takes to parse,
instrument and print it (in process, median of 3) next to the time ptxas takes on the original
and on the instrumented module; and, per kernel, registers (ptxas -v) and SASS instructions
(the kernel's .text section size / 16 bytes) before and after. Prints a table per module and
geometric means. Usage: bench/instrument.py [--build DIR] [FILES...]
"""
import argparse
import glob
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def text_sizes(cubin):
    """{kernel: bytes of its .text section} read from the ELF section headers."""
    data = open(cubin, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = data[hdrs[shstrndx][4]:hdrs[shstrndx][4] + hdrs[shstrndx][5]]
    out = {}
    for h in hdrs:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        if name.startswith(".text."):
            out[name[6:]] = h[5]
    return out


def ptxas(ptxas_bin, sm, src, cubin):
    t0 = time.perf_counter()
    r = subprocess.run([ptxas_bin, f"-arch={sm}", "-v", src, "-o", cubin], capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"ptxas failed on {src}:\n{r.stderr}")
    regs, current = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'|Function properties for (\S+)", line)
        if m:
            current = m.group(1) or m.group(2)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            regs[current] = int(m.group(1))
    return elapsed * 1000, regs


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "tests/corpus/ptx/*.sm_80.O3.ptx")))
    tool = os.path.join(a.build, "tools/cucatch-ptx")
    bench = os.path.join(a.build, "bench/ptx-frontend-bench")
    front_ratio, reg_growth, insn_growth, ptxas_growth = [], [], [], []
    print(f"{'module':38} {'cucatch_ms':>10} {'ptxas_ms':>9} {'ptxas_inst_ms':>13} {'cucatch/ptxas':>13} "
          f"{'regs':>11} {'sass_insns':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            sm = re.search(r"^\s*\.target\s+(sm_\w+)", open(f).read(), re.M).group(1)
            line = subprocess.run([bench, f, "3", "--instrument"], capture_output=True, text=True, check=True).stdout
            v = dict(kv.split("=") for kv in line.split())
            cucatch_ms = float(v["parse_ms"]) + float(v["instrument_ms"]) + float(v["print_ms"])
            inst = os.path.join(tmp, "inst.ptx")
            subprocess.run([tool, "--mode=check", f, "-o", inst], check=True)
            base_ms, base_regs = ptxas(a.ptxas, sm, f, os.path.join(tmp, "a.cubin"))
            inst_ms, inst_regs = ptxas(a.ptxas, sm, inst, os.path.join(tmp, "b.cubin"))
            base_text, inst_text = text_sizes(os.path.join(tmp, "a.cubin")), text_sizes(os.path.join(tmp, "b.cubin"))
            regs_a = sum(base_regs.get(k, 0) for k in base_text)
            regs_b = sum(inst_regs.get(k, 0) for k in base_text)
            insns_a = sum(base_text.values()) // 16
            insns_b = sum(inst_text.get(k, 0) for k in base_text) // 16
            front_ratio.append(cucatch_ms / base_ms)
            ptxas_growth.append(inst_ms / base_ms)
            if regs_a:
                reg_growth.append(regs_b / regs_a)
            if insns_a:
                insn_growth.append(insns_b / insns_a)
            print(f"{os.path.basename(f)[:38]:38} {cucatch_ms:10.1f} {base_ms:9.0f} {inst_ms:13.0f} "
                  f"{cucatch_ms / base_ms * 100:12.1f}% {regs_a:5}->{regs_b:<5} {insns_a:7}->{insns_b:<7}")
    print(f"geometric mean over {len(files)} modules: cucatch (parse+instrument+print) = "
          f"{geomean(front_ratio) * 100:.1f}% of ptxas time; ptxas on instrumented = {geomean(ptxas_growth):.2f}x; "
          f"registers x{geomean(reg_growth):.2f}; SASS instructions x{geomean(insn_growth):.2f}")


if __name__ == "__main__":
    sys.exit(main())
