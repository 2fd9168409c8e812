#!/usr/bin/env python3
"""Runs cucatch's GPU suite: the bug programs (each must be reported) and the clean
programs (each must run silently with the same output as the plain nvcc build).

For every program NAME.cu in --src-dir, --bin-dir must hold NAME.plain (built by nvcc)
and NAME.cucatch (built by cucatch-nvcc); the gpu-suite CMake target builds both.

The first line of each program says what is expected:

  // cucatch-expect: clean
  // cucatch-expect: KIND [ACCESS SIZE] [kernel=SUBSTRING] [memory=MEMORY]

KIND is out-of-bounds, use-after-free, double-free or invalid-free; ACCESS is read,
write or atomic and SIZE the access size in bytes (kernel bugs only); kernel= is a
substring of the demangled kernel name; memory= the allocation's kind in the report
(device, pitched, managed, host-mapped, stream-ordered; shared or local for on-chip
memory, which has no heap allocation). The line of a kernel bug's bad access carries
the comment `// cucatch-bug-line`.

Exit status: 0 all passed, 1 something failed (or the binaries are missing), 77 no GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("out-of-bounds", "use-after-free", "double-free", "invalid-free")
ACCESSES = ("read", "write", "atomic")
KEYS = ("kernel", "memory")
ON_CHIP = ("shared", "local")  # no heap allocation behind the access
EXPECT_RE = re.compile(r"^\s*//\s*cucatch-expect:\s*(.*?)\s*$")
BUG_LINE_MARK = "// cucatch-bug-line"
SKIP = 77
STDERR_TAIL_LINES = 25


class AnnotationError(Exception):
    pass


@dataclass
class Expectation:
    name: str                 # program name without .cu
    source: Path
    kind: str                 # "clean" or one of KINDS
    access: str | None = None
    size: int | None = None
    keys: dict = field(default_factory=dict)
    bug_line: int | None = None

    @property
    def clean(self):
        return self.kind == "clean"

    @property
    def kernel_bug(self):
        return self.access is not None

    def describe(self):
        if self.clean:
            return "clean"
        parts = [self.kind]
        if self.access:
            parts += [self.access, str(self.size)]
        parts += [f"{k}={v}" for k, v in self.keys.items()]
        if self.bug_line:
            parts.append(f"line={self.bug_line}")
        return " ".join(parts)


def parse_annotation(source: Path) -> Expectation:
    """Reads the expectation of one program; raises AnnotationError if it is malformed."""
    lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
    name = source.stem
    m = EXPECT_RE.match(lines[0]) if lines else None
    if not m:
        raise AnnotationError(f"{source.name}: the first line must be '// cucatch-expect: ...'")
    tokens = m.group(1).split()
    if not tokens:
        raise AnnotationError(f"{source.name}: empty cucatch-expect annotation")
    bug_lines = [i + 1 for i, line in enumerate(lines) if BUG_LINE_MARK in line]
    kind = tokens.pop(0)
    if kind == "clean":
        if tokens:
            raise AnnotationError(f"{source.name}: 'clean' takes no arguments, got {' '.join(tokens)!r}")
        if bug_lines:
            raise AnnotationError(f"{source.name}: a clean program has a cucatch-bug-line (line {bug_lines[0]})")
        return Expectation(name, source, kind)
    if kind not in KINDS:
        raise AnnotationError(f"{source.name}: unknown kind {kind!r} (expected clean or one of {', '.join(KINDS)})")
    exp = Expectation(name, source, kind)
    if tokens and "=" not in tokens[0]:
        if len(tokens) < 2 or tokens[0] not in ACCESSES or not tokens[1].isdigit():
            raise AnnotationError(f"{source.name}: expected ACCESS SIZE after {kind} "
                                  f"(ACCESS one of {', '.join(ACCESSES)}), got {' '.join(tokens[:2])!r}")
        exp.access, exp.size = tokens[0], int(tokens[1])
        tokens = tokens[2:]
    for tok in tokens:
        key, sep, value = tok.partition("=")
        if not sep or key not in KEYS or not value:
            raise AnnotationError(f"{source.name}: bad token {tok!r} (expected one of "
                                  f"{', '.join(k + '=VALUE' for k in KEYS)})")
        exp.keys[key] = value
    if exp.kernel_bug:
        if exp.kind in ("double-free", "invalid-free"):
            raise AnnotationError(f"{source.name}: {exp.kind} is a host error; it takes no ACCESS SIZE")
        if len(bug_lines) != 1:
            raise AnnotationError(f"{source.name}: a kernel bug needs exactly one '{BUG_LINE_MARK}' "
                                  f"line, found {len(bug_lines)}")
        exp.bug_line = bug_lines[0]
    else:
        if exp.kind in ("out-of-bounds", "use-after-free"):
            raise AnnotationError(f"{source.name}: {exp.kind} needs ACCESS SIZE")
        if bug_lines:
            raise AnnotationError(f"{source.name}: a host bug has a cucatch-bug-line (line {bug_lines[0]})")
        if exp.keys:
            raise AnnotationError(f"{source.name}: {exp.kind} takes no kernel=/memory=")
    return exp


# ---- running one binary

@dataclass
class Run:
    argv: list
    rc: int | None            # None: timed out
    stdout: str
    stderr: str
    seconds: float

    def status(self):
        if self.rc is None:
            return "timed out"
        if self.rc < 0:
            try:
                return f"killed by {signal.Signals(-self.rc).name}"
            except ValueError:
                return f"killed by signal {-self.rc}"
        return f"exit {self.rc}"


def run_binary(path: Path, env: dict, timeout: float) -> Run:
    start = time.monotonic()
    proc = subprocess.Popen([str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        rc = None
    return Run([str(path)], rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
               time.monotonic() - start)


def tail(text: str, n: int = STDERR_TAIL_LINES) -> str:
    lines = text.rstrip("\n").splitlines()
    if not lines:
        return "    (stderr empty)"
    shown = lines[-n:]
    prefix = [f"    ... ({len(lines) - n} earlier lines)"] if len(lines) > n else []
    return "\n".join(prefix + ["    " + line for line in shown])


# ---- checking a report

def error_mismatches(exp: Expectation, err: dict) -> list:
    """What in one JSON error record disagrees with the expectation (empty: it matches)."""
    bad = []
    if err.get("kind") != exp.kind:
        bad.append(f"kind {err.get('kind')!r} != {exp.kind!r}")
    if exp.access is not None and err.get("access") != exp.access:
        bad.append(f"access {err.get('access')!r} != {exp.access!r}")
    if exp.size is not None:
        try:
            size_ok = int(err.get("size")) == exp.size
        except (TypeError, ValueError):
            size_ok = False
        if not size_ok:
            bad.append(f"size {err.get('size')!r} != {exp.size}")
    if "kernel" in exp.keys:
        kernel = err.get("kernel") or ""
        if exp.keys["kernel"] not in kernel:
            bad.append(f"kernel {kernel!r} does not contain {exp.keys['kernel']!r}")
    if exp.bug_line is not None:
        if err.get("line") != exp.bug_line:
            bad.append(f"line {err.get('line')!r} != {exp.bug_line}")
        file = err.get("file") or ""
        if os.path.basename(file) != exp.source.name:
            bad.append(f"file {file!r} is not {exp.source.name}")
    memory = exp.keys.get("memory")
    alloc = err.get("allocation")
    if exp.kernel_bug and exp.kind == "out-of-bounds" and memory not in ON_CHIP:
        if not isinstance(alloc, dict):
            bad.append("no 'allocation' in the report")
    if memory is not None:
        if isinstance(alloc, dict):
            if alloc.get("memory") != memory and not (memory in ON_CHIP and "memory" not in alloc):
                bad.append(f"allocation memory {alloc.get('memory')!r} != {memory!r}")
        elif memory not in ON_CHIP:
            bad.append(f"allocation memory unknown (no 'allocation'), expected {memory!r}")
    return bad


def summarize_error(err: dict) -> str:
    where = f"{os.path.basename(err.get('file') or '?')}:{err.get('line', '?')}"
    alloc = err.get("allocation")
    mem = alloc.get("memory") if isinstance(alloc, dict) else None
    return (f"{err.get('kind')} {err.get('access', '')} {err.get('size', '')} at {where} "
            f"kernel={err.get('kernel', '')!r} memory={mem!r}").replace("  ", " ")


def check_report(exp: Expectation, report_path: Path) -> str | None:
    """None if the JSON report holds an error matching the expectation, else the reason."""
    if not report_path.exists() or report_path.stat().st_size == 0:
        return f"no JSON report written to {report_path}"
    try:
        data = json.loads(report_path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as e:
        return f"JSON report is not valid JSON: {e}"
    errors = data.get("errors") if isinstance(data, dict) else None
    if not isinstance(errors, list) or not errors:
        return "JSON report has no errors"
    best = None
    for err in errors:
        if not isinstance(err, dict):
            continue
        bad = error_mismatches(exp, err)
        if not bad:
            return None
        if best is None or len(bad) < len(best[1]):
            best = (err, bad)
    if best is None:
        return "JSON report's errors are not objects"
    lines = [f"no reported error matches '{exp.describe()}'; closest: " + "; ".join(best[1])]
    lines += [f"    reported: {summarize_error(e)}" for e in errors[:5] if isinstance(e, dict)]
    if len(errors) > 5:
        lines.append(f"    ... and {len(errors) - 5} more")
    return "\n".join(lines)


def cucatch_lines(stderr: str) -> list:
    return [line for line in stderr.splitlines() if line.startswith("cucatch:")]


# ---- one program

class Suite:
    def __init__(self, args):
        self.args = args
        self.bin_dir = Path(args.bin_dir)
        self.base_env = {k: v for k, v in os.environ.items() if not k.startswith("CUCATCH_")}
        for kv in args.env:
            key, _, value = kv.partition("=")
            self.base_env[key] = value
        self.log_file = open(args.log, "w", encoding="utf-8") if args.log else None
        self.passed, self.failed = [], []
        self.plain_notes = []

    def log(self, text=""):
        if self.log_file:
            self.log_file.write(text + "\n")
            self.log_file.flush()

    def log_run(self, label, run: Run):
        self.log(f"--- {label}: {' '.join(run.argv)}: {run.status()} in {run.seconds:.2f} s")
        if run.stdout:
            self.log("stdout:\n" + run.stdout.rstrip("\n"))
        if run.stderr:
            self.log("stderr:\n" + run.stderr.rstrip("\n"))

    def result(self, exp: Expectation, reason: str | None, stderr: str = ""):
        if reason is None:
            print(f"PASS {exp.name}", flush=True)
            self.log(f"PASS {exp.name}")
            self.passed.append(exp.name)
        else:
            msg = f"FAIL {exp.name}: {reason}"
            if stderr is not None:
                msg += "\n  stderr of the cucatch build (tail):\n" + tail(stderr)
            print(msg, flush=True)
            self.log(msg)
            self.failed.append(exp.name)
        self.log()

    def run_bug(self, exp: Expectation):
        with tempfile.TemporaryDirectory(prefix="cucatch-suite-") as tmp:
            report = Path(tmp) / "report.json"
            env = dict(self.base_env, CUCATCH_REPORT=f"json:{report}")
            run = run_binary(self.bin_dir / f"{exp.name}.cucatch", env, self.args.timeout)
            self.log_run("cucatch build", run)
            if report.exists():
                self.log("report: " + report.read_text(encoding="utf-8", errors="replace").rstrip("\n"))
            reason = None
            if run.rc is None:
                reason = f"timed out after {self.args.timeout:.0f} s"
            elif run.rc != 1:
                reason = f"expected exit 1 (an error report), got {run.status()}"
            elif not any(line.startswith("cucatch: ERROR:") for line in run.stderr.splitlines()):
                reason = "no line starting with 'cucatch: ERROR:' on stderr"
            else:
                reason = check_report(exp, report)
        # The plain build: recorded, never a failure (most bugs go unnoticed there).
        plain = run_binary(self.bin_dir / f"{exp.name}.plain", self.base_env, self.args.timeout)
        self.log_run("plain build (recorded only)", plain)
        self.plain_notes.append((exp.name, plain.status()))
        self.result(exp, reason, run.stderr)

    def run_clean(self, exp: Expectation):
        plain = run_binary(self.bin_dir / f"{exp.name}.plain", self.base_env, self.args.timeout)
        self.log_run("plain build", plain)
        with tempfile.TemporaryDirectory(prefix="cucatch-suite-") as tmp:
            report = Path(tmp) / "report.json"
            env = dict(self.base_env, CUCATCH_REPORT=f"json:{report}")
            run = run_binary(self.bin_dir / f"{exp.name}.cucatch", env, self.args.timeout)
            self.log_run("cucatch build", run)
            reported = []
            if report.exists() and report.stat().st_size:
                text = report.read_text(encoding="utf-8", errors="replace")
                self.log("report: " + text.rstrip("\n"))
                try:
                    data = json.loads(text)
                    reported = data.get("errors") or [] if isinstance(data, dict) else []
                except json.JSONDecodeError:
                    reported = []
        reason = None
        if plain.rc != 0:
            reason = f"the plain build itself fails ({plain.status()}); the program is broken"
            self.result(exp, reason + "\n  stderr of the plain build (tail):\n" + tail(plain.stderr), None)
            return
        noise = cucatch_lines(run.stderr)
        if run.rc is None:
            reason = f"cucatch build timed out after {self.args.timeout:.0f} s"
        elif run.rc != 0:
            reason = f"cucatch build: expected exit 0, got {run.status()}"
        elif noise:
            reason = f"cucatch build printed {len(noise)} 'cucatch:' line(s) on stderr, first: {noise[0]!r}"
        elif reported:
            reason = f"JSON report holds {len(reported)} error(s): {summarize_error(reported[0])}"
        elif run.stdout != plain.stdout:
            reason = ("stdout differs from the plain build's:\n"
                      f"    plain:   {plain.stdout.strip()[:500]!r}\n"
                      f"    cucatch: {run.stdout.strip()[:500]!r}")
        self.result(exp, reason, run.stderr)


def gpu_description():
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0 or not r.stdout.strip():
        return None
    return r.stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", help="folder with NAME.plain and NAME.cucatch")
    ap.add_argument("--src-dir", default=str(Path(__file__).resolve().parent),
                    help="folder with the NAME.cu programs (default: this script's folder)")
    ap.add_argument("--filter", help="run only programs whose name matches this regular expression")
    ap.add_argument("--log", help="write every run's output and report to this file")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per process (default 120)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for every run (inherited CUCATCH_* variables are dropped)")
    ap.add_argument("--list", action="store_true",
                    help="only parse and print the annotations (no GPU, no binaries needed)")
    ap.add_argument("--no-gpu-check", action="store_true",
                    help="do not skip when nvidia-smi -L fails (for testing the runner)")
    args = ap.parse_args()

    src_dir = Path(args.src_dir)
    sources = sorted(src_dir.glob("*.cu"))
    if args.filter:
        sources = [s for s in sources if re.search(args.filter, s.stem)]
    if not sources:
        print(f"FAIL: no programs in {src_dir}" + (f" match {args.filter!r}" if args.filter else ""))
        return 1
    expectations, bad = [], []
    for s in sources:
        try:
            expectations.append(parse_annotation(s))
        except AnnotationError as e:
            bad.append(str(e))
    if args.list:
        for exp in expectations:
            print(f"{exp.name}: {exp.describe()}")
        for b in bad:
            print(f"BAD ANNOTATION {b}")
        return 1 if bad else 0
    if bad:
        for b in bad:
            print(f"FAIL (annotation) {b}")
        return 1

    if not args.no_gpu_check:
        gpu = gpu_description()
        if gpu is None:
            print("SKIPPED: no GPU on this machine (nvidia-smi -L failed)")
            return SKIP
        print(gpu)
    else:
        gpu = "(GPU check skipped)"
    if not args.bin_dir:
        ap.error("--bin-dir is required")
    bin_dir = Path(args.bin_dir)
    missing = [f"{e.name}.{flavour}" for e in expectations for flavour in ("plain", "cucatch")
               if not (bin_dir / f"{e.name}.{flavour}").is_file()]
    if missing:
        shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        print(f"FAIL: {len(missing)} binaries missing from {bin_dir} ({shown}): "
              "build the gpu-suite target first (cmake --build BUILD --target gpu-suite)")
        return 1

    suite = Suite(args)
    suite.log(f"device: {gpu}")
    suite.log(f"bin dir: {bin_dir.resolve()}  src dir: {src_dir.resolve()}")
    suite.log()
    for exp in expectations:
        suite.log(f"=== {exp.name}: expect {exp.describe()}")
        if exp.clean:
            suite.run_clean(exp)
        else:
            suite.run_bug(exp)
    if suite.plain_notes:
        silent = [n for n, st in suite.plain_notes if st == "exit 0"]
        note = (f"note: {len(silent)} of {len(suite.plain_notes)} bug programs ran without any "
                f"error in their plain build" + (f" ({', '.join(silent)})" if silent else ""))
        print(note)
        suite.log(note)
        for n, st in suite.plain_notes:
            suite.log(f"  plain {n}: {st}")
    summary = f"{len(suite.passed)} passed, {len(suite.failed)} failed"
    print(summary)
    suite.log(summary)
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
