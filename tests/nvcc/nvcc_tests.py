#!/usr/bin/env python3
"""cucatch-nvcc as a drop-in for nvcc, on the CPU (no GPU needed): each case builds real
programs with cucatch-nvcc and checks the result with cuobjdump (every kernel-bearing cubin and
every embedded PTX in the fatbinary is instrumented) and readelf (the runtime is linked), or
checks that cucatch-nvcc behaves exactly like nvcc (output, diagnostics, exit status).

usage: nvcc_tests.py CASE --cucatch-nvcc PATH --nvcc PATH --cuobjdump PATH --work DIR
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


class Failure(Exception):
    pass


def run(cmd, cwd, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def expect(cond, message):
    if not cond:
        raise Failure(message)


class Checker:
    def __init__(self, a):
        self.a = a

    def fatbin(self, binary, cwd):
        """(cubins with kernels, instrumented ones, PTX files, instrumented ones)."""
        syms = run([self.a.cuobjdump, "-symbols", binary], cwd).stdout
        elfs = [s for s in syms.split("Fatbin elf code:")[1:]]
        kernels = [s for s in elfs if "STO_ENTRY" in s]
        # The state, and a unit's marker kernel with its site table: what the runtime looks for
        # (a device link that drops the markers leaves the module unchecked).
        elf_ok = [s for s in kernels if re.search(r"STB_WEAK\s+\S+\s+__cucatch_state\b", s)
                  and re.search(r"STO_ENTRY\s+__cucatch_unit_[0-9a-f]{8}_v\d+", s)
                  and re.search(r"\s__cucatch_sites_[0-9a-f]{8}\b", s)]
        ptx_out = run([self.a.cuobjdump, "-ptx", binary], cwd, check=False).stdout
        ptxs = [s for s in ptx_out.split("Fatbin ptx code:")[1:] if ".entry" in s]
        ptx_ok = [s for s in ptxs if ".const .align 8 .b8 __cucatch_state[64]" in s and re.search(r"\.entry __cucatch_unit_[0-9a-f]{8}_v\d+", s)]
        return kernels, elf_ok, ptxs, ptx_ok

    def instrumented(self, binary, cwd, want_ptx=None):
        kernels, elf_ok, ptxs, ptx_ok = self.fatbin(binary, cwd)
        expect(kernels, f"{binary}: no cubin with kernels in the fatbinary")
        expect(len(elf_ok) == len(kernels),
               f"{binary}: {len(kernels) - len(elf_ok)} of {len(kernels)} kernel cubins are not instrumented")
        expect(len(ptx_ok) == len(ptxs), f"{binary}: {len(ptxs) - len(ptx_ok)} of {len(ptxs)} PTX files not instrumented")
        if want_ptx is not None:
            expect(len(ptxs) == want_ptx, f"{binary}: expected {want_ptx} embedded PTX files, found {len(ptxs)}")
        print(f"{binary}: {len(kernels)} kernel cubins and {len(ptxs)} PTX files, all instrumented")

    def links_runtime(self, binary, cwd):
        dyn = run(["readelf", "-d", binary], cwd).stdout
        needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dyn)
        expect(any(n.endswith("libcucatch.so") for n in needed), f"{binary}: libcucatch.so is not linked: {needed}")
        libc = next(i for i, n in enumerate(needed) if n.startswith("libc.so"))
        mine = next(i for i, n in enumerate(needed) if n.endswith("libcucatch.so"))
        expect(mine < libc, f"{binary}: libcucatch.so must come before libc (its dlsym must win): {needed}")
        print(f"{binary}: links {needed[mine]}")


def case_single(a, c, w):
    run([a.cucatch_nvcc, "-arch=sm_80", "-lineinfo", os.path.join(PROGRAMS, "single.cu"), "-o", "single"], w)
    c.instrumented("single", w, want_ptx=1)
    c.links_runtime("single", w)


def case_gencode(a, c, w):
    run([a.cucatch_nvcc, "-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_90,code=[sm_90,compute_90]",
         "-G", os.path.join(PROGRAMS, "single.cu"), "-o", "multi"], w)
    kernels, _, ptxs, _ = c.fatbin("multi", w)
    expect(len(kernels) == 2, f"expected sm_75 and sm_90 cubins, found {len(kernels)}")
    c.instrumented("multi", w, want_ptx=1)


def case_rdc(a, c, w):
    for f in ("rdc_device", "rdc_main"):
        run([a.cucatch_nvcc, "-arch=sm_80", "-rdc=true", "-lineinfo", "-c", os.path.join(PROGRAMS, f + ".cu"), "-o", f + ".o"], w)
        c.instrumented(f + ".o", w)
    run([a.cucatch_nvcc, "-arch=sm_80", "-rdc=true", "rdc_main.o", "rdc_device.o", "-o", "rdc"], w)
    c.instrumented("rdc", w)
    c.links_runtime("rdc", w)
    # Device link as its own step (-dlink), then a host link by nvcc.
    run([a.cucatch_nvcc, "-arch=sm_80", "-dlink", "rdc_main.o", "rdc_device.o", "-o", "dlink.o"], w)
    run([a.cucatch_nvcc, "-arch=sm_80", "rdc_main.o", "rdc_device.o", "dlink.o", "-o", "rdc2"], w)
    c.instrumented("rdc2", w)
    c.links_runtime("rdc2", w)


def case_static_library(a, c, w):
    run([a.cucatch_nvcc, "-arch=sm_80", "-lib", os.path.join(PROGRAMS, "lib_kernels.cu"), "-o", "libkernels.a"], w)
    c.instrumented("libkernels.a", w)
    run([a.cucatch_nvcc, "-arch=sm_80", os.path.join(PROGRAMS, "lib_main.cu"), "libkernels.a", "-o", "libapp"], w)
    c.instrumented("libapp", w)
    c.links_runtime("libapp", w)


def case_shared_cudart(a, c, w):
    # A program linked with the shared CUDA runtime calls nothing of libcucatch's (which
    # interposes on the driver): a linker run --as-needed (GCC's default on Ubuntu) dropped it,
    # and the program ran unchecked (NVIDIA's nccl-tests link -lcudart so).
    run([a.cucatch_nvcc, "-arch=sm_80", "-c", os.path.join(PROGRAMS, "single.cu"), "-o", "single.o"], w)
    for name, flags in (("lcudart", ["-lcudart"]), ("cudart_shared", ["-cudart", "shared"]),
                        ("as_needed", ["-Xlinker", "--as-needed", "-lcudart"])):
        run([a.cucatch_nvcc, "-arch=sm_80", "single.o", "-o", name] + flags, w)
        c.links_runtime(name, w)


def case_cmake(a, c, w):
    build = os.path.join(w, "build")
    env = dict(os.environ)
    run(["cmake", "-S", os.path.join(HERE, "cmake-project"), "-B", build, "-G", "Ninja",
         f"-DCMAKE_CUDA_COMPILER={a.cucatch_nvcc}"], w, env)
    run(["cmake", "--build", build], w, env)
    for exe in ("app", "rdc_app"):
        c.instrumented(os.path.join(build, exe), w)
        c.links_runtime(os.path.join(build, exe), w)


def same_as_nvcc(a, w, args, compare_stdout=True, files=()):
    """Runs nvcc and cucatch-nvcc with `args`; status and stdout (and listed files) must agree."""
    results = []
    for tool in (a.nvcc, a.cucatch_nvcc):
        p = run([tool] + args, w, check=False)
        contents = [open(os.path.join(w, f)).read() if os.path.exists(os.path.join(w, f)) else None for f in files]
        results.append((p, contents))
    (pn, fn), (pc, fc) = results
    expect(pn.returncode == pc.returncode,
           f"{args}: nvcc exited {pn.returncode}, cucatch-nvcc {pc.returncode}\n{pc.stderr}")
    if compare_stdout:
        expect(pn.stdout == pc.stdout, f"{args}: stdout differs\n--- nvcc\n{pn.stdout[:2000]}\n--- cucatch-nvcc\n{pc.stdout[:2000]}")
    expect(fn == fc, f"{args}: the files {files} differ")
    return pn, pc


def case_passthrough(a, c, w):
    single = os.path.join(PROGRAMS, "single.cu")
    same_as_nvcc(a, w, ["--version"])
    same_as_nvcc(a, w, ["-M", single])
    same_as_nvcc(a, w, ["-E", "-arch=sm_80", single])
    same_as_nvcc(a, w, ["-arch=sm_80", "-c", single, "-o", "dep.o", "-MD", "-MF", "dep.d"], files=["dep.d"])
    pn, pc = same_as_nvcc(a, w, ["-c", os.path.join(PROGRAMS, "broken.cu"), "-o", "broken.o"])
    expect(pn.returncode != 0, "broken.cu compiled")
    err = [l for l in pn.stderr.splitlines() if "error" in l]
    expect(err and all(l in pc.stderr for l in err), f"diagnostics differ:\n{pn.stderr}\n---\n{pc.stderr}")
    same_as_nvcc(a, w, ["--no-such-flag", single])
    # Flags for the host compiler, ptxas, and other nvcc options pass through.
    p = run([a.cucatch_nvcc, "-arch=sm_80", "-Xptxas", "-v", "-Xcompiler", "-Wall", "-ccbin", "g++", "-c", single, "-o", "x.o"], w)
    expect("Used" in p.stderr and "registers" in p.stderr, "-Xptxas -v printed no register usage")
    os.makedirs(os.path.join(w, "keep"), exist_ok=True)
    run([a.cucatch_nvcc, "-arch=sm_80", "--keep", "--keep-dir", "keep", "-c", single, "-o", "k.o"], w)
    kept = [f for f in os.listdir(os.path.join(w, "keep")) if f.endswith(".ptx")]
    expect(kept and all("__cucatch_state" in open(os.path.join(w, "keep", f)).read() for f in kept),
           f"--keep left uninstrumented PTX: {kept}")
    with open(os.path.join(w, "opts.txt"), "w") as f:
        f.write("-arch=sm_80 -lineinfo\n")
    shutil.copy(single, os.path.join(w, "single_as.cpp"))
    run([a.cucatch_nvcc, "--options-file", "opts.txt", "-x", "cu", "single_as.cpp", "-o", "fromcpp"], w)
    c.instrumented("fromcpp", w)
    run([a.cucatch_nvcc, "-arch=sm_80", "-ptx", single, "-o", "single.ptx"], w)
    expect("__cucatch_state" in open(os.path.join(w, "single.ptx")).read(), "-ptx output is not instrumented")
    # CUCATCH_NVCC selects the real nvcc.
    log = os.path.join(w, "nvcc.log")
    shim = os.path.join(w, "nvcc-shim", "nvcc")
    os.makedirs(os.path.dirname(shim), exist_ok=True)
    with open(shim, "w") as f:
        f.write(f"#!/bin/sh\necho \"$@\" >> {log}\nexec {a.nvcc} \"$@\"\n")
    os.chmod(shim, 0o755)
    with open(os.path.join(os.path.dirname(shim), "nvcc.profile"), "w") as f:
        f.write(open(os.path.join(os.path.dirname(os.path.realpath(a.nvcc)), "nvcc.profile")).read()
                .replace("$(_HERE_)/..", os.path.dirname(os.path.dirname(os.path.realpath(a.nvcc)))))
    env = dict(os.environ, CUCATCH_NVCC=shim)
    run([a.cucatch_nvcc, "-arch=sm_80", "-c", single, "-o", "viashim.o"], w, env)
    expect(os.path.exists(log) and "viashim.o" in open(log).read(), "CUCATCH_NVCC was not used")


def case_ptxas_reuse(a, c, w):
    # cucatch-ptx compiles the instrumented module to measure its registers; where that compile had
    # exactly the text and options nvcc's ptxas gets, cucatch's ptxas copies its object instead of
    # compiling again (toolchain/CubinReuse.h). The copy must be byte for byte what ptxas writes.
    tmp = os.path.join(w, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    src = os.path.join(PROGRAMS, "single.cu")
    reused = "is the object cucatch-ptx compiled to measure registers"
    for flags, expected in (([], True), (["-lineinfo"], True), (["-maxrregcount=40"], True),
                            (["-Xptxas", "-O2"], True), (["-G"], False), (["-rdc=true"], False),
                            (["-Xptxas", "-v"], False)):
        name = "_".join(f.strip("-").replace("=", "") for f in flags) or "plain"
        p = run([a.cucatch_nvcc, "-v", "-arch=sm_80"] + flags + ["-cubin", src, "-o", name + ".cubin"], w, env)
        expect((reused in p.stderr) == expected,
               f"{flags}: the measurement's object was {'not ' if expected else ''}taken:\n{p.stderr[-3000:]}")
        if not expected:
            continue
        # What ptxas itself writes from the same PTX with nvcc's options (-v lists its command).
        command = next(l for l in p.stderr.splitlines() if re.match(r'#\$ "?\S*ptxas"? ', l))
        words = shlex.split(command[3:])
        options = [x for i, x in enumerate(words[1:], 1)
                   if not x.endswith(".ptx") and x != "-o" and words[i - 1] != "-o"]
        run([a.cucatch_nvcc, "-arch=sm_80"] + flags + ["-ptx", src, "-o", name + ".ptx"], w, env)
        run([os.path.join(os.path.dirname(a.nvcc), "ptxas")] + options + [name + ".ptx", "-o", name + ".direct.cubin"], w)
        with open(os.path.join(w, name + ".cubin"), "rb") as x, open(os.path.join(w, name + ".direct.cubin"), "rb") as y:
            expect(x.read() == y.read(), f"{flags}: the object taken differs from what ptxas {options} writes")
        print(f"{flags}: the measurement's object taken, identical to ptxas's")
    # Turned off, every module is compiled again; a value other than 0 or 1 is refused.
    p = run([a.cucatch_nvcc, "-v", "-arch=sm_80", "-cubin", src, "-o", "off.cubin"], w,
            dict(env, CUCATCH_PTXAS_REUSE="0"))
    expect(reused not in p.stderr, "CUCATCH_PTXAS_REUSE=0: the measurement's object was taken")
    p = run([a.cucatch_nvcc, "-arch=sm_80", "-c", src, "-o", "bad.o"], w, dict(env, CUCATCH_PTXAS_REUSE="yes"),
            check=False)
    expect(p.returncode != 0 and "CUCATCH_PTXAS_REUSE takes 0 or 1" in p.stderr,
           f"CUCATCH_PTXAS_REUSE=yes was not refused: {p.returncode}\n{p.stderr[-500:]}")
    # Two targets compiled at once (nvcc --threads): each takes its own measurement's object; a
    # cubin for sm_86 from compute_80's PTX (another -arch than the measurement's) compiles again.
    p = run([a.cucatch_nvcc, "-v", "--threads", "3", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
             "arch=compute_90,code=sm_90", "-gencode", "arch=compute_80,code=sm_86", "-c", src, "-o", "multi.o"], w, env)
    taken = [l for l in p.stderr.splitlines() if reused in l]
    expect(len(taken) == 2 and not any("sm_86" in l for l in taken),
           f"--threads 3, three targets: expected sm_80's and sm_90's objects taken, not sm_86's: {taken}")
    c.instrumented("multi.o", w)
    # A failed build too leaves nothing behind.
    p = run([a.cucatch_nvcc, "-arch=sm_80", "-c", os.path.join(PROGRAMS, "broken.cu"), "-o", "broken.o"], w, env,
            check=False)
    expect(p.returncode != 0, "broken.cu compiled")
    expect(not os.listdir(tmp), f"cucatch-nvcc left {os.listdir(tmp)} in TMPDIR")


def children_of(pid):
    """The pids whose parent is `pid` (from /proc: no procps needed)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == int(pid):
                    out.append(entry)
        except (OSError, ValueError, IndexError):
            pass
    return out


def running(pid):
    """Whether process `pid` exists and has not ended (a zombie waits only for its parent to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def case_signals(a, c, w):
    # cucatch-nvcc runs nvcc as a child (so that it can remove its directory afterwards): a signal
    # that stops the build must stop nvcc as before, and leave nothing of cucatch's behind.
    tmp = os.path.join(w, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    src = os.path.join(PROGRAMS, "single.cu")
    # SIGINT to the process group, as a terminal's Ctrl-C sends it (nvcc itself waits for its
    # children on SIGINT: sent to nvcc alone it exits 0, plain or not); the others to
    # cucatch-nvcc alone, as a build tool stopping its job does.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        p = subprocess.Popen([a.cucatch_nvcc, "-arch=sm_80", "-c", src, "-o", "sig.o"], cwd=w, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        # Once nvcc runs a compiler of its own (so that there is something to stop).
        children = []
        for _ in range(400):
            children = children_of(p.pid)
            if any(children_of(c) for c in children):
                break
            time.sleep(0.025)
        expect(p.poll() is None and children, f"{sig.name}: the compilation ended before nvcc ran anything")
        if sig == signal.SIGINT:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
        p.wait(timeout=60)
        expect(p.returncode != 0, f"{sig.name}: cucatch-nvcc exited 0")
        time.sleep(0.5)
        alive = [pid for pid in children if running(pid)]
        expect(not alive, f"{sig.name}: nvcc (pid {alive}) still runs after cucatch-nvcc ended")
        left = [n for n in os.listdir(tmp) if n.startswith("cucatch-nvcc-")]
        # (SIGKILL cannot be caught: only its directory may be left.)
        expect(sig == signal.SIGKILL or not left, f"{sig.name}: cucatch-nvcc left {left} in TMPDIR")
        print(f"{sig.name}: cucatch-nvcc exited {p.returncode}, nvcc ended with it")
        for n in left:
            shutil.rmtree(os.path.join(tmp, n), ignore_errors=True)


def case_bad_ptx_fails_build(a, c, w):
    # cucatch-ptx refusing a module must fail the build, not ship it uninstrumented.
    env = dict(os.environ, CUCATCH_PTX_FLAGS="--no-such-option")
    p = run([a.cucatch_nvcc, "-arch=sm_80", "-c", os.path.join(PROGRAMS, "single.cu"), "-o", "bad.o"], w, env, check=False)
    expect(p.returncode != 0, "the build succeeded although instrumentation failed")
    expect("cucatch-nvcc: error:" in p.stderr, f"no cucatch-nvcc error message:\n{p.stderr}")


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--cucatch-nvcc", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--cuobjdump", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if not os.path.exists(a.cuobjdump):
        print(f"FAIL: cuobjdump not found at {a.cuobjdump} (scripts/install-deps.sh installs it)")
        return 1
    w = os.path.join(a.work, a.case)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    try:
        CASES[a.case](a, Checker(a), w)
    except Failure as e:
        print(f"FAIL: {e}")
        return 1
    print(f"PASS: {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
