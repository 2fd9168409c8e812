# lit configuration for cucatch's golden PTX tests: each test is a small PTX module with RUN
# lines and FileCheck CHECK lines next to the input, as in LLVM's instrumentation tests.
import os
import lit.formats

config.name = "cucatch-golden"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx"]
config.test_source_root = os.path.dirname(__file__)
# Each golden test is its own lit run (CMake adds one CTest test per file) and gets its own
# directory for its outputs and for lit's record of test times (.lit_test_times.txt): lit reads
# and rewrites that file in every run, and runs in parallel sharing the source directory's
# copy corrupted it (CI saw "not enough values to unpack" in every golden test after one).
if "exec_root" in lit_config.params:
    config.test_exec_root = lit_config.params["exec_root"]
config.excludes = ["lit.cfg.py"]
config.substitutions.append(("%cucatch-ptx", lit_config.params["cucatch_ptx"]))
config.substitutions.append(("%ptxas", lit_config.params.get("ptxas", "ptxas")))
config.environment["PATH"] = os.pathsep.join([lit_config.params["filecheck_dir"], os.environ.get("PATH", "")])
