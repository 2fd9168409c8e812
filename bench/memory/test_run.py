#!/usr/bin/env python3
"""Tests of bench/memory/run.py against fake device_memory binaries (no GPU needed).

    python3 bench/memory/test_run.py -v
"""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_PY = os.path.join(HERE, "run.py")
MIB = 1 << 20


def fake(directory, name, lines, rc=0):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + "".join(f"echo '{line}'\n" for line in lines) + f"exit {rc}\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


class MemoryRunTest(unittest.TestCase):
    def run_py(self, plain, cucatch, cucatch_rc=0):
        with tempfile.TemporaryDirectory() as d:
            fake(d, "device_memory.plain", plain)
            fake(d, "device_memory.cucatch", cucatch, cucatch_rc)
            return subprocess.run([sys.executable, RUN_PY, "--bin-dir", d, "--no-sanitizer"],
                                  capture_output=True, text=True)

    def test_extra_and_target_per_step(self):
        p = self.run_py([f"MEMORY one allocated={MIB} used={100 * MIB}",
                         f"MEMORY big allocated={1000 * MIB} used={1100 * MIB}"],
                        [f"MEMORY one allocated={MIB} used={104 * MIB}",
                         f"MEMORY big allocated={1000 * MIB} used={1140 * MIB}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
                for line in p.stdout.splitlines() if line.startswith("| ") and "Step" not in line}
        # one: 4 MiB extra against 8 + 0.01 MiB; big: 40 MiB extra against 8 + 10 MiB.
        self.assertEqual(rows["one"], ["1.0", "100.0", "4.0", "8.0", "yes"])
        self.assertEqual(rows["big"], ["1000.0", "1100.0", "40.0", "18.0", "NO"])

    def test_a_failing_binary_fails_the_run(self):
        p = self.run_py([f"MEMORY one allocated=0 used={MIB}"], ["oops"], cucatch_rc=3)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("exited with 3", p.stderr)

    def test_no_lines_fails_the_run(self):
        p = self.run_py([f"MEMORY one allocated=0 used={MIB}"], ["nothing here"])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("printed no MEMORY lines", p.stderr)


if __name__ == "__main__":
    unittest.main()
