#!/usr/bin/env python3
"""cucatch's fatbinary reader (src/fatbin, through cucatch-fatbin and cucatch-run --list) on
fatbinaries the toolkit makes, checked against cuobjdump: the same entries (kind and
architecture) and, extracted and decompressed, byte for byte the same PTX and cubins.

usage: fatbin_tests.py CASE --fatbin-tool PATH --cucatch-run PATH --cucatch-nvcc PATH
                       --nvcc PATH --cuobjdump PATH --work DIR
"""
import argparse
import collections
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "..", "nvcc", "programs", "single.cu")


class Failure(Exception):
    pass


def run(cmd, cwd=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def digests(directory, suffix):
    out = collections.Counter()
    for name in os.listdir(directory):
        if name.endswith(suffix):
            data = open(os.path.join(directory, name), "rb").read()
            out[hashlib.sha256(data).hexdigest()] += 1
    return out


def same_as_cuobjdump(a, path, w, expect_ptx=None, expect_sass=None):
    """Our entries equal cuobjdump's: counts, and the extracted bytes."""
    ours = os.path.join(w, "ours")
    theirs = os.path.join(w, "theirs")
    for d in (ours, theirs):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    run([a.fatbin_tool, "extract", path, "-o", ours])
    for flag in ("-xelf", "-xptx"):
        run([a.cuobjdump, flag, "all", os.path.abspath(path)], cwd=theirs, check=False)
    for suffix in (".cubin", ".ptx"):
        o, t = digests(ours, suffix), digests(theirs, suffix)
        if o != t:
            raise Failure(f"{path}: {suffix} entries differ from cuobjdump's: ours {sum(o.values())} "
                          f"({sorted(o)[:3]}...), cuobjdump's {sum(t.values())}")
    n_ptx, n_sass = sum(digests(ours, ".ptx").values()), sum(digests(ours, ".cubin").values())
    if expect_ptx is not None and n_ptx != expect_ptx:
        raise Failure(f"{path}: {n_ptx} PTX entries, expected {expect_ptx}")
    if expect_sass is not None and n_sass != expect_sass:
        raise Failure(f"{path}: {n_sass} SASS entries, expected {expect_sass}")
    listing = run([a.fatbin_tool, "list", path]).stdout
    print(listing, end="")
    print(f"{path}: {n_sass} SASS and {n_ptx} PTX entries, identical to cuobjdump's")
    return listing


def nvcc_fatbin(a, w, name, *flags):
    out = os.path.join(w, name)
    run([a.nvcc, "-fatbin", *flags, KERNEL, "-o", out])
    return out


def case_nvcc_fatbin(a, w):
    # -arch=sm_90: SASS and PTX; the PTX is compressed by default (CUDA 13).
    listing = same_as_cuobjdump(a, nvcc_fatbin(a, w, "arch.fatbin", "-arch=sm_90"), w, 1, 1)
    if "zstd" not in listing:
        raise Failure("expected the default PTX entry to be zstd-compressed")


def case_gencode(a, w):
    path = nvcc_fatbin(a, w, "gencode.fatbin", "-gencode", "arch=compute_75,code=sm_75", "-gencode",
                       "arch=compute_80,code=[sm_80,compute_80]", "-gencode", "arch=compute_90,code=compute_90")
    listing = same_as_cuobjdump(a, path, w, 2, 2)
    for arch in ("sm_75", "sm_80", "sm_90"):
        if arch not in listing:
            raise Failure(f"no {arch} entry listed")


def case_jit_choice(a, w):
    # compute_90a and compute_80 PTX with sm_90 SASS; then SASS alone for sm_80 beside PTX for 90.
    listing = run([a.fatbin_tool, "list", nvcc_fatbin(a, w, "variants.fatbin", "-gencode", "arch=compute_90a,code=compute_90a",
                                                       "-gencode", "arch=compute_80,code=compute_80",
                                                       "-gencode", "arch=compute_90,code=sm_90")]).stdout
    print(listing, end="")
    want = [r"sm_90a\s+ptx .* instrumented for sm_90$", r"sm_80\s+ptx .* instrumented for sm_80 to sm_89, sm_100 and newer$",
            r"sm_90\s+sass .*  -$"]
    for pattern in want:
        if not any(re.search(pattern, l) for l in listing.splitlines()):
            raise Failure(f"no listing line matches '{pattern}'")
    listing = run([a.fatbin_tool, "list", nvcc_fatbin(a, w, "sass80.fatbin", "-gencode", "arch=compute_80,code=sm_80",
                                                       "-gencode", "arch=compute_90,code=compute_90")]).stdout
    print(listing, end="")
    for pattern in (r"sm_80\s+sass .* no PTX for sm_80: runs uninstrumented$", r"sm_90\s+ptx .* instrumented for sm_90 and newer$"):
        if not any(re.search(pattern, l) for l in listing.splitlines()):
            raise Failure(f"no listing line matches '{pattern}'")


def case_jit(a, w):
    # What JIT mode hands the driver: the PTX the device runs, instrumented as cucatch-nvcc does.
    exe = os.path.join(w, "plain.exe")
    run([a.nvcc, "-gencode", "arch=compute_80,code=compute_80", "-gencode", "arch=compute_90,code=sm_90", KERNEL, "-o", exe])
    out, cache = os.path.join(w, "jit.ptx"), os.path.join(w, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    first = run([a.fatbin_tool, "jit", exe, "--arch", "sm_90", "-o", out, "--cache", cache])
    text = open(out).read()
    if "__cucatch_state" not in text or not re.search(r"\.entry __cucatch_unit_[0-9a-f]{8}_v\d+", text):
        raise Failure("the PTX for sm_90 is not instrumented")
    if "compute_80 PTX" not in first.stderr or "from the cache" in first.stderr:
        raise Failure(f"expected the compute_80 PTX, instrumented now: {first.stderr}")
    run([a.ptxas, "-arch=sm_90", out, "-o", os.path.join(w, "jit.cubin")])
    # The listing numbers the container as --container counts it.
    unit = re.search(r"container (\d+)", first.stderr).group(1)
    listed = [l for l in run([a.fatbin_tool, "list", exe]).stdout.splitlines() if re.search(r"sm_80\s+ptx", l)]
    if len(listed) != 1 or listed[0].split()[2] != unit:
        raise Failure(f"the listing does not number the PTX's container {unit}: {listed}")
    again = run([a.fatbin_tool, "jit", exe, "--arch", "sm_90", "-o", out + ".2", "--cache", cache])
    if "from the cache" not in again.stderr or open(out + ".2").read() != text:
        raise Failure(f"the second run did not read the same PTX back from the cache: {again.stderr}")
    # A device that runs none of its PTX, and a file with SASS only: said, exit status 3.
    older = run([a.fatbin_tool, "jit", exe, "--arch", "sm_75", "-o", out], check=False)
    if older.returncode != 3 or "no PTX that sm_75 runs" not in older.stderr:
        raise Failure(f"sm_75: expected exit 3 and 'no PTX that sm_75 runs': {older.returncode} {older.stderr}")
    sass = os.path.join(w, "sass.exe")
    run([a.nvcc, "-gencode", "arch=compute_90,code=sm_90", KERNEL, "-o", sass])
    none = run([a.fatbin_tool, "jit", sass, "--arch", "sm_90", "-o", out], check=False)
    if none.returncode != 3 or "SASS sm_90" not in none.stderr:
        raise Failure(f"SASS only: expected exit 3 naming the SASS: {none.returncode} {none.stderr}")
    # PTX text (what a program loads at run time) is instrumented as it is, named as --name says;
    # PTX instrumented already is left alone (exit status 4, nothing written).
    ptx = os.path.join(w, "runtime.ptx")
    run([a.nvcc, "-ptx", "-arch=sm_90", KERNEL, "-o", ptx])
    named = run([a.fatbin_tool, "jit", ptx, "--arch", "sm_90", "-o", out + ".3", "--name", "run-time PTX 1"])
    if "run-time PTX 1: its PTX text, instrumented" not in named.stderr or "__cucatch_state" not in open(out + ".3").read():
        raise Failure(f"PTX text: expected it instrumented under its --name: {named.stderr}")
    twice = run([a.fatbin_tool, "jit", out + ".3", "--arch", "sm_90", "-o", out + ".4"], check=False)
    if twice.returncode != 4 or "instrumented already" not in twice.stderr or os.path.exists(out + ".4"):
        raise Failure(f"instrumented PTX: expected exit 4 and nothing written: {twice.returncode} {twice.stderr}")
    # Register caps measured with ptxas, as cucatch-nvcc's; a ptxas that cannot run: instrumented
    # without them, exit status 5 saying why.
    capped = run([a.fatbin_tool, "jit", exe, "--arch", "sm_90", "-o", out + ".5", "--ptxas", a.ptxas])
    if "with register caps" not in capped.stderr:
        raise Failure(f"--ptxas: expected register caps: {capped.stderr}")
    uncapped = run([a.fatbin_tool, "jit", exe, "--arch", "sm_90", "-o", out + ".6", "--ptxas", "/nonexistent/ptxas"],
                   check=False)
    if uncapped.returncode != 5 or "without register caps" not in uncapped.stderr or \
            "__cucatch_state" not in open(out + ".6").read():
        raise Failure(f"a ptxas that cannot run: expected exit 5 and the module instrumented: {uncapped.returncode} "
                      f"{uncapped.stderr}")
    print(first.stderr + again.stderr + older.stderr + none.stderr + named.stderr + twice.stderr + capped.stderr +
          uncapped.stderr, end="")


def case_compression(a, w):
    listing = same_as_cuobjdump(a, nvcc_fatbin(a, w, "all.fatbin", "-arch=sm_90", "-Xfatbin=-compress-all"), w, 1, 1)
    if listing.count("zstd") != 2:
        raise Failure("-compress-all: expected both entries compressed")
    same_as_cuobjdump(a, nvcc_fatbin(a, w, "size.fatbin", "-arch=sm_90", "--compress-mode=size"), w, 1, 1)
    listing = same_as_cuobjdump(a, nvcc_fatbin(a, w, "none.fatbin", "-arch=sm_90", "--compress-mode=none"), w, 1, 1)
    if "zstd" in listing:
        raise Failure("--compress-mode=none: expected nothing compressed")


def case_fatbinary_tool(a, w):
    ptx, cubin = os.path.join(w, "k.ptx"), os.path.join(w, "k.cubin")
    run([a.nvcc, "-ptx", "-arch=sm_90", KERNEL, "-o", ptx])
    run([a.nvcc, "-cubin", "-arch=sm_90", KERNEL, "-o", cubin])
    out = os.path.join(w, "tool.fatbin")
    fatbinary = os.path.join(os.path.dirname(a.nvcc), "fatbinary")
    run([fatbinary, "-64", f"--create={out}", f"--image3=kind=ptx,sm=90,file={ptx}",
         f"--image3=kind=elf,sm=90,file={cubin}"])
    same_as_cuobjdump(a, out, w, 1, 1)


def case_objects_and_programs(a, w):
    obj, rdc, exe = (os.path.join(w, n) for n in ("k.o", "k_rdc.o", "k.exe"))
    run([a.nvcc, "-c", "-arch=sm_90", KERNEL, "-o", obj])
    run([a.nvcc, "-c", "-rdc=true", "-arch=sm_90", KERNEL, "-o", rdc])
    run([a.nvcc, "-arch=sm_90", KERNEL, "-o", exe])
    if ".nv_fatbin" not in same_as_cuobjdump(a, obj, w):
        raise Failure("object: no .nv_fatbin entries")
    if "__nv_relfatbin" not in same_as_cuobjdump(a, rdc, w):
        raise Failure("-rdc object: no __nv_relfatbin entries")
    same_as_cuobjdump(a, exe, w)
    # cucatch-run --list: the program and what it links; no GPU needed.
    listing = run([a.cucatch_run, "--list", "--", exe]).stdout
    print(listing, end="")
    if "sm_90" not in listing or "not instrumented" not in listing:
        raise Failure("cucatch-run --list does not show the program's device code")


def case_instrumented(a, w):
    exe = os.path.join(w, "k_cucatch.exe")
    run([a.cucatch_nvcc, "-arch=sm_90", KERNEL, "-o", exe])
    listing = run([a.cucatch_run, "--list", "--", exe]).stdout
    print(listing, end="")
    program = [l for l in listing.splitlines() if l.startswith(exe)]
    if sum("  instrumented" in l for l in program) != 2:
        raise Failure("expected the program's SASS and PTX entries to be listed as instrumented")


def case_libraries(a, w):
    lib = os.path.join(os.path.dirname(os.path.realpath(a.nvcc)), "..", "lib64")
    for name in ("libcublas.so", "libcurand.so"):
        path = os.path.realpath(os.path.join(lib, name))
        if not os.path.exists(path):
            print(f"{name}: not in this toolkit, skipped")
            continue
        listing = run([a.fatbin_tool, "list", path]).stdout.splitlines()[1:]
        ours = collections.Counter(l.split()[4] for l in listing)
        elf = run([a.cuobjdump, "-lelf", path], check=False).stdout.count("ELF file")
        ptx = run([a.cuobjdump, "-lptx", path], check=False).stdout.count("PTX file")
        if (ours["sass"], ours["ptx"]) != (elf, ptx):
            raise Failure(f"{path}: ours {ours['sass']} SASS / {ours['ptx']} PTX, cuobjdump {elf} / {ptx}")
        print(f"{path}: {elf} SASS and {ptx} PTX entries, as cuobjdump lists them")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for opt in ("--fatbin-tool", "--cucatch-run", "--cucatch-nvcc", "--nvcc", "--ptxas", "--cuobjdump", "--work"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    if not os.path.exists(a.cuobjdump):
        print(f"FAIL: no cuobjdump at {a.cuobjdump} (scripts/install-deps.sh installs one)")
        return 1
    w = os.path.join(a.work, a.case)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    try:
        globals()["case_" + a.case](a, w)
    except Failure as e:
        print(f"FAIL: {a.case}: {e}")
        return 1
    print(f"PASS: {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
