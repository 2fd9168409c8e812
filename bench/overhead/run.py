#!/usr/bin/env python3
"""Runtime overhead of cucatch, side by side with compute-sanitizer memcheck.

Runs these configurations, each as separate processes, in --repeats rounds (default 3) of one
process of each, in this order (rounds, so that a machine's drift over the run, which CPU a
process lands on and its clocks, falls on every configuration alike):

  plain     DIR/PROGRAM.plain     --reps N   (built with the real nvcc)
  cucatch   DIR/PROGRAM.cucatch   --reps N   (built with cucatch-nvcc)
  tags-off  CUCATCH_TAGS=0 DIR/PROGRAM.cucatch --reps N   (the same binary without tagged
            pointers, to tell their cost apart; --no-tags-off skips it)
  jit       CUCATCH_RUN --jit -- DIR/PROGRAM.plain --reps N   (the plain build in JIT mode, only
            with --jit CUCATCH_RUN: instrumented when it loads; the kernels' times exclude that)
  memcheck  compute-sanitizer --tool memcheck DIR/PROGRAM.plain --reps M

PROGRAM is overhead (bench/overhead: kernels, timed with CUDA events) unless --program says
host (bench/host: launches, allocations and a Thrust sort, host-timed per operation).

Each process prints one line per kernel,
  BENCH <name> median_ms=<x> min_ms=<y> reps=<n> checksum=<c>
and this script takes, per kernel and configuration, the median over the processes of
their median_ms, checks that every checksum agrees, and prints

  kernel | plain ms | cucatch ms | cucatch x | tags-off ms | tags-off x | memcheck ms |
    memcheck x | regs plain→cucatch | local B | notes

with the geometric mean and the worst case of each slowdown (x: against plain), and the
device (nvidia-smi -L).

"regs" and "local B" are the registers and the local memory (cuobjdump's STACK + LOCAL, bytes
per thread) of each benchmark's kernels in the two builds, the largest over its kernels (and
over the fatbinary's images, one per architecture; in the cucatch build a kernel and its launch
twin, src/instrument/LaunchMetadata.h, share a name, so the larger of the two), read with `cuobjdump -res-usage` (found
on PATH, else at CUOBJDUMP_FALLBACKS, where scripts/install-deps.sh puts the pip copy).
Which kernels a benchmark launches the binary itself says (PROGRAM.plain --kernel-names:
"KERNELS <bench> <function>...", the list kept next to the benchmarks in
bench/overhead/kernels.cu); each is found by its unqualified name in cuobjdump's mangled
names (unqualified_name). A figure is "n/a" unless every one of the benchmark's kernels was
found: without cuobjdump, or with a binary that has no --kernel-names, a note under the table
says why; a kernel missing from one build is named in its row's notes. They are
information, not problems: they leave the exit status alone.

Lines starting with "cucatch:" on the cucatch binary's stderr are reports on a correct
program, i.e. false positives: they are shown and their kernel's row is marked (the
binaries run with --markers, which brackets each kernel with "overhead: begin/end NAME" on
stderr). A process that dies leaves the kernels it did not reach without a result; they
are then run one process per kernel, so one crash does not hide the rest.

--json FILE (or --out FILE) saves everything. --from-json FILE prints a saved run's table,
notes, reports and problems again without running anything (no --bin-dir). --plot FILE.png
(with a run or with --from-json) draws the slowdowns against plain (cucatch, tags-off,
memcheck: those the run has) as groups of bars, one per kernel and the geomeans last, on a
log axis, the device in the title. It needs matplotlib (Debian: python3-matplotlib, for
/usr/bin/python3; scripts/install-deps.sh --bench), imported only then, and checked before
anything runs.

Exit status: 0 when every kernel has a result in every configuration, all checksums agree,
the cucatch binary printed nothing (with tags or without) and memcheck reported no errors; 1
otherwise (the table is printed either way); with --from-json, the saved run's status. 2 for
bad usage, missing programs, an unreadable --from-json file, a missing matplotlib or a plot
that could not be written.
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

BENCH_RE = re.compile(
    r"^BENCH (?P<name>\S+) median_ms=(?P<median>\S+) min_ms=(?P<min>\S+)"
    r" reps=(?P<reps>\d+) checksum=(?P<checksum>\S+)\s*$")
MARKER_RE = re.compile(r"^overhead: (?P<what>begin|end) (?P<name>\S+)\s*$")
SANITIZER_SUMMARY_RE = re.compile(r"^=+ ERROR SUMMARY: (?P<n>\d+) error")
# The first line of a compute-sanitizer report ("========= Invalid __global__ read ...",
# "========= Program hit cudaError..."); its details are indented further.
SANITIZER_REPORT_RE = re.compile(r"^=+ (?P<text>\S.*)$")
CUCATCH_PREFIX = "cucatch:"
OUTSIDE = "(outside any kernel)"
KERNELS_RE = re.compile(r"^KERNELS (?P<bench>\S+)(?P<functions>(?: \S+)*)\s*$")
# cuobjdump -res-usage: " Function NAME:" then "  REG:n STACK:n SHARED:n LOCAL:n ...".
RES_FUNCTION_RE = re.compile(r"^\s*Function (?P<name>\S+?):\s*$")
RES_USAGE_RE = re.compile(r"^\s*REG:(?P<reg>\d+) STACK:(?P<stack>\d+) .*\bLOCAL:(?P<local>\d+)")
# Where scripts/install-deps.sh puts cuobjdump when the toolkit lacks it.
CUOBJDUMP_FALLBACKS = ["/opt/cucatch-pip/cuobjdump/nvidia/cu13/bin/cuobjdump",
                       "/usr/local/cuda/bin/cuobjdump"]
# Configurations: what the table calls them, and the environment each adds.
LABELS = {"plain": "plain", "cucatch": "cucatch", "tags_off": "tags-off", "jit": "jit", "memcheck": "memcheck"}
ENVS = {"tags_off": {"CUCATCH_TAGS": "0"}}
# The length before each component of a mangled name (unqualified_name).
LENGTH_RE = re.compile(r"[1-9]\d*")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_output(stdout, stderr):
    """Parse one process's output.

    Returns a dict: results maps kernel name to {median_ms, min_ms, reps, checksum};
    cucatch_lines is a list of (kernel, line), kernel being the one running when the line
    was written (from the stderr markers); sanitizer_errors is the total of the "ERROR
    SUMMARY" lines, or None if there was none; sanitizer_reports is a list of (kernel,
    line) with the first line of each compute-sanitizer report, attributed to the kernel
    whose BENCH line follows it on stdout (or the kernel the process died in);
    bad_lines are BENCH lines that did not parse.
    """
    cucatch_lines = []
    current = OUTSIDE
    for line in stderr.splitlines():
        m = MARKER_RE.match(line)
        if m:
            current = m["name"] if m["what"] == "begin" else OUTSIDE
            continue
        if line.startswith(CUCATCH_PREFIX):
            cucatch_lines.append((current, line))
    results = {}
    bad = []
    sanitizer_errors = None
    sanitizer_reports = []
    pending = []
    for line in stdout.splitlines():
        m = BENCH_RE.match(line)
        if m:
            try:
                results[m["name"]] = {
                    "median_ms": float(m["median"]),
                    "min_ms": float(m["min"]),
                    "reps": int(m["reps"]),
                    "checksum": m["checksum"],
                }
            except ValueError:
                bad.append(line)
            sanitizer_reports += [(m["name"], p) for p in pending]
            pending = []
            continue
        if line.startswith("BENCH"):
            bad.append(line)
            continue
        s = SANITIZER_SUMMARY_RE.match(line)
        if s:
            sanitizer_errors = (sanitizer_errors or 0) + int(s["n"])
            continue
        r = SANITIZER_REPORT_RE.match(line)
        if r and not r["text"].startswith("COMPUTE-SANITIZER"):
            pending.append(line)
    # Reports after the last BENCH line: the kernel the process died in, if it did.
    sanitizer_reports += [(current, p) for p in pending]
    return {"results": results, "cucatch_lines": cucatch_lines,
            "sanitizer_errors": sanitizer_errors, "sanitizer_reports": sanitizer_reports,
            "bad_lines": bad}


def run_process(cmd, timeout, env=None):
    """Run one process; env: variables added to this process's environment."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=timeout,
                           env=dict(os.environ, **env) if env else None)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    except OSError as e:
        rc, out, err = f"could not start: {e}", "", ""
    wall = time.monotonic() - start
    parsed = parse_output(out, err)
    return {
        "command": cmd,
        "rc": rc,
        "wall_s": round(wall, 3),
        "results": parsed["results"],
        "cucatch_lines": [{"kernel": k, "line": l} for k, l in parsed["cucatch_lines"]],
        "sanitizer_errors": parsed["sanitizer_errors"],
        "sanitizer_reports": [{"kernel": k, "line": l} for k, l in parsed["sanitizer_reports"]],
        "unparsed_bench_lines": parsed["bad_lines"],
        "stderr_tail": err.splitlines()[-15:] if (rc != 0 or parsed["bad_lines"]) else [],
    }


def run_config(name, base_cmd, reps, kernels, timeout, env, number, total, earlier):
    """Run process `number` of `total` of one configuration; the kernels a crash skipped then
    run one by one (which: --kernel, the binary's list, or what the configuration's `earlier`
    runs and this one gave)."""
    cmd = base_cmd + ["--reps", str(reps), "--markers"]
    for k in kernels or []:
        cmd += ["--kernel", k]
    r = run_process(cmd, timeout, env)
    runs = [r]
    log(f"  {name} {number}/{total}: rc={r['rc']} {r['wall_s']:.1f}s, "
        f"{len(r['results'])} kernels")
    if r["rc"] == 0:
        return runs
    for line in r["stderr_tail"]:
        log(f"    | {line}")
    expected = kernels or list_kernels(base_cmd, timeout) or known_kernels(earlier + runs)
    for k in [k for k in expected if k not in r["results"]]:
        one = run_process(base_cmd + ["--reps", str(reps), "--markers", "--kernel", k], timeout, env)
        one["single_kernel"] = k
        runs.append(one)
        log(f"    {name} alone {k}: rc={one['rc']} {one['wall_s']:.1f}s")
    return runs


def known_kernels(runs):
    names = []
    for r in runs:
        for k in r["results"]:
            if k not in names:
                names.append(k)
    return names


_listed = {}


def list_kernels(base_cmd, timeout):
    """Kernel names from the binary's --list (the last argument of base_cmd is the binary
    for every configuration; --list needs no GPU)."""
    binary = base_cmd[-1]
    if binary not in _listed:
        try:
            p = subprocess.run([binary, "--list"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, timeout=timeout)
            _listed[binary] = [l.split()[0] for l in p.stdout.splitlines() if l.strip()]
        except (OSError, subprocess.TimeoutExpired):
            _listed[binary] = []
    return _listed[binary]


def median(values):
    return statistics.median(values) if values else None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def device_name():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        lines = [l.strip() for l in p.stdout.splitlines() if l.strip()]
        if p.returncode == 0 and lines:
            return "; ".join(lines)
        return f"unknown (nvidia-smi -L exited {p.returncode})"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown (nvidia-smi: {e})"


def find_sanitizer(explicit):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    fallback = "/usr/local/cuda/bin/compute-sanitizer"
    return fallback if os.access(fallback, os.X_OK) else None


def find_cuobjdump():
    found = shutil.which("cuobjdump")
    if found:
        return found
    return next((f for f in CUOBJDUMP_FALLBACKS if os.access(f, os.X_OK)), None)


def kernel_functions(binary, timeout):
    """Benchmark name -> the kernels it launches, from the binary's --kernel-names (no GPU
    needed); (None, why) when the binary cannot say, e.g. one built before the option."""
    try:
        p = subprocess.run([binary, "--kernel-names"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{os.path.basename(binary)} --kernel-names: {e}"
    functions = {}
    for line in p.stdout.splitlines():
        m = KERNELS_RE.match(line)
        if m:
            functions[m["bench"]] = m["functions"].split()
    if p.returncode != 0 or not functions:
        # An exit status of 1 and a usage message: built before --kernel-names existed.
        return None, (f"{os.path.basename(binary)} --kernel-names: exit status {p.returncode}, "
                      f"{len(functions)} KERNELS lines (built before the option?)")
    return functions, None


def resource_usage(cuobjdump, binary, timeout):
    """Mangled function name -> {reg, stack, local} from `cuobjdump -res-usage`; (None, why)
    if it failed. A fatbinary holds one ELF image per architecture, each listing the function
    again: the largest of each figure is kept, an upper bound for whichever image runs."""
    try:
        p = subprocess.run([cuobjdump, "-res-usage", binary], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"cuobjdump -res-usage {os.path.basename(binary)}: {e}"
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or [""])[-1]
        return None, (f"cuobjdump -res-usage {os.path.basename(binary)} exited {p.returncode}"
                      + (f": {err}" if err else ""))
    usage = {}
    function = None
    for line in p.stdout.splitlines():
        m = RES_FUNCTION_RE.match(line)
        if m:
            function = m["name"]
            continue
        u = RES_USAGE_RE.match(line)
        if u and function:
            old = usage.get(function, {"reg": 0, "stack": 0, "local": 0})
            usage[function] = {k: max(old[k], int(u[k])) for k in old}
            function = None
    return usage, None


def unqualified_name(mangled):
    """The source name of a kernel from its Itanium-mangled name, without a demangler.

    __global__ functions are never class members, so what precedes the function's own name
    can only be namespaces: _Z[L]<len><name>... or _Z[L]N<len><ns>...<len><name>[I...]E...
    (L: internal linkage; template arguments follow the name). The last length-prefixed
    component before anything else is the name. An unmangled (extern "C") name is returned
    as it is; None when the name does not parse.
    """
    if not mangled.startswith("_Z"):
        return mangled
    i = 3 if mangled.startswith("_ZL") else 2
    nested = mangled.startswith("N", i)
    i += nested
    name = None
    while True:
        m = LENGTH_RE.match(mangled, i)
        if not m or m.end() + int(m.group()) > len(mangled):
            break
        name = mangled[m.end():m.end() + int(m.group())]
        i = m.end() + int(m.group())
        if not nested:
            break
    return name


def bench_resources(functions, usage):
    """The most registers and STACK + LOCAL bytes over `functions` in one build's usage, and
    the functions it lacks; the figures are None unless every function was found (a maximum
    over some of them would look like a complete one)."""
    by_name = {}
    for mangled, u in usage.items():
        by_name.setdefault(unqualified_name(mangled), []).append(u)
    missing = [f for f in functions if f not in by_name]
    if missing or not functions:
        return None, None, missing
    found = [u for f in functions for u in by_name[f]]
    return max(u["reg"] for u in found), max(u["stack"] + u["local"] for u in found), []


def collect_resources(builds, timeout):
    """Registers and local memory per benchmark of each build (builds: label -> binary; the
    first one is asked for the kernel names). Returns (info for the JSON, per-benchmark
    figures: bench -> {regs_<build>, local_bytes_<build>, kernel_functions, notes})."""
    info = {"cuobjdump": find_cuobjdump(), "notes": [], "kernel_functions": None}
    functions, why = kernel_functions(next(iter(builds.values())), timeout)
    if why:
        info["notes"].append(f"regs/local n/a: {why}")
    info["kernel_functions"] = functions
    usage = {}
    if not info["cuobjdump"]:
        info["notes"].append("regs/local n/a: no cuobjdump on PATH nor in "
                             + ", ".join(CUOBJDUMP_FALLBACKS) + " (scripts/install-deps.sh)")
    elif functions is not None:
        for build, binary in builds.items():
            usage[build], why = resource_usage(info["cuobjdump"], binary, timeout)
            if why:
                info["notes"].append(f"regs/local n/a for {build}: {why}")
    per_bench = {}
    for bench, names in (functions or {}).items():
        figures = {"kernel_functions": names, "notes": []}
        if not names:
            figures["notes"].append("regs n/a: --kernel-names lists no kernels")
        for build, binary in builds.items():
            regs = local = None
            if usage.get(build) is not None and names:
                regs, local, missing = bench_resources(names, usage[build])
                if missing:
                    figures["notes"].append(f"regs n/a: {', '.join(missing)} not in "
                                            f"{os.path.basename(binary)}")
            figures[f"regs_{build}"] = regs
            figures[f"local_bytes_{build}"] = local
        per_bench[bench] = figures
    return info, per_bench


def summarize(configs, runs_by_config, expected=()):
    """Build the per-kernel rows from all runs (a row for every expected kernel too)."""
    order = list(expected)
    for c in configs:
        for k in known_kernels(runs_by_config[c]):
            if k not in order:
                order.append(k)
    rows = []
    for k in order:
        row = {"kernel": k, "notes": []}
        checksums = {}
        for c in configs:
            runs = runs_by_config[c]
            meds = [r["results"][k]["median_ms"] for r in runs if k in r["results"]]
            mins = [r["results"][k]["min_ms"] for r in runs if k in r["results"]]
            row[f"{c}_ms"] = median(meds)
            row[f"{c}_min_ms"] = min(mins) if mins else None
            row[f"{c}_process_medians_ms"] = meds
            checksums[c] = sorted({r["results"][k]["checksum"] for r in runs if k in r["results"]})
            if not meds:
                failed = [r["rc"] for r in runs if r["rc"] != 0]
                row["notes"].append(f"{LABELS[c]} FAILED"
                                    + (f" (rc {failed[-1]})" if failed else ""))
        row["checksums"] = checksums
        all_sums = {s for v in checksums.values() for s in v}
        row["checksum_ok"] = len(all_sums) <= 1
        if not row["checksum_ok"]:
            differing = [LABELS[c] for c in configs
                         if checksums[c] and checksums[c] != checksums[configs[0]]]
            varying = [LABELS[c] for c in configs if len(checksums[c]) > 1]
            what = "CHECKSUM MISMATCH"
            if differing:
                what += " (" + ",".join(differing) + " differ from " + configs[0] + ")"
            if varying:
                what += " (varies within " + ",".join(varying) + ")"
            row["notes"].append(what)
        for c in configs[1:]:
            base, val = row.get(f"{configs[0]}_ms"), row.get(f"{c}_ms")
            row[f"{c}_x"] = val / base if (base and val is not None) else None
        msgs = [m for c in configs for r in runs_by_config[c] for m in r["cucatch_lines"]
                if m["kernel"] == k]
        row["cucatch_messages"] = sorted({m["line"] for m in msgs})
        if msgs:
            row["notes"].append(f"cucatch REPORTED ({len(row['cucatch_messages'])} distinct lines)")
        reports = sorted({m["line"] for c in configs for r in runs_by_config[c]
                          for m in r["sanitizer_reports"] if m["kernel"] == k})
        row["sanitizer_reports"] = reports
        if reports:
            row["notes"].append(f"memcheck REPORTED ({len(reports)} distinct reports)")
        rows.append(row)
    return rows


def fmt_ms(v):
    if v is None:
        return "FAIL"
    # Host-path figures are microseconds: four significant digits below 1 ms.
    return f"{v:.3f}" if v >= 1 else f"{v:.4g}"


def fmt_x(v):
    return "-" if v is None else f"{v:.2f}x"


# Table header and row key prefix of the resource columns (keys: <prefix>_plain, _cucatch).
RESOURCE_COLUMNS = (("regs plain→cucatch", "regs"), ("local B", "local_bytes"))


def fmt_pair(row, key):
    """A resource figure as "plain→cucatch"; "n/a" for what is not known."""
    a, b = row.get(f"{key}_plain"), row.get(f"{key}_cucatch")
    if a is None and b is None:
        return "n/a"
    return f"{'n/a' if a is None else a}→{'n/a' if b is None else b}"


def render_table(configs, rows, summary):
    headers = ["kernel", "plain ms"]
    for c in configs[1:]:
        headers += [f"{LABELS[c]} ms", f"{LABELS[c]} x"]
    # Runs saved before the resource columns existed have none.
    resources = any("regs_plain" in r for r in rows)
    if resources:
        headers += [h for h, _ in RESOURCE_COLUMNS]
    headers.append("notes")
    body = []
    for r in rows:
        cells = [r["kernel"], fmt_ms(r["plain_ms"])]
        for c in configs[1:]:
            cells += [fmt_ms(r[f"{c}_ms"]), fmt_x(r[f"{c}_x"])]
        if resources:
            cells += [fmt_pair(r, key) for _, key in RESOURCE_COLUMNS]
        cells.append("; ".join(r["notes"]))
        body.append(cells)
    for label, key in (("geomean", "geomean"), ("worst", "worst")):
        cells = [label, ""]
        notes = []
        for c in configs[1:]:
            s = summary[c]
            cells += ["", fmt_x(s[key])]
            if key == "worst" and s[key] is not None:
                notes.append(f"{LABELS[c]}: {s['worst_kernel']}")
            elif key == "geomean":
                notes.append(f"{LABELS[c]}: {s['kernels']} kernels")
        if resources:
            cells += [""] * len(RESOURCE_COLUMNS)
        cells.append(", ".join(notes))
        body.append(cells)
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(headers)]
    numeric = {i for i, h in enumerate(headers)
               if h.endswith(" ms") or h.endswith(" x") or h in dict(RESOURCE_COLUMNS)}

    def line(cells):
        out = []
        for i, c in enumerate(cells):
            out.append(c.rjust(widths[i]) if i in numeric else c.ljust(widths[i]))
        return ("| " + " | ".join(out) + " |").rstrip()

    sep = "|" + "|".join(("-" * (w + 1) + ":") if i in numeric else ("-" * (w + 2))
                         for i, w in enumerate(widths)) + "|"
    lines = [line(headers), sep]
    lines += [line(b) for b in body[:len(rows)]]
    lines.append(sep)
    lines += [line(b) for b in body[len(rows):]]
    return "\n".join(lines)


def summarize_slowdowns(configs, rows):
    summary = {}
    for c in configs[1:]:
        xs = [(r[f"{c}_x"], r["kernel"]) for r in rows if r[f"{c}_x"] is not None]
        worst = max(xs) if xs else (None, None)
        summary[c] = {"geomean": geomean([x for x, _ in xs]), "worst": worst[0],
                      "worst_kernel": worst[1], "kernels": len(xs)}
    return summary


def add_resources(rows, info, per_bench):
    """Put each benchmark's registers and local memory (collect_resources) into its row."""
    for row in rows:
        figures = per_bench.get(row["kernel"])
        if figures is None:
            figures = {f"{k}_{b}": None for _, k in RESOURCE_COLUMNS for b in ("plain", "cucatch")}
            figures["kernel_functions"] = None
            # Without any kernel names the note above the lists says why, once.
            figures["notes"] = (["regs n/a: not in --kernel-names"]
                                if info["kernel_functions"] is not None else [])
        row["notes"] += figures["notes"]
        row.update({k: v for k, v in figures.items() if k != "notes"})


def message_lists(doc):
    """(title, [(kernel, line)]) for cucatch's reports (false positives: the programs are
    correct) and for compute-sanitizer's: per row, then those outside any row's kernel."""
    rows = doc["kernels"]
    kernel_names = {r["kernel"] for r in rows}
    lists = []
    for key, field, title in (
            ("cucatch_messages", "cucatch_lines",
             "cucatch reports on a correct program (false positives)"),
            ("sanitizer_reports", "sanitizer_reports", "compute-sanitizer reports")):
        listed = [(r["kernel"], m) for r in rows for m in r[key]]
        listed += sorted({(m["kernel"], m["line"]) for config in doc["configs"].values()
                          for run in config["runs"] for m in run[field]
                          if m["kernel"] not in kernel_names})
        lists.append((title, listed))
    return lists


def find_problems(configs, runs_by_config, rows):
    failures = []
    for c in configs:
        for run in runs_by_config[c]:
            if run["rc"] != 0:
                failures.append(f"{LABELS[c]}: {' '.join(run['command'])} -> rc {run['rc']}")
            for b in run["unparsed_bench_lines"]:
                failures.append(f"{LABELS[c]}: unparsed line: {b}")
    for r in rows:
        if all(r[f"{c}_ms"] is None for c in configs):
            failures.append(f"{r['kernel']}: no result in any configuration")
    sanitizer_errors = [run["sanitizer_errors"] for run in runs_by_config.get("memcheck", [])
                        if run["sanitizer_errors"]]
    if sanitizer_errors:
        failures.append(f"memcheck reported errors ({max(sanitizer_errors)} in one process)")
    return failures


def print_report(doc):
    """The table, the notes, the reports and the problems of a run, live or saved."""
    configs = list(doc["configs"])
    print(f"device: {doc['device']}")
    timed = "/".join(LABELS[c] for c in configs if c != "memcheck")
    print(f"reps: {timed} {doc['reps']}" +
          (f", memcheck {doc['sanitizer_reps']}" if "memcheck" in configs else "") +
          f"; {doc['repeats']} processes each;"
          " ms = median over processes of the per-process median")
    print(render_table(configs, doc["kernels"], doc["summary"]))
    for note in doc.get("resources", {}).get("notes", []):
        print(f"note: {note}")
    for title, listed in message_lists(doc):
        if listed:
            print(f"\n{title}:")
            for k, m in listed:
                print(f"  [{k}] {m}")
    if doc["problems"]:
        print("\nproblems:")
        for f in doc["problems"]:
            print(f"  {f}")


def load_pyplot():
    """matplotlib.pyplot on the Agg backend (files only, no display), or None after a
    message. Imported only for --plot: running the benchmarks needs no more than the
    standard library."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        log(f"run.py: --plot needs matplotlib ({e}): install the Debian package "
            "python3-matplotlib (for /usr/bin/python3), e.g. with scripts/install-deps.sh --bench")
        return None
    return plt


def plot(doc, path, plt):
    """One group of bars per kernel, one bar per slowdown (log axis), the geomeans last."""
    configs = [c for c in doc["configs"] if c != "plain"]
    rows = doc["kernels"]
    groups = [r["kernel"] for r in rows] + ["geomean"]
    width = 0.8 / len(configs)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.25 * len(groups) * (len(configs) + 1)), 5.0))
    heights = []
    for i, c in enumerate(configs):
        values = [r.get(f"{c}_x") for r in rows] + [doc["summary"][c]["geomean"]]
        # A kernel without a result gets no bar: a zero would read as "no overhead".
        shown = [(g + (i - (len(configs) - 1) / 2) * width, v)
                 for g, v in enumerate(values) if v]
        bars = ax.bar([x for x, _ in shown], [v for _, v in shown], width, label=LABELS[c])
        ax.bar_label(bars, fmt="%.1f", fontsize=6, rotation=90, padding=2)
        heights += [v for _, v in shown]
    ax.set_yscale("log")
    if heights:
        # Room above the tallest bar for its label and the legend; 1x always in view.
        ax.set_ylim(min(0.9, min(heights) * 0.8), max(heights) * 4)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axvline(len(rows) - 0.5, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=45, ha="right")
    ax.set_ylabel("slowdown vs plain (log scale)")
    device = re.sub(r" \(UUID: [^)]*\)", "", doc["device"])
    ax.set_title(f"cucatch overhead, {device}")
    ax.legend(loc="upper left", ncol=len(configs))
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as e:
        log(f"run.py: cannot write {path}: {e}")
        return False
    finally:
        plt.close(fig)
    log(f"wrote {path}")
    return True


def load_doc(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        for key in ("device", "configs", "kernels", "summary", "problems", "ok"):
            doc[key]
        return doc
    except (OSError, ValueError, KeyError, TypeError) as e:
        log(f"run.py: {path} is not a run saved with --json ({type(e).__name__}: {e})")
        return None


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir",
                    help="folder holding PROGRAM.plain and PROGRAM.cucatch (required unless "
                         "--from-json)")
    ap.add_argument("--program", default="overhead",
                    help="which benchmark program: overhead (kernels, default) or host (bench/host: "
                         "launches, allocations, a Thrust sort; time per operation)")
    ap.add_argument("--reps", type=int, default=20,
                    help="timed runs per kernel, plain, cucatch and tags-off (20)")
    ap.add_argument("--sanitizer-reps", type=int, default=5,
                    help="timed runs per kernel under compute-sanitizer (5)")
    ap.add_argument("--no-sanitizer", action="store_true", help="skip the compute-sanitizer runs")
    ap.add_argument("--sanitizer", help="compute-sanitizer to use (default: PATH, then /usr/local/cuda/bin)")
    ap.add_argument("--no-tags-off", action="store_true",
                    help="skip the runs of the cucatch binary with CUCATCH_TAGS=0")
    ap.add_argument("--jit", metavar="CUCATCH_RUN",
                    help="also run the plain build under `CUCATCH_RUN --jit` (JIT mode), as the column jit")
    ap.add_argument("--repeats", type=int, default=3, help="processes per configuration (3)")
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable; default: all)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per process (600)")
    ap.add_argument("--json", "--out", dest="out", metavar="FILE",
                    help="also write everything as JSON to this file")
    ap.add_argument("--from-json", metavar="FILE",
                    help="print the report of a run saved with --json; runs nothing")
    ap.add_argument("--plot", metavar="FILE.png",
                    help="draw the slowdowns as a bar chart (needs matplotlib)")
    args = ap.parse_args(argv)
    if args.from_json:
        if args.bin_dir or args.out:
            ap.error("--from-json prints a saved run: it takes no --bin-dir nor --json/--out")
    elif not args.bin_dir:
        ap.error("--bin-dir is required (unless --from-json)")
    if args.reps < 1 or args.sanitizer_reps < 1 or args.repeats < 1:
        ap.error("--reps, --sanitizer-reps and --repeats must be at least 1")
    return args


def run_benchmarks(args):
    """Run every configuration and return the document --json saves; None after a message
    when a program is missing."""
    plain = os.path.join(args.bin_dir, f"{args.program}.plain")
    cucatch = os.path.join(args.bin_dir, f"{args.program}.cucatch")
    for b in (plain, cucatch):
        if not os.access(b, os.X_OK):
            log(f"run.py: {b} is missing or not executable "
                f"(build it with `cmake --build <build> --target {args.program}-bench`)")
            return None
    commands = {"plain": [plain], "cucatch": [cucatch]}
    if not args.no_tags_off:
        commands["tags_off"] = [cucatch]
    if args.jit:
        if not os.access(args.jit, os.X_OK):
            log(f"run.py: --jit {args.jit}: not an executable cucatch-run")
            return None
        commands["jit"] = [args.jit, "--jit", "--", plain]
    sanitizer = None
    if not args.no_sanitizer:
        sanitizer = find_sanitizer(args.sanitizer)
        if not sanitizer:
            log("run.py: compute-sanitizer not found on PATH nor in /usr/local/cuda/bin "
                "(pass --sanitizer PATH or --no-sanitizer)")
            return None
        commands["memcheck"] = [sanitizer, "--tool", "memcheck", plain]
    configs = list(commands)

    device = device_name()
    log(f"device: {device}")
    runs_by_config = {c: [] for c in configs}
    reps_of = {c: args.sanitizer_reps if c == "memcheck" else args.reps for c in configs}
    for c in configs:
        shown = " ".join([f"{k}={v}" for k, v in ENVS.get(c, {}).items()] + commands[c])
        log(f"{LABELS[c]}: {shown} --reps {reps_of[c]} ({args.repeats} processes)")
    # Round by round (the docstring says why: processes of one configuration timing the host's
    # allocation pairs took from 3.1 to 8.6 us on one H100 machine within minutes).
    for i in range(args.repeats):
        for c in configs:
            runs_by_config[c] += run_config(LABELS[c], commands[c], reps_of[c], args.kernel, args.timeout,
                                            ENVS.get(c), i + 1, args.repeats, runs_by_config[c])

    expected = args.kernel or list_kernels(commands["plain"], args.timeout)
    rows = summarize(configs, runs_by_config, expected)
    info, per_bench = collect_resources({"plain": plain, "cucatch": cucatch}, args.timeout)
    add_resources(rows, info, per_bench)
    summary = summarize_slowdowns(configs, rows)
    failures = find_problems(configs, runs_by_config, rows)
    doc = {
        "device": device,
        "bin_dir": os.path.abspath(args.bin_dir),
        "reps": args.reps,
        "sanitizer_reps": args.sanitizer_reps if "memcheck" in configs else None,
        "repeats": args.repeats,
        "configs": {c: {"command": commands[c], "env": ENVS.get(c, {}),
                        "runs": runs_by_config[c]} for c in configs},
        "kernels": rows,
        "summary": summary,
        "resources": info,
        "problems": failures,
    }
    false_positives = message_lists(doc)[0][1]
    doc["ok"] = bool(not failures and not false_positives and rows and all(
        r["checksum_ok"] and not any("FAILED" in n for n in r["notes"]) for r in rows))
    return doc


def main(argv=None):
    args = parse_args(argv)
    # Before the runs: a missing matplotlib should not cost a whole benchmark run.
    plt = load_pyplot() if args.plot else None
    if args.plot and plt is None:
        return 2
    doc = load_doc(args.from_json) if args.from_json else run_benchmarks(args)
    if doc is None:
        return 2
    print_report(doc)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
        log(f"wrote {args.out}")
    if plt and not plot(doc, args.plot, plt):
        return 2
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
