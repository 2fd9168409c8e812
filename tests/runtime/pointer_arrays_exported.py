#!/usr/bin/env python3
"""libcucatch wraps every batched cuBLAS and cuSOLVER call that takes an array of device pointers
(the libraries' kernels read the pointers from memory, where no launch can untag them): the calls
found in the headers by src/runtime/gen-pointer-arrays.py must be among the symbols libcucatch
exports, and the list must hold the calls the cuda-samples use, so that a header change that
breaks the parsing fails here rather than leaving a batched call unwrapped.

usage: pointer_arrays_exported.py GEN-POINTER-ARRAYS.py LIBCUCATCH.so cublas:CUBLAS_API.h cusolver:CUSOLVERDN.h
"""
import importlib.util
import re
import subprocess
import sys

MUST_HAVE = {"cublasSgemmBatched", "cublasGemmBatchedEx", "cublasDgetrfBatched", "cublasDgetrsBatched",
             "cublasSgemmGroupedBatched_64", "cublasZtrsmBatched", "cublasDmatinvBatched", "cusolverDnDpotrfBatched",
             "cusolverDnZpotrsBatched"}
MUST_NOT_HAVE = {"cublasSgemmStridedBatched", "cublasGetFixedPointEmulationMantissaBitCountPointer"}


def main():
    generator, library, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    spec = importlib.util.spec_from_file_location("gen", generator)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    wrapped = set()
    for item in inputs:
        name, path = item.split(":", 1)
        for line in gen.wrappers(name, open(path).read()):
            wrapped.add(re.match(r"CUCATCH_POINTER_ARRAY_API\(\w+, (\w+),", line).group(1))
    nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True).stdout
    exported = {l.split()[-1] for l in nm.splitlines() if l.strip()}
    problems = [f"not found in the headers: {n}" for n in sorted(MUST_HAVE - wrapped)]
    problems += [f"wrapped, but it takes no array of device pointers: {n}" for n in sorted(MUST_NOT_HAVE & wrapped)]
    problems += [f"wrapped but not exported by libcucatch: {n}" for n in sorted(wrapped - exported)]
    for p in problems:
        print(p)
    print(f"{len(wrapped)} batched calls with pointer arrays wrapped and exported" if not problems else "FAIL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
