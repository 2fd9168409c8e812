#!/usr/bin/env python3
"""Tests of run.py against fake benchmark binaries (no GPU needed).

  python3 bench/overhead/test_run.py -v

The fakes are small Python programs behind shell wrappers that speak the overhead
binary's interface (--reps, --kernel, --markers, --list, --kernel-names) and print BENCH
lines whose times vary by process (1.0x, 5.0x, 0.9x of a base, so only a median over
processes gives the base back), plus fake compute-sanitizer, nvidia-smi and (for some
tests) cuobjdump programs on PATH. --plot is tested only where matplotlib imports (Debian:
python3-matplotlib, for /usr/bin/python3).
"""

import importlib.util
import json
import math
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_PY = os.path.join(HERE, "run.py")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import run  # noqa: E402

FAKE = r'''
import os, sys
KERNELS = [("saxpy", 1.0), ("sgemm", 2.0), ("pointer_chase", 4.0)]
# What --kernel-names says each launches (only with --fake-kernel-names 1: without it the
# fake is a binary built before that option, which rejects it).
FUNCTIONS = {"saxpy": "saxpy", "sgemm": "sgemmTiled", "pointer_chase": "pointerChase chaseInit"}
FACTORS = [1.0, 5.0, 0.9]
opts = {"scale": 1.0, "fp": None, "bad_checksum": None, "crash": None,
        "crash_in_full_run": None, "counter": None, "tags_off_scale": 1.0,
        "kernel_names": None}
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
    if a == "--kernel-names" and opts["kernel_names"]:
        for k, _ in KERNELS: print("KERNELS", k, FUNCTIONS[k])
        sys.exit(0)
    if a == "--reps": reps = int(args[i + 1]); i += 2; continue
    if a == "--kernel": wanted += args[i + 1].split(","); i += 2; continue
    if a == "--markers": markers = True; i += 1; continue
    print("fake: unknown argument", a, file=sys.stderr); sys.exit(1)
scale = float(opts["scale"]) * float(os.environ.get("FAKE_EXTRA_SCALE", "1"))
if os.environ.get("CUCATCH_TAGS") == "0":
    scale *= float(opts["tags_off_scale"])
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

# fake cuobjdump: prints DIR/<binary's basename>.res, DIR being where the fake lives.
CUOBJDUMP = r'''#!/bin/sh
[ "$1" = "-res-usage" ] || { echo "fake cuobjdump: bad args $*" >&2; exit 9; }
cat "$(dirname "$0")/$(basename "$2").res"
'''

RES_HEADER = """Fatbin elf code:
================
arch = {arch}
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0 CONSTANT[3]:64
"""


def res_usage(arch, functions):
    """cuobjdump -res-usage output of one ELF image: functions is [(mangled, reg, stack, local)]."""
    return RES_HEADER.format(arch=arch) + "".join(
        f" Function {name}:\n  REG:{reg} STACK:{stack} SHARED:0 LOCAL:{local} CONSTANT[0]:552"
        " TEXTURE:0 SURFACE:0 SAMPLER:0\n" for name, reg, stack, local in functions)


# The plain build: saxpy2 must not count as saxpy; sgemmTiled is namespaced, pointerChase in an
# anonymous namespace, chaseInit static.
PLAIN_RES = res_usage("sm_90", [
    ("_Z6saxpy2v", 99, 64, 64),
    ("_Z5saxpyifPKfPf", 10, 0, 0),
    ("_ZN8overhead10sgemmTiledEiiPKfS1_Pf", 40, 0, 0),
    ("_ZN8overhead12_GLOBAL__N_112pointerChaseEPKjPjm", 16, 0, 0),
    ("_ZL9chaseInitPjm", 20, 0, 0)])
# The cucatch build: two images (saxpy's figures differ: the larger of each counts), a
# template sgemmTiled, a runtime function that belongs to no benchmark, and no chaseInit.
CUCATCH_RES = res_usage("sm_90", [
    ("_Z5saxpyifPKfPf", 24, 16, 0),
    ("_ZN8overhead10sgemmTiledIfEEviiPKT_S3_PS1_", 48, 8, 4),
    ("_ZN8overhead12_GLOBAL__N_112pointerChaseEPKjPjm", 18, 0, 0),
    ("__cucatch_report", 60, 0, 0)]) + "\n" + res_usage("sm_80", [
    ("_Z5saxpyifPKfPf", 30, 8, 0)])

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
            write_exe(os.path.join(self.bin, f"overhead.{name}"),
                      f'#!/bin/sh\nexec "{sys.executable}" "{fake}" --fake-counter "$FAKE_COUNTER_DIR/'
                      f'counter.{name}$FAKE_EXTRA_SCALE$CUCATCH_TAGS" {opts} "$@"\n')
        write_exe(os.path.join(self.tools, "compute-sanitizer"), SANITIZER)
        write_exe(os.path.join(self.tools, "nvidia-smi"), NVIDIA_SMI)

    def add_cuobjdump(self):
        write_exe(os.path.join(self.tools, "cuobjdump"), CUOBJDUMP)
        for name, text in (("plain", PLAIN_RES), ("cucatch", CUCATCH_RES)):
            with open(os.path.join(self.tools, f"overhead.{name}.res"), "w") as f:
                f.write(text)

    def run_py(self, *args, env_extra=None):
        """run.py with exactly these arguments."""
        env = dict(os.environ)
        env["PATH"] = self.tools + os.pathsep + env["PATH"]
        env["FAKE_COUNTER_DIR"] = self.tmp
        env.pop("FAKE_EXTRA_SCALE", None)
        env.pop("CUCATCH_TAGS", None)
        env.update(env_extra or {})
        return subprocess.run([sys.executable, RUN_PY, *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def run(self, *extra, env_extra=None, json_option="--out"):
        """run.py on the fakes, saving to a JSON file; returns the process and the document."""
        out = os.path.join(self.tmp, "out.json")
        p = self.run_py("--bin-dir", self.bin, json_option, out, *extra, env_extra=env_extra)
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
        self.assertRegex(p.stdout, r"\| plain ms \| cucatch ms \| cucatch x \| tags-off ms \| tags-off x "
                                   r"\| memcheck ms \| memcheck x \| regs plain→cucatch \| local B \| notes")
        self.assertRegex(p.stdout, r"\| saxpy +\| +1\.000 \| +1\.500 \| +1\.50x \| +1\.500 \| +1\.50x "
                                   r"\| +50\.000 \| +50\.00x \| +n/a \| +n/a \|")
        self.assertRegex(p.stdout, r"\| geomean .*1\.50x .*1\.50x .*50\.00x")
        self.assertRegex(p.stdout, r"\| worst .*1\.50x .*50\.00x \|.*\| cucatch: (saxpy|sgemm|pointer_chase), "
                                   r"tags-off: .*, memcheck: ")
        # The fake predates --kernel-names: no resource figures, and a note that says why.
        self.assertIn("note: regs/local n/a: overhead.plain --kernel-names: exit status 1", p.stdout)
        self.assertIsNone(rows["saxpy"]["regs_plain"])
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
        self.assertRegex(p.stdout, r"\| worst .* 8\.00x \|.*\| cucatch: pointer_chase")

    def test_false_positive_mismatch_and_crash(self):
        fx = Fixture(self.tmp, cucatch_opts="--fake-scale 1.5 --fake-fp sgemm "
                     "--fake-bad-checksum saxpy --fake-crash pointer_chase")
        p, doc = fx.run("--no-sanitizer")
        self.assertEqual(p.returncode, 1)
        rows = rows_by_kernel(doc)
        self.assertFalse(rows["saxpy"]["checksum_ok"])
        self.assertIn("CHECKSUM MISMATCH (cucatch,tags-off differ from plain)", rows["saxpy"]["notes"])
        self.assertIn("tags-off FAILED (rc 134)", rows["pointer_chase"]["notes"])
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
        self.assertRegex(p.stdout, r"\| pointer_chase +\| +4\.000 \| +FAIL \| +- \| +FAIL \| +- \|.* cucatch FAILED")
        self.assertRegex(p.stdout, r"\| geomean .* 1\.50x \|.*\| cucatch: 2 kernels, tags-off: 2 kernels")
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

    def test_tags_off_runs_the_cucatch_binary_with_tags_off(self):
        fx = Fixture(self.tmp, cucatch_opts="--fake-scale 1.5 --fake-tags-off-scale 0.8")
        p, doc = fx.run("--repeats", "3")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(list(doc["configs"]), ["plain", "cucatch", "tags_off", "memcheck"])
        self.assertEqual(doc["configs"]["tags_off"]["env"], {"CUCATCH_TAGS": "0"})
        self.assertEqual(doc["configs"]["cucatch"]["env"], {})
        cmd = doc["configs"]["tags_off"]["runs"][0]["command"]
        self.assertEqual(cmd[0], os.path.join(fx.bin, "overhead.cucatch"))
        rows = rows_by_kernel(doc)
        # Only the tags-off processes saw CUCATCH_TAGS=0 (the fake is then 0.8x as slow).
        self.assertAlmostEqual(rows["saxpy"]["cucatch_x"], 1.5)
        self.assertAlmostEqual(rows["saxpy"]["tags_off_x"], 1.2)
        self.assertAlmostEqual(rows["pointer_chase"]["tags_off_ms"], 4.8)
        self.assertAlmostEqual(rows["sgemm"]["memcheck_x"], 50.0)
        self.assertAlmostEqual(doc["summary"]["tags_off"]["geomean"], 1.2)
        self.assertAlmostEqual(doc["summary"]["tags_off"]["worst"], 1.2)
        self.assertEqual(doc["summary"]["tags_off"]["kernels"], 3)
        self.assertRegex(p.stdout, r"\| saxpy +\| +1\.000 \| +1\.500 \| +1\.50x \| +1\.200 \| +1\.20x "
                                   r"\| +50\.000 \| +50\.00x \|")
        self.assertRegex(p.stdout, r"\| geomean .* 1\.50x \| +\| +1\.20x \| +\| +50\.00x \|.*"
                                   r"tags-off: 3 kernels")
        self.assertIn("reps: plain/cucatch/tags-off 20, memcheck 5", p.stdout)
        self.assertIn("tags-off: CUCATCH_TAGS=0 " + os.path.join(fx.bin, "overhead.cucatch"), p.stderr)

    def test_jit_runs_the_plain_binary_under_cucatch_run(self):
        fx = Fixture(self.tmp)
        # A cucatch-run stand-in: runs what follows "--" with the fake's extra scale 1.25.
        cucatch_run = os.path.join(fx.tools, "cucatch-run")
        write_exe(cucatch_run, '#!/bin/sh\n[ "$1" = --jit ] && [ "$2" = -- ] || exit 9\nshift 2\n'
                               'FAKE_EXTRA_SCALE=1.25 exec "$@"\n')
        p, doc = fx.run("--jit", cucatch_run, "--no-sanitizer", "--no-tags-off", "--repeats", "1")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(list(doc["configs"]), ["plain", "cucatch", "jit"])
        cmd = doc["configs"]["jit"]["runs"][0]["command"]
        self.assertEqual(cmd[:3], [cucatch_run, "--jit", "--"])
        self.assertEqual(cmd[3], os.path.join(fx.bin, "overhead.plain"))
        self.assertAlmostEqual(rows_by_kernel(doc)["saxpy"]["jit_x"], 1.25)
        self.assertIn("jit x", p.stdout)
        missing = fx.run_py("--bin-dir", fx.bin, "--jit", os.path.join(fx.tools, "nothing"), "--no-sanitizer")
        self.assertEqual(missing.returncode, 2)
        self.assertIn("not an executable cucatch-run", missing.stderr)

    def test_no_tags_off(self):
        fx = Fixture(self.tmp)
        p, doc = fx.run("--no-tags-off", "--no-sanitizer", "--repeats", "1")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(list(doc["configs"]), ["plain", "cucatch"])
        self.assertNotIn("tags_off", doc["summary"])
        self.assertNotIn("tags_off_x", doc["kernels"][0])
        self.assertNotIn("tags-off", p.stdout)
        self.assertRegex(p.stdout, r"\| cucatch x \| regs plain→cucatch \| local B \| notes")

    def test_resource_columns(self):
        fx = Fixture(self.tmp, plain_opts="--fake-kernel-names 1",
                     cucatch_opts="--fake-scale 1.5 --fake-kernel-names 1")
        fx.add_cuobjdump()
        p, doc = fx.run("--no-sanitizer", "--repeats", "1")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(doc["resources"]["cuobjdump"], os.path.join(fx.tools, "cuobjdump"))
        self.assertEqual(doc["resources"]["notes"], [])
        self.assertEqual(doc["resources"]["kernel_functions"]["pointer_chase"],
                         ["pointerChase", "chaseInit"])
        rows = rows_by_kernel(doc)
        figures = {k: (r["regs_plain"], r["regs_cucatch"], r["local_bytes_plain"],
                       r["local_bytes_cucatch"]) for k, r in rows.items()}
        self.assertEqual(figures, {"saxpy": (10, 30, 0, 16), "sgemm": (40, 48, 0, 12),
                                   "pointer_chase": (20, None, 0, None)})
        self.assertEqual(rows["sgemm"]["kernel_functions"], ["sgemmTiled"])
        self.assertEqual(rows["saxpy"]["notes"], [])
        self.assertEqual(rows["pointer_chase"]["notes"],
                         ["regs n/a: chaseInit not in overhead.cucatch"])
        self.assertRegex(p.stdout, r"\| regs plain→cucatch \| local B \| notes")
        self.assertRegex(p.stdout, r"\| saxpy .* 1\.50x \| +1\.500 \| +1\.50x \| +10→30 \| +0→16 \|")
        self.assertRegex(p.stdout, r"\| sgemm .* \| +40→48 \| +0→12 \|")
        self.assertRegex(p.stdout, r"\| pointer_chase .* \| +20→n/a \| +0→n/a \| regs n/a: chaseInit")
        # Resource notes are information, not problems.
        self.assertTrue(doc["ok"])

    def test_resource_columns_without_cuobjdump(self):
        fx = Fixture(self.tmp, plain_opts="--fake-kernel-names 1")
        builds = {"plain": os.path.join(fx.bin, "overhead.plain"),
                  "cucatch": os.path.join(fx.bin, "overhead.cucatch")}
        env = {"PATH": fx.tools + os.pathsep + "/nonexistent", "FAKE_COUNTER_DIR": self.tmp}
        with mock.patch.dict(os.environ, env), mock.patch.object(run, "CUOBJDUMP_FALLBACKS", []):
            self.assertIsNone(run.find_cuobjdump())
            info, per_bench = run.collect_resources(builds, 60)
        self.assertIsNone(info["cuobjdump"])
        self.assertEqual(len(info["notes"]), 1)
        self.assertIn("no cuobjdump on PATH", info["notes"][0])
        self.assertEqual(per_bench["sgemm"]["kernel_functions"], ["sgemmTiled"])
        self.assertIsNone(per_bench["sgemm"]["regs_plain"])
        self.assertIsNone(per_bench["sgemm"]["local_bytes_cucatch"])
        rows = [{"kernel": "sgemm", "notes": []}, {"kernel": "extra", "notes": []}]
        run.add_resources(rows, info, per_bench)
        self.assertEqual(run.fmt_pair(rows[0], "regs"), "n/a")
        self.assertEqual(rows[0]["notes"], [])  # the note is said once, under the table
        self.assertEqual(rows[1]["notes"], ["regs n/a: not in --kernel-names"])

    def test_from_json_round_trip(self):
        saved = os.path.join(self.tmp, "saved.json")
        reports = {}
        for sub, cucatch_opts, status in (
                ("bad", "--fake-scale 1.5 --fake-fp sgemm --fake-crash pointer_chase", 1),
                ("clean", "--fake-scale 2", 0)):
            fx = Fixture(os.path.join(self.tmp, sub), cucatch_opts=cucatch_opts)
            p = fx.run_py("--bin-dir", fx.bin, "--json", saved, "--repeats", "1")
            self.assertEqual(p.returncode, status, p.stdout + p.stderr)
            with open(saved) as f:
                self.assertEqual(json.load(f)["ok"], status == 0)
            # Nothing runs: no fakes on PATH are needed, and the report is the same.
            again = fx.run_py("--from-json", saved, env_extra={"PATH": "/nonexistent"})
            self.assertEqual(again.returncode, status, again.stderr)
            self.assertEqual(again.stdout, p.stdout)
            self.assertEqual(again.stderr, "")
            reports[sub] = again.stdout
        self.assertIn("problems:", reports["bad"])
        self.assertIn("[sgemm] cucatch: out-of-bounds read", reports["bad"])
        self.assertNotIn("problems:", reports["clean"])
        bad = fx.run_py("--from-json", os.path.join(self.tmp, "nope.json"))
        self.assertEqual(bad.returncode, 2)
        self.assertIn("is not a run saved with --json", bad.stderr)
        both = fx.run_py("--from-json", saved, "--bin-dir", fx.bin)
        self.assertEqual(both.returncode, 2)
        self.assertEqual(fx.run_py("--repeats", "1").returncode, 2)  # no --bin-dir

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"),
                         "matplotlib is not importable by this python (Debian: python3-matplotlib "
                         "for /usr/bin/python3; scripts/install-deps.sh --bench)")
    def test_plot(self):
        fx = Fixture(self.tmp)
        png = os.path.join(self.tmp, "live.png")
        p, doc = fx.run("--repeats", "1", "--plot", png)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        saved = os.path.join(self.tmp, "saved.json")
        with open(saved, "w") as f:
            json.dump(doc, f)
        again = os.path.join(self.tmp, "again.png")
        p = fx.run_py("--from-json", saved, "--plot", again)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(os.path.getsize(again), 1000)
        p = fx.run_py("--from-json", saved, "--plot", os.path.join(self.tmp, "no", "dir.png"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot write", p.stderr)

    def test_plot_without_matplotlib(self):
        fx = Fixture(self.tmp)
        # A matplotlib that fails to import, ahead of any installed one.
        shadow = os.path.join(self.tmp, "shadow", "matplotlib")
        os.makedirs(shadow)
        with open(os.path.join(shadow, "__init__.py"), "w") as f:
            f.write("raise ImportError('no matplotlib here')\n")
        p, doc = fx.run("--plot", os.path.join(self.tmp, "x.png"),
                        env_extra={"PYTHONPATH": os.path.dirname(shadow)})
        self.assertEqual(p.returncode, 2)
        self.assertIsNone(doc)
        self.assertIn("python3-matplotlib", p.stderr)
        self.assertIn("scripts/install-deps.sh --bench", p.stderr)
        # Said before running anything.
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "counter.plain")))


class ParseTest(unittest.TestCase):
    def test_unqualified_name(self):
        for mangled, name in (("_Z5saxpyifPKfPf", "saxpy"),
                              ("_ZN8overhead5saxpyEifPKfPf", "saxpy"),
                              ("_ZN8overhead12_GLOBAL__N_15saxpyEv", "saxpy"),
                              ("_ZL9chaseInitPjm", "chaseInit"),
                              ("_ZN8overhead10sgemmTiledIfEEviiPKT_S3_PS1_", "sgemmTiled"),
                              ("_Z6kernelIiEvT_", "kernel"),
                              ("_Z6saxpy2v", "saxpy2"),
                              ("cKernel", "cKernel"),
                              ("_Z99short", None)):
            self.assertEqual(run.unqualified_name(mangled), name, mangled)

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
