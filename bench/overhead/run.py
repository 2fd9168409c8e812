#!/usr/bin/env python3
"""Runtime overhead of cucatch, side by side with compute-sanitizer memcheck.

Runs, in this order, each as separate processes, --repeats times (default 3):

  plain     DIR/PROGRAM.plain     --reps N   (built with the real nvcc)
  cucatch   DIR/PROGRAM.cucatch   --reps N   (built with cucatch-nvcc)
  memcheck  compute-sanitizer --tool memcheck DIR/PROGRAM.plain --reps M

PROGRAM is overhead (bench/overhead: kernels, timed with CUDA events) unless --program says
host (bench/host: launches, allocations and a Thrust sort, host-timed per operation).

Each process prints one line per kernel,
  BENCH <name> median_ms=<x> min_ms=<y> reps=<n> checksum=<c>
and this script takes, per kernel and configuration, the median over the processes of
their median_ms, checks that every checksum agrees, and prints

  kernel | plain ms | cucatch ms | cucatch x | memcheck ms | memcheck x | notes

with the geometric mean and the worst case of each slowdown, and the device (nvidia-smi
-L). Lines starting with "cucatch:" on the cucatch binary's stderr are reports on a correct
program, i.e. false positives: they are shown and their kernel's row is marked (the
binaries run with --markers, which brackets each kernel with "overhead: begin/end NAME" on
stderr). A process that dies leaves the kernels it did not reach without a result; they
are then run one process per kernel, so one crash does not hide the rest.

Exit status: 0 when every kernel has a result in every configuration, all checksums agree,
cucatch printed nothing and memcheck reported no errors; 1 otherwise (the table is printed
either way); 2 for bad usage or missing programs.
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


def run_process(cmd, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=timeout)
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


def run_config(name, base_cmd, reps, kernels, repeats, timeout):
    """Run one configuration `repeats` times; kernels a crash skipped run one by one."""
    runs = []
    for i in range(repeats):
        cmd = base_cmd + ["--reps", str(reps), "--markers"]
        for k in kernels or []:
            cmd += ["--kernel", k]
        r = run_process(cmd, timeout)
        runs.append(r)
        log(f"  {name} {i + 1}/{repeats}: rc={r['rc']} {r['wall_s']:.1f}s, "
            f"{len(r['results'])} kernels")
        if r["rc"] != 0:
            for line in r["stderr_tail"]:
                log(f"    | {line}")
        if r["rc"] == 0:
            continue
        expected = kernels or list_kernels(base_cmd, timeout) or known_kernels(runs)
        missing = [k for k in expected if k not in r["results"]]
        if missing:
            for k in missing:
                one = run_process(base_cmd + ["--reps", str(reps), "--markers", "--kernel", k],
                                  timeout)
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
                row["notes"].append(f"{c} FAILED" + (f" (rc {failed[-1]})" if failed else ""))
        row["checksums"] = checksums
        all_sums = {s for v in checksums.values() for s in v}
        row["checksum_ok"] = len(all_sums) <= 1
        if not row["checksum_ok"]:
            differing = [c for c in configs if checksums[c] and checksums[c] != checksums[configs[0]]]
            varying = [c for c in configs if len(checksums[c]) > 1]
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


def render_table(configs, rows, summary):
    headers = ["kernel", "plain ms"]
    if "cucatch" in configs:
        headers += ["cucatch ms", "cucatch x"]
    if "memcheck" in configs:
        headers += ["memcheck ms", "memcheck x"]
    headers.append("notes")
    body = []
    for r in rows:
        cells = [r["kernel"], fmt_ms(r["plain_ms"])]
        for c in configs[1:]:
            cells += [fmt_ms(r[f"{c}_ms"]), fmt_x(r[f"{c}_x"])]
        cells.append("; ".join(r["notes"]))
        body.append(cells)
    for label, key in (("geomean", "geomean"), ("worst", "worst")):
        cells = [label, ""]
        notes = []
        for c in configs[1:]:
            s = summary[c]
            cells += ["", fmt_x(s[key])]
            if key == "worst" and s[key] is not None:
                notes.append(f"{c}: {s['worst_kernel']}")
            elif key == "geomean":
                notes.append(f"{c}: {s['kernels']} kernels")
        cells.append(", ".join(notes))
        body.append(cells)
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(headers)]
    numeric = {i for i, h in enumerate(headers) if h.endswith(" ms") or h.endswith(" x")}

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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True,
                    help="folder holding PROGRAM.plain and PROGRAM.cucatch")
    ap.add_argument("--program", default="overhead",
                    help="which benchmark program: overhead (kernels, default) or host (bench/host: "
                         "launches, allocations, a Thrust sort; time per operation)")
    ap.add_argument("--reps", type=int, default=20, help="timed runs per kernel, plain and cucatch (20)")
    ap.add_argument("--sanitizer-reps", type=int, default=5,
                    help="timed runs per kernel under compute-sanitizer (5)")
    ap.add_argument("--no-sanitizer", action="store_true", help="skip the compute-sanitizer runs")
    ap.add_argument("--sanitizer", help="compute-sanitizer to use (default: PATH, then /usr/local/cuda/bin)")
    ap.add_argument("--repeats", type=int, default=3, help="processes per configuration (3)")
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable; default: all)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per process (600)")
    ap.add_argument("--out", help="also write everything as JSON to this file")
    args = ap.parse_args(argv)
    if args.reps < 1 or args.sanitizer_reps < 1 or args.repeats < 1:
        ap.error("--reps, --sanitizer-reps and --repeats must be at least 1")

    plain = os.path.join(args.bin_dir, f"{args.program}.plain")
    cucatch = os.path.join(args.bin_dir, f"{args.program}.cucatch")
    for b in (plain, cucatch):
        if not os.access(b, os.X_OK):
            log(f"run.py: {b} is missing or not executable "
                f"(build it with `cmake --build <build> --target {args.program}-bench`)")
            return 2
    commands = {"plain": [plain], "cucatch": [cucatch]}
    sanitizer = None
    if not args.no_sanitizer:
        sanitizer = find_sanitizer(args.sanitizer)
        if not sanitizer:
            log("run.py: compute-sanitizer not found on PATH nor in /usr/local/cuda/bin "
                "(pass --sanitizer PATH or --no-sanitizer)")
            return 2
        commands["memcheck"] = [sanitizer, "--tool", "memcheck", plain]
    configs = list(commands)

    device = device_name()
    log(f"device: {device}")
    runs_by_config = {}
    for c in configs:
        reps = args.sanitizer_reps if c == "memcheck" else args.reps
        log(f"{c}: {' '.join(commands[c])} --reps {reps} ({args.repeats} processes)")
        runs_by_config[c] = run_config(c, commands[c], reps, args.kernel, args.repeats, args.timeout)

    expected = args.kernel or list_kernels(commands["plain"], args.timeout)
    rows = summarize(configs, runs_by_config, expected)
    summary = {}
    for c in configs[1:]:
        xs = [(r[f"{c}_x"], r["kernel"]) for r in rows if r[f"{c}_x"] is not None]
        worst = max(xs) if xs else (None, None)
        summary[c] = {"geomean": geomean([x for x, _ in xs]), "worst": worst[0],
                      "worst_kernel": worst[1], "kernels": len(xs)}

    print(f"device: {device}")
    print(f"reps: plain/cucatch {args.reps}" +
          (f", memcheck {args.sanitizer_reps}" if "memcheck" in configs else "") +
          f"; {args.repeats} processes each; ms = median over processes of the per-process median")
    print(render_table(configs, rows, summary))

    kernel_names = {r["kernel"] for r in rows}
    for key, field, title in (
            ("cucatch_messages", "cucatch_lines",
             "cucatch reports on a correct program (false positives)"),
            ("sanitizer_reports", "sanitizer_reports", "compute-sanitizer reports")):
        listed = [(r["kernel"], m) for r in rows for m in r[key]]
        listed += sorted({(m["kernel"], m["line"]) for c in configs for run in runs_by_config[c]
                          for m in run[field] if m["kernel"] not in kernel_names})
        if listed:
            print(f"\n{title}:")
            for k, m in listed:
                print(f"  [{k}] {m}")
        if key == "cucatch_messages":
            messages = listed

    failures = []
    for c in configs:
        for run in runs_by_config[c]:
            if run["rc"] != 0:
                failures.append(f"{c}: {' '.join(run['command'])} -> rc {run['rc']}")
            for b in run["unparsed_bench_lines"]:
                failures.append(f"{c}: unparsed line: {b}")
    for r in rows:
        if all(r[f"{c}_ms"] is None for c in configs):
            failures.append(f"{r['kernel']}: no result in any configuration")
    sanitizer_errors = [run["sanitizer_errors"] for run in runs_by_config.get("memcheck", [])
                        if run["sanitizer_errors"]]
    if sanitizer_errors:
        failures.append(f"memcheck reported errors ({max(sanitizer_errors)} in one process)")
    if failures:
        print("\nproblems:")
        for f in failures:
            print(f"  {f}")

    ok = (not failures and not messages and rows
          and all(r["checksum_ok"] and not any("FAILED" in n for n in r["notes"]) for r in rows))

    if args.out:
        doc = {
            "device": device,
            "bin_dir": os.path.abspath(args.bin_dir),
            "reps": args.reps,
            "sanitizer_reps": args.sanitizer_reps if "memcheck" in configs else None,
            "repeats": args.repeats,
            "configs": {c: {"command": commands[c], "runs": runs_by_config[c]} for c in configs},
            "kernels": rows,
            "summary": summary,
            "problems": failures,
            "ok": bool(ok),
        }
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        log(f"wrote {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
