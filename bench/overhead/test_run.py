#!/usr/bin/env python3
"""Tests of run.py against fake benchmark binaries (no GPU needed).

  python3 bench/overhead/test_run.py -v

The fakes are small Python programs behind shell wrappers that speak the overhead
binary's interface (--reps, --kernel, --markers, --list) and print BENCH lines whose times
vary by process (1.0x, 5.0x, 0.9x of a base, so only a median over processes gives the
base back), plus fake compute-sanitizer and nvidia-smi programs on PATH.
"""

import json
import math
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_PY = os.path.join(HERE, "run.py")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import run  # noqa: E402

FAKE = r'''
import os, sys
KERNELS = [("saxpy", 1.0), ("sgemm", 2.0), ("pointer_chase", 4.0)]
FACTORS = [1.0, 5.0, 0.9]
opts = {"scale": 1.0, "fp": None, "bad_checksum": None, "crash": None,
        "crash_in_full_run": None, "counter": None}
args = sys.argv[1:]
reps, wanted, markers = 20, [], False
i = 0
while i < len(args):
    a = args[i]
    if a.startswith("--fake-"):
        key = a[len("--fake-"):].replace("-", "_")
        opts[key] = args[i + 1]; i += 2; continue
    if a == "--list":
        for k, _ in KERNELS: print(k, "fake kernel")
        sys.exit(0)
    if a == "--reps": reps = int(args[i + 1]); i += 2; continue
    if a == "--kernel": wanted += args[i + 1].split(","); i += 2; continue
    if a == "--markers": markers = True; i += 1; continue
    print("fake: unknown argument", a, file=sys.stderr); sys.exit(1)
scale = float(opts["scale"]) * float(os.environ.get("FAKE_EXTRA_SCALE", "1"))
# Which process of this configuration this is: counts up in a file.
n = 0
if opts["counter"]:
    try: n = int(open(opts["counter"]).read())
    except (OSError, ValueError): n = 0
    open(opts["counter"], "w").write(str(n + 1))
factor = FACTORS[n % len(FACTORS)]
selected = [k for k in KERNELS if not wanted or k[0] in wanted]
for name, base in selected:
    if markers: print("overhead: begin", name, file=sys.stderr, flush=True)
    if name == opts["fp"]:
        print("cucatch: out-of-bounds read of 4 bytes in", name, file=sys.stderr, flush=True)
    if name == opts["crash"] or (name == opts["crash_in_full_run"] and len(selected) > 1):
        print("fake: unspecified launch failure", file=sys.stderr, flush=True)
        sys.exit(134)
    checksum = "%016x" % sum(map(ord, name))
    if name == opts["bad_checksum"]: checksum = "deadbeefdeadbeef"
    t = base * scale * factor
    print(f"BENCH {name} median_ms={t:.4f} min_ms={t * 0.9:.4f} reps={reps} checksum={checksum}",
          flush=True)
    if markers: print("overhead: end", name, file=sys.stderr, flush=True)
'''

SANITIZER = r'''#!/bin/sh
# fake compute-sanitizer: checks it was asked for memcheck, runs the program 50x "slower"
[ "$1" = "--tool" ] && [ "$2" = "memcheck" ] || { echo "fake sanitizer: bad args $*" >&2; exit 9; }
shift 2
echo "========= COMPUTE-SANITIZER"
FAKE_EXTRA_SCALE=50 "$@"
rc=$?
echo "========= ERROR SUMMARY: ${FAKE_SANITIZER_ERRORS:-0} errors"
exit $rc
'''

NVIDIA_SMI = '''#!/bin/sh
echo "GPU 0: NVIDIA Fake H100 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
'''


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class Fixture:
    def __init__(self, tmp, plain_opts="", cucatch_opts="--fake-scale 1.5"):
        self.tmp = tmp
        self.bin = os.path.join(tmp, "bin")
        self.tools = os.path.join(tmp, "tools")
        os.makedirs(self.bin)
        os.makedirs(self.tools)
        fake = os.path.join(tmp, "fake_bench.py")
        with open(fake, "w") as f:
            f.write(FAKE)
        for name, opts in (("plain", plain_opts), ("cucatch", cucatch_opts)):
            counter = os.path.join(tmp, f"counter.{name}")
            write_exe(os.path.join(self.bin, f"overhead.{name}"),
                      f'#!/bin/sh\nexec "{sys.executable}" "{fake}" --fake-counter "$FAKE_COUNTER_DIR/'
                      f'counter.{name}$FAKE_EXTRA_SCALE" {opts} "$@"\n')
        write_exe(os.path.join(self.tools, "compute-sanitizer"), SANITIZER)
        write_exe(os.path.join(self.tools, "nvidia-smi"), NVIDIA_SMI)

    def run(self, *extra, env_extra=None):
        env = dict(os.environ)
        env["PATH"] = self.tools + os.pathsep + env["PATH"]
        env["FAKE_COUNTER_DIR"] = self.tmp
        env.pop("FAKE_EXTRA_SCALE", None)
        env.update(env_extra or {})
        out = os.path.join(self.tmp, "out.json")
        p = subprocess.run([sys.executable, RUN_PY, "--bin-dir", self.bin, "--out", out, *extra],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
            os.remove(out)
        return p, doc


def rows_by_kernel(doc):
    return {r["kernel"]: r for r in doc["kernels"]}


class RunPyTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_clean_run(self):
        fx = Fixture(self.tmp)
        p, doc = fx.run("--reps", "7", "--sanitizer-reps", "2")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = rows_by_kernel(doc)
        self.assertEqual(list(rows), ["saxpy", "sgemm", "pointer_chase"])
        # Median over the processes (factors 1.0, 5.0, 0.9) gives the base back.
        self.assertAlmostEqual(rows["saxpy"]["plain_ms"], 1.0)
        self.assertAlmostEqual(rows["sgemm"]["plain_ms"], 2.0)
        self.assertAlmostEqual(rows["pointer_chase"]["cucatch_ms"], 6.0)
        self.assertAlmostEqual(rows["saxpy"]["cucatch_x"], 1.5)
        self.assertAlmostEqual(rows["sgemm"]["memcheck_x"], 50.0)
        self.assertEqual(rows["saxpy"]["plain_process_medians_ms"], [1.0, 5.0, 0.9])
        self.assertAlmostEqual(rows["saxpy"]["plain_min_ms"], 0.81)
        self.assertTrue(all(r["checksum_ok"] and not r["notes"] for r in rows.values()))
        self.assertAlmostEqual(doc["summary"]["cucatch"]["geomean"], 1.5)
        self.assertAlmostEqual(doc["summary"]["memcheck"]["worst"], 50.0)
        self.assertTrue(doc["ok"])
        self.assertEqual(doc["device"], "GPU 0: NVIDIA Fake H100 (UUID: GPU-00000000-0000-0000-0000-000000000000)")
        # The binaries got the right reps, and memcheck ran the plain binary.
        plain_cmd = doc["configs"]["plain"]["runs"][0]["command"]
        self.assertEqual(plain_cmd[-3:], ["--reps", "7", "--markers"])
        mc_cmd = doc["configs"]["memcheck"]["runs"][0]["command"]
        self.assertTrue(mc_cmd[0].endswith("compute-sanitizer"))
        self.assertEqual(mc_cmd[1:4], ["--tool", "memcheck", os.path.join(fx.bin, "overhead.plain")])
        self.assertEqual(doc["configs"]["memcheck"]["runs"][0]["results"]["saxpy"]["reps"], 2)
        self.assertEqual(len(doc["configs"]["cucatch"]["runs"]), 3)
        # The table.
        self.assertIn("| kernel", p.stdout)
        self.assertRegex(p.stdout, r"\| plain ms \| cucatch ms \| cucatch x \| memcheck ms \| memcheck x \| notes")
        self.assertRegex(p.stdout, r"\| saxpy +\| +1\.000 \| +1\.500 \| +1\.50x \| +50\.000 \| +50\.00x \|")
        self.assertRegex(p.stdout, r"\| geomean .*1\.50x .*50\.00x")
        self.assertRegex(p.stdout, r"\| worst .*1\.50x .*50\.00x \| cucatch: (saxpy|sgemm|pointer_chase), memcheck: ")
        self.assertIn("device: GPU 0: NVIDIA Fake H100", p.stdout)
        print("\n" + p.stdout)

    def test_uneven_slowdowns_geomean_and_worst(self):
        fx = Fixture(self.tmp, cucatch_opts="--fake-scale 2")
        # Make pointer_chase 4x slower than the others in cucatch only: a separate binary.
        write_exe(os.path.join(fx.bin, "overhead.cucatch"),
                  f'#!/bin/sh\n"{sys.executable}" "{os.path.join(self.tmp, "fake_bench.py")}" '
                  f'--fake-scale 2 "$@" | sed "s/BENCH pointer_chase median_ms=[0-9.]*/'
                  f'BENCH pointer_chase median_ms=32.0/"\n')
        p, doc = fx.run("--no-sanitizer", "--repeats", "1")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = rows_by_kernel(doc)
        self.assertAlmostEqual(rows["pointer_chase"]["cucatch_x"], 8.0)
        s = doc["summary"]["cucatch"]
        self.assertAlmostEqual(s["geomean"], math.exp((2 * math.log(2) + math.log(8)) / 3))
        self.assertAlmostEqual(s["worst"], 8.0)
        self.assertEqual(s["worst_kernel"], "pointer_chase")
        self.assertNotIn("memcheck", p.stdout.splitlines()[2])
        self.assertNotIn("memcheck", doc["summary"])
        self.assertRegex(p.stdout, r"\| worst .* 8\.00x \| cucatch: pointer_chase")

    def test_false_positive_mismatch_and_crash(self):
        fx = Fixture(self.tmp, cucatch_opts="--fake-scale 1.5 --fake-fp sgemm "
                     "--fake-bad-checksum saxpy --fake-crash pointer_chase")
        p, doc = fx.run("--no-sanitizer")
        self.assertEqual(p.returncode, 1)
        rows = rows_by_kernel(doc)
        self.assertFalse(rows["saxpy"]["checksum_ok"])
        self.assertIn("CHECKSUM MISMATCH (cucatch differ from plain)", rows["saxpy"]["notes"])
        self.assertEqual(rows["sgemm"]["cucatch_messages"],
                         ["cucatch: out-of-bounds read of 4 bytes in sgemm"])
        self.assertIn("cucatch REPORTED (1 distinct lines)", rows["sgemm"]["notes"])
        self.assertEqual(rows["saxpy"]["cucatch_messages"], [])
        self.assertIsNone(rows["pointer_chase"]["cucatch_ms"])
        self.assertIn("cucatch FAILED (rc 134)", rows["pointer_chase"]["notes"])
        self.assertAlmostEqual(rows["pointer_chase"]["plain_ms"], 4.0)
        # Each crashed process was followed by a lone run of the kernel it did not reach.
        singles = [r.get("single_kernel") for r in doc["configs"]["cucatch"]["runs"]]
        self.assertEqual(singles, [None, "pointer_chase"] * 3)
        self.assertRegex(p.stdout, r"\| pointer_chase +\| +4\.000 \| +FAIL \| +- \| cucatch FAILED")
        self.assertRegex(p.stdout, r"\| geomean .* 1\.50x \| cucatch: 2 kernels")
        self.assertIn("cucatch reports on a correct program (false positives):", p.stdout)
        self.assertIn("[sgemm] cucatch: out-of-bounds read of 4 bytes in sgemm", p.stdout)
        self.assertIn("problems:", p.stdout)
        self.assertFalse(doc["ok"])
        print("\n" + p.stdout)

    def test_crash_in_full_run_recovered_by_single_runs(self):
        fx = Fixture(self.tmp, cucatch_opts="--fake-scale 1.5 --fake-crash-in-full-run sgemm")
        p, doc = fx.run("--no-sanitizer", "--repeats", "3")
        rows = rows_by_kernel(doc)
        # sgemm and pointer_chase come from the lone runs; saxpy from the full runs.
        self.assertAlmostEqual(rows["saxpy"]["cucatch_x"], 1.5)
        self.assertIsNotNone(rows["sgemm"]["cucatch_ms"])
        self.assertIsNotNone(rows["pointer_chase"]["cucatch_ms"])
        singles = [r.get("single_kernel") for r in doc["configs"]["cucatch"]["runs"]]
        self.assertEqual(singles.count("sgemm"), 3)
        self.assertEqual(singles.count("pointer_chase"), 3)
        self.assertEqual(p.returncode, 1)  # the crashes are still problems
        self.assertIn("rc 134", p.stdout)

    def test_sanitizer_errors_are_reported(self):
        fx = Fixture(self.tmp)
        p, doc = fx.run("--repeats", "1", env_extra={"FAKE_SANITIZER_ERRORS": "2"})
        self.assertEqual(p.returncode, 1)
        self.assertIn("memcheck reported errors (2 in one process)", doc["problems"])

    def test_kernel_selection(self):
        fx = Fixture(self.tmp)
        p, doc = fx.run("--kernel", "sgemm", "--repeats", "1", "--no-sanitizer")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual([r["kernel"] for r in doc["kernels"]], ["sgemm"])

    def test_missing_programs(self):
        fx = Fixture(self.tmp)
        os.remove(os.path.join(fx.tools, "compute-sanitizer"))
        env = {"PATH": fx.tools + os.pathsep + "/usr/bin:/bin"}
        p, _ = fx.run("--sanitizer", os.path.join(self.tmp, "nope"), env_extra=env)
        self.assertEqual(p.returncode, 2)
        self.assertIn("compute-sanitizer not found", p.stderr)
        os.remove(os.path.join(fx.bin, "overhead.cucatch"))
        p, _ = fx.run("--no-sanitizer")
        self.assertEqual(p.returncode, 2)
        self.assertIn("overhead.cucatch is missing", p.stderr)


class ParseTest(unittest.TestCase):
    def test_parse_output(self):
        stdout = textwrap.dedent("""\
            ========= COMPUTE-SANITIZER
            BENCH saxpy median_ms=1.25 min_ms=1.0 reps=3 checksum=00ff
            ========= Invalid __global__ read of size 4 bytes
            =========     at sgemmTiled+0x70
            BENCH sgemm median_ms=2 min_ms=1.5 reps=3 checksum=00aa
            BENCH broken median_ms=x min_ms=1 reps=3 checksum=1
            BENCH truncated median_ms=1
            ========= Program hit cudaErrorLaunchFailure (error 719)
            ========= ERROR SUMMARY: 2 errors
            """)
        stderr = textwrap.dedent("""\
            cucatch: loaded
            overhead: begin saxpy
            overhead: end saxpy
            overhead: begin sgemm
            cucatch: out-of-bounds write
            overhead: end sgemm
            overhead: begin nbody
            """)
        p = run.parse_output(stdout, stderr)
        self.assertEqual(p["results"]["saxpy"],
                         {"median_ms": 1.25, "min_ms": 1.0, "reps": 3, "checksum": "00ff"})
        self.assertEqual(p["results"]["sgemm"]["median_ms"], 2.0)
        self.assertEqual(set(p["results"]), {"saxpy", "sgemm"})
        self.assertEqual(len(p["bad_lines"]), 2)
        self.assertEqual(p["sanitizer_errors"], 2)
        self.assertEqual(p["sanitizer_reports"], [
            ("sgemm", "========= Invalid __global__ read of size 4 bytes"),
            ("nbody", "========= Program hit cudaErrorLaunchFailure (error 719)")])
        self.assertEqual(p["cucatch_lines"], [(run.OUTSIDE, "cucatch: loaded"),
                                              ("sgemm", "cucatch: out-of-bounds write")])


if __name__ == "__main__":
    unittest.main()
