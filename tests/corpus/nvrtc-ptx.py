#!/usr/bin/env python3
"""Compile a .cu file to PTX with an NVRTC shared library (an older toolkit's, from pip).

Usage: nvrtc-ptx.py LIBNVRTC.so IN.cu OUT.ptx [nvrtc options...]
Prints the compile log and exits 1 on failure.
"""
import ctypes
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    lib = ctypes.CDLL(sys.argv[1])
    src = open(sys.argv[2], "rb").read()
    opts = [o.encode() for o in sys.argv[4:]]
    prog = ctypes.c_void_p()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), src, sys.argv[2].encode(), 0, None, None), "create")
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        sys.stderr.write(log.value.decode(errors="replace"))
        print(f"nvrtc-ptx: compiling {sys.argv[2]} failed ({rc})", file=sys.stderr)
        return 1
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    check(lib, lib.nvrtcGetPTX(prog, ptx), "get PTX")
    with open(sys.argv[3], "wb") as f:
        f.write(ptx.value)
    return 0


def check(lib, rc, what):
    if rc != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        raise SystemExit(f"nvrtc-ptx: {what}: {lib.nvrtcGetErrorString(rc).decode()}")


if __name__ == "__main__":
    sys.exit(main())
