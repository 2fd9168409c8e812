#!/usr/bin/env python3
"""Every cuda.h entry point that takes or returns a device address, checked against the table in
docs/driver-api.md, which says how cucatch treats each one; entry points the table says cucatch
wraps must be exported by libcucatch (the hooks' names, gen-exports.py).

An entry point "takes a device address" when a parameter is a CUdeviceptr (or pointer to one), a
struct or union (followed through nested members) with a CUdeviceptr member or a void* member
named like an address (base_ptr, globalAddress, devPtr...), kernel parameters (kernelParams), or
a void* parameter named like a device address. A new toolkit's additions show up here as rows
missing from the table.

usage: driver_api_survey.py CUDA.h docs/driver-api.md libcucatch.so
       driver_api_survey.py --list CUDA.h      (what the survey finds, one line each)
"""
import re
import subprocess
import sys

ADDRESS_FIELDS = {"base_ptr", "globalAddress", "devPtr", "kernelParams"}
ADDRESS_PARAMS = {"dptr", "devPtr", "globalAddress", "dev_ptr", "ptr"}
DEVICE_TYPES = {"CUdeviceptr", "CUdeviceptr_v1", "CUdeviceptr_v2"}
WRAPPED = ("tracked", "untagged", "retagged", "launch")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def structs_of(src):
    """typedef name -> body text, for every typedef'd struct or union."""
    out = {}
    for m in re.finditer(r"typedef\s+(?:struct|union)\s+(\w+)?\s*\{", src):
        i, depth = m.end(), 1
        while depth:
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        body = src[m.end():i - 1]
        names = [n.strip().lstrip("*") for n in src[i:src.index(";", i)].split(",")]
        for n in names + [m.group(1) or ""]:
            if n:
                out[n] = body
    for m in re.finditer(r"typedef\s+(\w+)\s+(\w+)\s*;", src):
        if m.group(1) in out:
            out[m.group(2)] = out[m.group(1)]
    return out


def survey(cuda_h):
    src = strip_comments(open(cuda_h).read())
    structs = structs_of(src)
    memo = {}

    def addresses(name, seen=()):
        if name in memo:
            return memo[name]
        if name not in structs or name in seen:
            return []
        found = []
        for typ, field in re.findall(r"(\w+)\s*\**\s*(\w+)\s*(?:\[[^\]]*\])?\s*;", structs[name]):
            if typ in DEVICE_TYPES or (typ == "void" and field in ADDRESS_FIELDS):
                found.append(field)
            elif typ in structs and typ != name:
                found += [f"{typ}.{x}" for x in addresses(typ, seen + (name,))]
        memo[name] = found
        return found

    result = {}
    for name, params in re.findall(r"CUresult\s+CUDAAPI\s+(\w+)\s*\(([^;]*?)\)\s*;", src, flags=re.S):
        base = re.sub(r"(_v\d+)?(_ptsz|_ptds)?$", "", name)
        why = []
        for p in " ".join(params.split()).split(","):
            words = re.findall(r"\w+", p)
            if not words:
                continue
            if any(w in DEVICE_TYPES for w in words):
                why.append(p.strip())
            elif any(w in structs and addresses(w) for w in words):
                t = next(w for w in words if w in structs and addresses(w))
                why.append(f"{p.strip()} {{{', '.join(sorted(set(addresses(t))))}}}")
            elif "void" in words and "*" in p and words[-1] in ADDRESS_PARAMS | {"kernelParams"}:
                why.append(p.strip())
        if why:
            result.setdefault(base, set()).update(why)
    return result


def table(md):
    rows = {}
    for line in open(md):
        m = re.match(r"\|\s*`(cu[A-Z]\w*)`\s*\|\s*([^|]+?)\s*\|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def main():
    if sys.argv[1] == "--list":
        for name, why in sorted(survey(sys.argv[2]).items()):
            print(f"{name}: {'; '.join(sorted(why))}")
        return 0
    cuda_h, md, lib = sys.argv[1:4]
    found = survey(cuda_h)
    rows = table(md)
    exported = set(subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                                  check=True).stdout.split())
    declared = set(re.findall(r"CUresult\s+CUDAAPI\s+(\w+)\s*\(", strip_comments(open(cuda_h).read())))
    failures = []
    for name in sorted(found):
        if name not in rows:
            failures.append(f"{name} takes a device address ({'; '.join(sorted(found[name]))}) but {md} has no row for it")
    for name, treatment in sorted(rows.items()):
        if not any(d == name or re.fullmatch(name + r"(_v\d+)?(_ptsz|_ptds)?", d) for d in declared):
            failures.append(f"{md} lists {name}, which cuda.h does not declare")
        kind = treatment.split()[0].strip("*:;,").lower()
        if kind in WRAPPED and not any(re.fullmatch(name + r"(_v\d+)?(_ptsz|_ptds)?", e) for e in exported):
            failures.append(f"{md} says cucatch wraps {name} ({kind}), but libcucatch does not export it")
        if kind not in WRAPPED + ("raw", "untracked", "unneeded"):
            failures.append(f"{md}: {name}: unknown treatment '{kind}'")
    # A program built with --default-stream per-thread calls the per-thread variant of each
    # wrapped entry point: exported too.
    header = open(cuda_h).read()
    for name, api, mapped in re.findall(r"^\s*#define\s+(cu\w+)\s+__CUDA_API_PT(DS|SZ)\((\w+)\)", header, flags=re.M):
        if mapped in exported and f"{mapped}_pt{api.lower()}" not in exported:
            failures.append(f"libcucatch exports {mapped} but not its per-thread variant {mapped}_pt{api.lower()}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(found)} entry points take device addresses; {len(rows)} rows; {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
