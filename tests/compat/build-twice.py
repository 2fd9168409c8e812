#!/usr/bin/env python3
"""Builds a CUDA project twice, with nvcc and with cucatch-nvcc, runs its programs (or its own
tests) in both builds, and prints which ones behave differently: the check a user runs on their
own code base before adopting cucatch. Any program that passes with nvcc and fails with
cucatch-nvcc is cucatch's defect (or a real memory bug cucatch found: the report says which).

  build-twice.py SOURCE --cucatch-nvcc PATH [options]

Build systems:
  --build-system cmake (default when SOURCE/CMakeLists.txt exists): configured twice with
      -DCMAKE_CUDA_COMPILER=nvcc / cucatch-nvcc (plus --cmake-arg ...), built with --jobs.
  --build-system make: SOURCE is copied twice and built with `make NVCC=... CUDA_PATH=...`
      (plus --make-arg ...).

What runs:
  --tests ctest: the project's CTest tests, by name.
  --tests executables (default): every executable file the build produced (not shared
      libraries), each in its own directory, with the arguments --args-config gives it (JSON, as
      cuda-samples' test_args.json: program name -> {"args": [...]}, {"runs": [{"args": [...]},
      ...]} or {"skip": true}); a program passes when it exits 0 within --timeout.

A program of the cucatch build that does not load the cucatch runtime (one linked by g++ or ld
rather than nvcc: a host-only program, a driver-API program that loads a fatbinary file, a
program whose only device code is in precompiled libraries) runs unchecked: its kernels'
checks have no tables, and its allocations are not tracked. The report names these programs.
--cucatch-run PATH runs every program of the cucatch build under cucatch-run, which preloads
the runtime, so that they are checked too (as a user would run such a program).

The report lists, per program: both outcomes, and for the cucatch build its "cucatch:" lines.
Exit status 1 when some program passes with nvcc and fails with cucatch-nvcc.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time


def log(msg):
    print(msg, flush=True)


def run(cmd, cwd=None, env=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=timeout)


def build_cmake(a, source, build, compiler):
    cmd = ["cmake", "-S", source, "-B", build, "-G", "Ninja" if shutil.which("ninja") else "Unix Makefiles",
           f"-DCMAKE_CUDA_COMPILER={compiler}"] + [f"-D{x}" for x in a.cmake_arg]
    p = run(cmd)
    if p.returncode != 0:
        return f"cmake configure failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    # Keep going past a failing target: each program is judged on its own.
    targets = [x for t in a.target for x in ("--target", t)]
    p = run(["cmake", "--build", build, "-j", str(a.jobs)] + targets + ["--", "-k", "0" if shutil.which("ninja") else "-k"])
    with open(os.path.join(build, "cucatch-build.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    return None


def build_make(a, source, build, compiler):
    shutil.copytree(source, build, dirs_exist_ok=True, symlinks=True)
    cuda = os.path.dirname(os.path.dirname(os.path.realpath(a.nvcc)))
    p = run(["make", "-k", f"-j{a.jobs}", f"NVCC={compiler}", f"CUDA_PATH={cuda}"] + a.make_arg, cwd=build)
    with open(os.path.join(build, "cucatch-build.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    return None


def executables(build):
    found = {}
    for root, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        for name in files:
            path = os.path.join(root, name)
            if name.endswith((".so", ".a", ".o", ".sh", ".py")) or ".so." in name or not os.access(path, os.X_OK):
                continue
            with open(path, "rb") as f:
                if f.read(4) != b"\x7fELF":
                    continue
            found.setdefault(name, path)  # the first of a name (cuda-samples names are unique)
    return found


def loads_runtime(path):
    """Whether the program loads libcucatch (itself or through a shared library it links), as
    the dynamic loader resolves it; None where ldd cannot tell."""
    if not shutil.which("ldd"):
        return None
    p = run(["ldd", path])
    if p.returncode != 0:
        return None
    return "libcucatch" in p.stdout


def run_program(path, args, timeout, env, prefix=()):
    start = time.time()
    try:
        p = run(list(prefix) + [path] + args, cwd=os.path.dirname(path), env=env, timeout=timeout)
        code, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        code, out = "timeout", (e.stdout or "") if isinstance(e.stdout, str) else ""
    return {"code": code, "seconds": round(time.time() - start, 1), "output": out}


def run_executables(a, builds, names):
    config = json.load(open(a.args_config)) if a.args_config else {}
    env = dict(os.environ)
    jobs = []
    for name in sorted(names):
        entry = config.get(name, {})
        if entry.get("skip"):
            continue
        arg_lists = [r.get("args", []) for r in entry["runs"]] if "runs" in entry else [entry.get("args", [])]
        for i, args in enumerate(arg_lists):
            label = name if len(arg_lists) == 1 else f"{name}#{i}"
            for which, build in builds.items():
                jobs.append((label, which, build[name], args))
    prefixes = {"nvcc": (), "cucatch": (os.path.abspath(a.cucatch_run), "--") if a.cucatch_run else ()}
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.parallel) as pool:
        futures = {pool.submit(run_program, path, args, a.timeout, env, prefixes[which]): (label, which)
                   for label, which, path, args in jobs}
        for f in concurrent.futures.as_completed(futures):
            label, which = futures[f]
            results.setdefault(label, {})[which] = f.result()
    return results


def run_ctest(a, builds):
    results = {}
    for which, build in builds.items():
        p = run(["ctest", "--test-dir", build, "-j", str(a.parallel), "--timeout", str(a.timeout),
                 "--output-junit", os.path.join(build, "cucatch-ctest.xml")])
        import xml.etree.ElementTree as ET
        try:
            tree = ET.parse(os.path.join(build, "cucatch-ctest.xml"))
        except (OSError, ET.ParseError):
            continue
        for case in tree.getroot().iter("testcase"):
            failed = case.find("failure") is not None or case.get("status") == "fail"
            out = "".join(x.text or "" for x in case.iter("system-out"))
            results.setdefault(case.get("name"), {})[which] = {"code": 1 if failed else 0, "output": out}
    return results


def passed(r):
    return r is not None and r["code"] == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source")
    ap.add_argument("--cucatch-nvcc", required=True)
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--build-system", choices=["cmake", "make"])
    ap.add_argument("--cmake-arg", action="append", default=[], help="NAME=VALUE for both configurations")
    ap.add_argument("--make-arg", action="append", default=[])
    ap.add_argument("--tests", choices=["executables", "ctest"], default="executables")
    ap.add_argument("--args-config", help="JSON: program -> argument lists (cuda-samples' test_args.json)")
    ap.add_argument("--work", default="build-twice")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--parallel", type=int, default=4, help="programs run at a time")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--cucatch-run", help="run the cucatch build's programs under this cucatch-run")
    ap.add_argument("--target", action="append", default=[], help="build only these CMake targets (repeatable)")
    ap.add_argument("--build-only", action="store_true", help="build both and list the programs, run nothing")
    ap.add_argument("--skip-build", action="store_true", help="use the builds already in --work")
    ap.add_argument("--json", help="also write the results here")
    a = ap.parse_args()
    source = os.path.abspath(a.source)
    system = a.build_system or ("cmake" if os.path.exists(os.path.join(source, "CMakeLists.txt")) else "make")
    os.makedirs(a.work, exist_ok=True)
    builds = {"nvcc": os.path.abspath(os.path.join(a.work, "nvcc")),
              "cucatch": os.path.abspath(os.path.join(a.work, "cucatch"))}
    compilers = {"nvcc": os.path.abspath(a.nvcc), "cucatch": os.path.abspath(a.cucatch_nvcc)}
    for which in builds:
        if a.skip_build:
            break
        start = time.time()
        error = (build_cmake if system == "cmake" else build_make)(a, source, builds[which], compilers[which])
        if error:
            log(f"{which}: {error}")
            return 2
        log(f"built with {which} in {time.time() - start:.0f} s ({builds[which]})")
    if a.tests == "executables":
        found = {w: executables(b) for w, b in builds.items()}
        only_plain = sorted(set(found["nvcc"]) - set(found["cucatch"]))
        without = []
        for name in only_plain:
            log(f"BUILD DIFFERS: {name} built with nvcc but not with cucatch-nvcc (see {builds['cucatch']}/cucatch-build.log)")
        names = set(found["nvcc"]) & set(found["cucatch"])
        log(f"{len(names)} programs in both builds")
        without = sorted(n for n in names if loads_runtime(found["cucatch"][n]) is False)
        if without:
            log(f"{len(without)} programs of the cucatch build do not load the cucatch runtime "
                f"(linked without nvcc){', and run under cucatch-run' if a.cucatch_run else ': they run unchecked (use --cucatch-run)'}: "
                + " ".join(without))
        if a.build_only:
            return 1 if only_plain else 0
        results = run_executables(a, found, names)
    else:
        only_plain, without = [], []
        if a.build_only:
            return 0
        results = run_ctest(a, builds)

    broken, reported, both_fail, same = [], [], [], []
    for name in sorted(results):
        p, c = results[name].get("nvcc"), results[name].get("cucatch")
        ours = [l for l in (c or {}).get("output", "").splitlines() if l.startswith("cucatch:")]
        if passed(p) and not passed(c):
            (reported if any(l.startswith("cucatch: ERROR") for l in ours) else broken).append((name, p, c, ours))
        elif not passed(p) and not passed(c):
            both_fail.append(name)
        else:
            same.append((name, ours))
    log("")
    log(f"{len(same)} behave the same, {len(both_fail)} fail in both builds, "
        f"{len(reported)} fail with cucatch reporting a memory error, {len(broken)} broken by cucatch")
    for title, group in (("BROKEN BY CUCATCH (passes with nvcc)", broken), ("REPORTED BY CUCATCH", reported)):
        for name, p, c, ours in group:
            log(f"{title}: {name}: nvcc exit {p['code']}, cucatch-nvcc exit {c['code'] if c else 'not run'}")
            for line in (ours or (c or {}).get("output", "").splitlines()[-8:])[:20]:
                log(f"    {line}")
    for name, ours in same:
        if ours:
            log(f"same outcome, but cucatch said: {name}: {ours[0]}")
    if both_fail:
        log("fail in both builds: " + " ".join(both_fail))
    if a.json:
        json.dump({"results": results, "only_built_with_nvcc": only_plain, "without_runtime": without}, open(a.json, "w"), indent=1)
    return 1 if broken or only_plain else 0


if __name__ == "__main__":
    sys.exit(main())
