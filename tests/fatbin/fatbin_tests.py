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


def largest_container(exe, out):
    """The largest container of `exe`'s .nv_fatbin, written to `out`: the one with the program's
    kernels (for an -rdc program, nvlink's image); the CUDA runtime's own is small."""
    import struct
    sections = run(["readelf", "-SW", exe]).stdout
    fields = next(l for l in sections.splitlines() if " .nv_fatbin " in l).split("]")[1].split()
    offset, size = int(fields[3], 16), int(fields[4], 16)
    data = open(exe, "rb").read()[offset:offset + size]
    containers, at = [], 0
    while at + 16 <= len(data):
        magic, _, header, body = struct.unpack("<IHHQ", data[at:at + 16])
        if magic != 0xBA55ED50:
            at += 8  # padding between containers
            continue
        containers.append(data[at:at + header + body])
        at += header + body
    open(out, "wb").write(max(containers, key=len))
    return out


def case_jit_relocatable(a, w):
    # Relocatable device code (-rdc): the image the runtime registers is nvlink's, SASS only; JIT
    # mode links the program's relocatable units again, their PTX instrumented (exit status 6).
    programs = os.path.join(HERE, "..", "nvcc", "programs")
    exe = os.path.join(w, "rdc.exe")
    run([a.nvcc, "-arch=sm_90", "-rdc=true", os.path.join(programs, "rdc_main.cu"),
         os.path.join(programs, "rdc_device.cu"), "-o", exe])
    image, out = largest_container(exe, os.path.join(w, "image.fatbin")), os.path.join(w, "link-inputs")
    r = run([a.fatbin_tool, "jit", image, "--arch", "sm_90", "-o", out, "--relocatable-from", exe, "--name", "./rdc",
             "--cache", os.path.join(w, "cache")], check=False)
    if r.returncode != 6 or "./rdc: relocatable device code: 2 units to link again for sm_90, 2 of them instrumented" \
            not in r.stderr:
        raise Failure(f"expected exit 6 and two units instrumented: {r.returncode} {r.stderr}")
    data = open(out, "rb").read()
    records = re.findall(rb"cucatch-link-input (ptx|fatbinary) (\d+) ([^\n]*)\n", data)
    if [kind for kind, _, _ in records] != [b"ptx", b"ptx"] or data.count(b"__cucatch_state") < 2:
        raise Failure(f"expected two instrumented PTX inputs: {records}")
    # What the driver does with them, done with the toolkit: each compiles as relocatable code,
    # and they link into one image.
    at, cubins = 0, []
    for n, (_, size, name) in enumerate(records):
        at = data.index(b"\n", data.index(b"cucatch-link-input", at)) + 1
        ptx = os.path.join(w, f"unit{n}.ptx")
        open(ptx, "wb").write(data[at:at + int(size)])
        at += int(size)
        cubins.append(os.path.join(w, f"unit{n}.cubin"))
        run([a.ptxas, "-arch=sm_90", "-c", ptx, "-o", cubins[-1]])
    nvlink = os.path.join(os.path.dirname(a.nvcc), "nvlink")
    run([nvlink, "-arch=sm_90", *cubins, "-o", os.path.join(w, "linked.cubin")])
    # The listing says so of nvlink's image.
    listing = run([a.fatbin_tool, "list", exe]).stdout
    if not re.search(r"\.nv_fatbin\s+0\s+sm_90\s+sass.*relinked from 2 relocatable units", listing):
        raise Failure(f"the listing does not say the image is relinked:\n{listing}")
    # A float division: nvlink adds the compiler's slow path for it (__cuda_sm3x_div_rn_noftz_f32_
    # slowpath), which no unit defines (and the driver's link adds it as well).
    with open(os.path.join(w, "divide.cu"), "w") as f:
        f.write("__device__ float ratio(float a, float b);\n"
                "__global__ void divide(float* o, const float* a, const float* b) { o[0] = ratio(a[0], b[0]); }\n"
                "int main() { return 0; }\n")
    with open(os.path.join(w, "ratio.cu"), "w") as f:
        f.write("__device__ float ratio(float a, float b) { return a / b; }\n")
    divide = os.path.join(w, "divide.exe")
    run([a.nvcc, "-arch=sm_90", "-rdc=true", os.path.join(w, "divide.cu"), os.path.join(w, "ratio.cu"), "-o", divide])
    helpers = run([a.fatbin_tool, "jit", largest_container(divide, os.path.join(w, "divide.fatbin")), "--arch",
                   "sm_90", "-o", out + ".div", "--relocatable-from", divide], check=False)
    if helpers.returncode != 6:
        raise Failure(f"a link with the compiler's helpers: expected exit 6: {helpers.returncode} {helpers.stderr}")
    # A cucatch-nvcc -rdc build: its units are instrumented already (exit status 4, nothing to do).
    checked = os.path.join(w, "rdc-cucatch.exe")
    run([a.cucatch_nvcc, "-arch=sm_90", "-rdc=true", os.path.join(programs, "rdc_main.cu"),
         os.path.join(programs, "rdc_device.cu"), "-o", checked])
    already = run([a.fatbin_tool, "jit", largest_container(checked, os.path.join(w, "checked.fatbin")), "--arch",
                   "sm_90", "-o", out + ".checked", "--relocatable-from", checked], check=False)
    if already.returncode != 4 or "instrumented already" not in already.stderr:
        raise Failure(f"a cucatch-nvcc -rdc build: expected exit 4: {already.returncode} {already.stderr}")
    # PTX only: nvcc leaves the device link to the driver (adding libcudadevrt, SASS only), and
    # the image is an empty placeholder.
    ptx_only = os.path.join(w, "rdc-ptx.exe")
    run([a.nvcc, "-gencode", "arch=compute_90,code=compute_90", "-rdc=true", os.path.join(programs, "rdc_main.cu"),
         os.path.join(programs, "rdc_device.cu"), "-o", ptx_only])
    placeholder = run([a.fatbin_tool, "jit", largest_container(ptx_only, os.path.join(w, "placeholder.fatbin")),
                       "--arch", "sm_90", "-o", out + ".ptx", "--relocatable-from", ptx_only], check=False)
    if placeholder.returncode != 6 or "3 units to link again for sm_90, 2 of them instrumented (1 without PTX" \
            not in placeholder.stderr:  # the third: libcudadevrt, which nvcc adds
        raise Failure(f"PTX only: expected exit 6 and two units instrumented: {placeholder.returncode} "
                      f"{placeholder.stderr}")
    # Not the link of those units: the image of another program (SASS only, no -rdc).
    sass = os.path.join(w, "sass.exe")
    run([a.nvcc, "-gencode", "arch=compute_90,code=sm_90", KERNEL, "-o", sass])
    other = run([a.fatbin_tool, "jit", largest_container(sass, os.path.join(w, "other.fatbin")), "--arch", "sm_90",
                 "-o", out + ".2", "--relocatable-from", exe], check=False)
    if other.returncode != 3 or "not relinked from its relocatable units" not in other.stderr or \
            "which no relocatable unit of" not in other.stderr:
        raise Failure(f"another image: expected exit 3 saying it is not their link: {other.returncode} {other.stderr}")
    # A program without relocatable code: only the image's own reason.
    plain = run([a.fatbin_tool, "jit", os.path.join(w, "other.fatbin"), "--arch", "sm_90", "-o", out + ".3",
                 "--relocatable-from", sass], check=False)
    if plain.returncode != 3 or "relocatable units" in plain.stderr:
        raise Failure(f"no -rdc: expected exit 3 with the image's reason alone: {plain.returncode} {plain.stderr}")
    print(r.stderr + helpers.stderr + placeholder.stderr + other.stderr + plain.stderr, end="")


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
