#!/usr/bin/env python3
"""Compile one .cu file to PTX with an NVRTC shared library (an older toolkit's, from pip).

Usage: nvrtc-ptx.py LIBNVRTC.so IN.cu OUT.ptx [nvrtc options...]
       nvrtc-ptx.py LIBNVRTC.so --version

Typical options: --gpu-architecture=compute_80 -default-device -std=c++17 [-lineinfo | -G]
[-rdc=true]. The program is named after the basename of IN.cu, so `.file` directives and the
hashes NVRTC derives from the name do not depend on where the checkout lives. NVRTC has no
include path: only its built-in headers are available (no <cstdio>, <cuda_fp16.h>, CUB...).

On failure prints the compile log to stderr and exits 1 (OUT.ptx is not written); on success a
non-empty log (warnings) is printed to stderr too.
"""
import ctypes
import os
import sys


def load(path):
    lib = ctypes.CDLL(path)
    c_p = ctypes.c_void_p
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
    lib.nvrtcVersion.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
    lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(c_p), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
    lib.nvrtcCompileProgram.argtypes = [c_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    for fn in ("nvrtcGetProgramLogSize", "nvrtcGetPTXSize"):
        getattr(lib, fn).argtypes = [c_p, ctypes.POINTER(ctypes.c_size_t)]
    for fn in ("nvrtcGetProgramLog", "nvrtcGetPTX"):
        getattr(lib, fn).argtypes = [c_p, ctypes.c_char_p]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(c_p)]
    return lib


def check(lib, rc, what):
    if rc != 0:
        raise SystemExit(f"nvrtc-ptx: {what}: {lib.nvrtcGetErrorString(rc).decode()}")


def main(argv):
    if len(argv) == 3 and argv[2] == "--version":
        lib = load(argv[1])
        major, minor = ctypes.c_int(), ctypes.c_int()
        check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "version")
        print(f"{major.value}.{minor.value}")
        return 0
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    lib_path, src_path, out_path, opts = argv[1], argv[2], argv[3], argv[4:]
    lib = load(lib_path)
    with open(src_path, "rb") as f:
        src = f.read()
    name = os.path.basename(src_path).encode()
    prog = ctypes.c_void_p()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), src, name, 0, None, None), "nvrtcCreateProgram")
    try:
        copts = (ctypes.c_char_p * max(1, len(opts)))(*[o.encode() for o in opts])
        rc = lib.nvrtcCompileProgram(prog, len(opts), copts)
        size = ctypes.c_size_t()
        check(lib, lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)), "nvrtcGetProgramLogSize")
        log = ctypes.create_string_buffer(size.value)
        check(lib, lib.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
        text = log.value.decode(errors="replace").strip()
        if rc != 0:
            sys.stderr.write(text + "\n")
            print(f"nvrtc-ptx: compiling {src_path} ({' '.join(opts)}) failed: "
                  f"{lib.nvrtcGetErrorString(rc).decode()}", file=sys.stderr)
            return 1
        if text:
            sys.stderr.write(f"nvrtc-ptx: {src_path}: {text}\n")
        check(lib, lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
        ptx = ctypes.create_string_buffer(size.value)
        check(lib, lib.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(ptx.value)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
