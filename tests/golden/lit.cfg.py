# lit configuration for cucatch's golden PTX tests: each test is a small PTX module with RUN
# lines and FileCheck CHECK lines next to the input, as in LLVM's instrumentation tests.
import os
import lit.formats

config.name = "cucatch-golden"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py"]
config.substitutions.append(("%cucatch-ptx", lit_config.params["cucatch_ptx"]))
config.substitutions.append(("%ptxas", lit_config.params.get("ptxas", "ptxas")))
config.environment["PATH"] = os.pathsep.join([lit_config.params["filecheck_dir"], os.environ.get("PATH", "")])
