#!/usr/bin/env python3
"""cuGetProcAddress hands out the newest version of an entry point for the ABI version asked for.
Where cuda.h keeps the plain name for an older signature (CUDA 13: cuCtxGetDevice and
cuCtxSynchronize gained a context argument as *_v2, with no #define), a function pointer typed
from the plain prototype calls the newer function with the wrong arguments. This checks, against
cudaTypedefs.h's PFN_<name>_v<version> typedefs:

- the runtime's own entry points (src/runtime/Driver.h, resolved at cuda.h's CUDA_VERSION): a name
  whose newest version has another signature than cuda.h's prototype for it is declared in
  CUCATCH_DRIVER_FUNCTIONS_RENAMED (with the newer signature), and only such names are;
- the hooks (src/runtime/Interposer.cpp): a HOOK or HOOK_SINCE typed from cuda.h's prototype is
  followed by a HOOK_NEWER for every later version with another signature.

usage: driver_signatures.py cuda.h cudaTypedefs.h Driver.h Interposer.cpp
"""
import re
import sys


def normalize(params):
    """A parameter list without names and without the _vN suffixes of versioned typedefs."""
    parts = []
    for p in " ".join(params.split()).split(","):
        tokens = re.sub(r"\s*\*\s*", " * ", p).split()
        if tokens == ["void"] or not tokens:
            continue
        if len(tokens) > 1 and re.fullmatch(r"\w+", tokens[-1]) and tokens[-1] not in BUILTIN:
            tokens = tokens[:-1]  # the parameter's name
        parts.append(re.sub(r"_v\d+\b", "", " ".join(tokens)))
    return tuple(parts)


BUILTIN = {"int", "char", "short", "long", "float", "double", "void"}


def main():
    cuda, typedefs, driver, interposer = (open(p).read() for p in sys.argv[1:5])
    defines = dict(re.findall(r"^\s*#define\s+(cu\w+)\s+(\S+)", cuda, flags=re.M))
    # The first declaration of a name is cuda.h's current one (the legacy ones come last).
    prototypes = {}
    for m in re.finditer(r"CUresult\s+CUDAAPI\s+(\w+)\s*\(([^;]*?)\)\s*;", cuda, flags=re.S):
        prototypes.setdefault(m.group(1), normalize(m.group(2)))
    versions = {}
    for m in re.finditer(r"typedef CUresult \(CUDAAPI \*PFN_(\w+?)_v(\d+)\)\(([^;]*?)\);", typedefs, flags=re.S):
        versions.setdefault(m.group(1), []).append((int(m.group(2)), normalize(m.group(3))))

    problems = []

    def expand(name):
        value = defines.get(name, name)
        m = re.match(r"__CUDA_API_PT(?:DS|SZ)\((\w+)\)", value)
        return m.group(1) if m else value

    def later_signatures(name):
        """(version, params) of versions newer than the one cuda.h declares under `name` (which its
        #defines may map to a versioned symbol), with another signature."""
        own = prototypes.get(name)
        known = sorted(versions.get(name, []))
        if own is None or not known:
            return []
        mine = [v for v, p in known if p == own]
        if not mine:  # the check would see nothing: say so rather than pass
            problems.append(f"cuda.h's {name} matches none of the PFN_{name}_v* typedefs")
            return []
        return [(v, p) for v, p in known if v > max(mine) and p != own]

    def listed(macro):
        m = re.search(r"#define " + macro + r"\(X\)((?:[^\n]*\\\n)*[^\n]*)", driver)
        if not m:
            sys.exit(f"Driver.h: no {macro}(X) list")
        return re.findall(r"X\((\w+)\)", m.group(1))

    plain, renamed = listed("CUCATCH_DRIVER_FUNCTIONS"), listed("CUCATCH_DRIVER_FUNCTIONS_RENAMED")
    for name in plain:
        for v, _ in later_signatures(name)[-1:]:
            problems.append(f"Driver.h: {name}: version {v} has another signature than cuda.h's {expand(name)}; "
                            f"cuGetProcAddress hands it out: move it to CUCATCH_DRIVER_FUNCTIONS_RENAMED")
    for name in renamed:
        if not later_signatures(name):
            problems.append(f"Driver.h: {name} is in CUCATCH_DRIVER_FUNCTIONS_RENAMED but has no newer signature")
    newer = {(n, int(v)) for n, v in re.findall(r"^HOOK_NEWER\((\w+), (\d+), \w+\)", interposer, flags=re.M)}
    hooks = re.findall(r"^HOOK(?:_SINCE)?\((\w+)", interposer, flags=re.M)
    for name in hooks:
        for v, _ in later_signatures(name):
            if (name, v) not in newer:
                problems.append(f"Interposer.cpp: hook {name}: version {v} has another signature than cuda.h's "
                                f"{expand(name)}: add HOOK_NEWER({name}, {v}, ...)")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(plain) + len(renamed)} runtime entry points and {len(hooks)} hooks checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
