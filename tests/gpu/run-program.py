#!/usr/bin/env python3
"""Runs one program of the GPU suite (tests/gpu/programs) and judges it by its annotation.

  // cucatch-expect: clean
      NAME.plain (nvcc) and NAME.cucatch (cucatch-nvcc) both exit 0 with identical stdout,
      and the cucatch build prints no line starting with "cucatch:".
  // cucatch-expect: KIND [ACCESS SIZE] [kernel=SUBSTRING] [memory=KIND [heap-log=reused]] [object=NAME space=SPACE [part=OFFSET] [frame_offset=OFFSET [neighbour=OFFSET]]] [window=SPACE] [frame=FUNCTION] [table-frame=FUNCTION | table-frame-reused=FUNCTION]
      NAME.cucatch exits 1 (CUCATCH_ERROR_EXITCODE's default), prints "cucatch: ERROR:", and
      its JSON report (CUCATCH_REPORT) holds an error of that kind, access and size, in that
      kernel, at the line marked "// cucatch-bug-line" of this file (or of a program it includes whole,
      `#include "other.cu"`, built another way), with its allocation (of
      that memory kind; memory=device-heap: a block of the device heap, whose malloc and free
      are at the lines marked "// cucatch-alloc-line" and "// cucatch-free-line"; with
      heap-log=reused, the report must say that the block's malloc is no longer known, its tag
      having gone to another block, and name no malloc), or with
      object=: checked against the variable of that name (its
      demangled name ends with "NAME") in that space (global, shared, const, local), with part=: its
      part at that offset (dynamic shared memory carved, --shared-parts), with frame_offset=: the
      array of the frame NAME at that offset (with neighbour=: the access landed in another array
      of that frame, at this offset in the frame), or with window=:
      checked against that space's whole window (a shared address of unknown origin), or with
      frame=: checked against the local memory live in kernel FUNCTION (its demangled name starts
      with FUNCTION): its own frame, or none (a use after scope).
      table-frame=: checked against the frame of FUNCTION that a device function's frame table
      placed the address in: live (out-of-bounds), or returned (use-after-scope); with
      frame_offset=: against its array at that offset (and neighbour=, as above).
      table-frame-reused=: use-after-scope through a pointer whose frame (of FUNCTION) returned,
      the address inside the live frame a later call put where it was (frame tags).

  // cucatch-expect: launch-refused kernel=SUBSTRING
      NAME.cucatch fails, and the runtime explains the refused launch of that kernel:
      "cucatch: error: the launch of kernel ..." with its registers.

  Also: "// cucatch-flags: FLAGS" builds both with these nvcc flags too (tests/CMakeLists.txt);
  "// cucatch-env: VAR=VALUE" runs the cucatch build with that variable set
  ("// cucatch-build-env: VAR=VALUE" is for building it, in tests/CMakeLists.txt);
  "// cucatch-expect-checked: KERNEL" wants the runtime's log (CUCATCH_DEBUG=1) to show that
  kernel's launches as launches of an instrumented kernel (a clean run of an unchecked kernel
  proves nothing); "// cucatch-expect-note: TEXT" wants a "cucatch: note:" line containing TEXT from a clean
  program's cucatch build (and allows it); "// cucatch-expect-launch-twin: KERNEL [(API)] [xN]" wants
  the runtime's log to show that kernel's launch twin launched in its place (its pointers' bounds
  taken from the launch), through that driver entry point where one is given, exactly N times where
  N is given, and no twin refused; "// cucatch-expect-tagged" wants the cucatch build to print "pointers: tagged" on stderr
  (common.h's sayWhetherTagged), so that a clean run is known to have used tagged pointers, and
  "// cucatch-expect-raw" wants "pointers: raw" (memory a precompiled library allocated);
  with --jit plain (or --jit ptx), the plain build NAME.plain (or the PTX-only one, NAME.ptx) under
  `cucatch-run --jit` takes the cucatch build's place and is judged the same way, launching no
  launch twins (CUCATCH_LAUNCH_METADATA=0, unless the program expects twins or sets it: so that one
  of the two runs checks pointer parameters against the device's tables) (JIT mode
  instruments its PTX; "// cucatch-build-env:" variables are set for the run, which is where JIT
  mode reads CUCATCH_PTX_FLAGS), except that what holds for the cucatch build only (its notes,
  "expect-tagged", "expect-raw", "also: with tags on") is left out, and any "// cucatch-jit-X"
  annotation is "// cucatch-X" for JIT mode only (such as "// cucatch-jit-env: CUCATCH_TAGS=1",
  "// cucatch-jit-expect-note: TEXT" or "// cucatch-jit-expect: clean");
  "// cucatch-needs-gpus: N" skips the program (exit 77, saying so) on a machine with fewer GPUs,
  and a clean program whose plain build exits 77 is skipped (it says on stdout what the machine
  lacks: ok_pageable_after_unregister, where the device cannot read pageable host memory);
  "// cucatch-expect-errors: N" wants exactly N (folded) reports and the program to run to its
  end (continue mode); "// cucatch-also: run the plain build under cucatch-run" checks that
  host-side errors are caught in a program cucatch-nvcc did not build; "// cucatch-also: with
  tags on, fails with the CUCATCH_TAGS=0 hint" (a clean program that needs CUCATCH_TAGS=0)
  wants its cucatch build, run with tags on, to fail and print the runtime's hint.

  A Python program (NAME.py, annotations behind "#") uses precompiled kernels only (PyTorch):
  it runs as it is and under cucatch-run, and must be "clean"; or, annotated "cucatch-modes: jit"
  (tests/CMakeLists.txt), it builds a PyTorch extension that only JIT mode checks, and may have
  a bug. "# cucatch-needs-module: M"
  skips it where Python cannot import M.

usage: run-program.py NAME --bin-dir DIR --src-dir DIR [--cucatch-run PATH]
Exit status: 0 pass, 1 fail, 77 skipped (no GPU here, or a module a Python program needs).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(cmd, env=None):
    try:
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        fail(f"{cmd[0]} ran for more than 300 s")


def expect_launch_twins(text, cmd, env):
    """"// cucatch-expect-launch-twin: KERNEL [(API)]": the runtime's log (CUCATCH_DEBUG=1) shows a launch of
    that kernel's launch twin in its place (instrument/LaunchMetadata.h), so that the run is known
    to have taken its pointers' bounds from the launch."""
    kernels = [l[len("// cucatch-expect-launch-twin: "):] for l in text if l.startswith("// cucatch-expect-launch-twin: ")]
    if not kernels:
        return
    d = run(cmd, env=dict(env, CUCATCH_DEBUG="1"))
    lines = d.stderr.splitlines()
    for expected in kernels:
        # "KERNEL", "KERNEL (API)": a launch through that driver entry point; "... xN": exactly N
        # (the other launches of the kernel ran the kernel itself).
        words = expected.split()
        count = int(words.pop()[1:]) if len(words) > 1 and re.fullmatch(r"x\d+", words[-1]) else None
        kernel, api = words[0], " ".join(words[1:])
        n = sum(1 for l in lines if l.startswith("cucatch: debug: launch twin ") and kernel in l
                and "__cc_launch in place" in l and l.endswith(api))
        if (count is None and n == 0) or (count is not None and n != count):
            fail(f"{n} launches of kernel {kernel}'s launch twin{' through ' + api if api else ''} in the "
                 f"runtime's log, expected {count if count is not None else 'some'}")
    # A twin the driver refused (an attribute of the kernel it lacks) ran the kernel instead.
    refused = [l for l in lines if l.startswith("cucatch: debug: the driver refused ")]
    if refused:
        fail(f"a launch twin was refused: {refused[0]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--src-dir", required=True)
    ap.add_argument("--cucatch-run")
    ap.add_argument("--jit", choices=["plain", "ptx"],
                    help="judge this plain build (NAME.plain, or the PTX-only NAME.ptx) under cucatch-run --jit")
    a = ap.parse_args()
    try:
        gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except OSError:  # no nvidia-smi at all
        gpu = False
    if not gpu:
        print(f"SKIPPED: no GPU on this machine ({a.name})")
        return 77
    python = os.path.exists(os.path.join(a.src_dir, a.name + ".py"))
    source = os.path.join(a.src_dir, a.name + (".py" if python else ".cu"))
    text = open(source).read().splitlines()
    if python:  # the same annotations behind "#"
        text = ["//" + l[1:] if l.startswith("# cucatch-") else l for l in text]
    needs = [int(l.split(":")[1]) for l in text if l.startswith("// cucatch-needs-gpus:")]
    if needs:
        gpus = len([l for l in subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.splitlines()
                    if l.startswith("GPU ")])
        if gpus < needs[0]:
            print(f"SKIPPED: {a.name} needs {needs[0]} GPUs, this machine has {gpus}")
            return 77
    m = re.match(r"// cucatch-expect: (.*)$", text[0])
    if not m:
        fail(f"{source}: no cucatch-expect annotation on line 1")
    if a.jit:  # "// cucatch-jit-expect: ...": what JIT mode does differs (a cubin it cannot check)
        m = next((re.match(r"// cucatch-jit-expect: (.*)$", l) for l in text if l.startswith("// cucatch-jit-expect: ")), m)
    words = m.group(1).split()
    plain = os.path.join(a.bin_dir, a.name + ".plain")
    checked = os.path.join(a.bin_dir, a.name + ".cucatch")
    if python:
        if (words[0] != "clean" and not a.jit) or not a.cucatch_run:
            fail(f"{source}: a Python program is 'clean' (a bug only JIT mode checks), and needs --cucatch-run")
        for l in text:
            if l.startswith("// cucatch-needs-module: "):
                module = l.split(": ", 1)[1].strip()
                if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode != 0:
                    print(f"SKIPPED: Python has no module {module} here ({a.name})")
                    return 77
        plain_cmd = [sys.executable, source]
        checked_cmd = [a.cucatch_run] + (["--jit"] if a.jit else []) + ["--", sys.executable, source]
    else:
        for b in (plain, checked):
            if not os.path.exists(b):
                fail(f"{b} is missing: build the gpu-programs target first (cmake --build build --target gpu-programs)")
        plain_cmd, checked_cmd = [plain], [checked]
        if a.jit:
            if not a.cucatch_run:
                fail("--jit needs --cucatch-run")
            jitted = os.path.join(a.bin_dir, f"{a.name}.{a.jit}")
            if not os.path.exists(jitted):
                fail(f"{jitted} is missing: build the gpu-programs target first")
            checked_cmd = [a.cucatch_run, "--jit", "--", jitted]

    if a.jit:
        # What a cucatch-nvcc build says or tags does not hold for JIT mode (which instruments all
        # the program's code, and leaves tags off unless CUCATCH_TAGS=1): its own annotations do.
        compiled_only = ("// cucatch-expect-note: ", "// cucatch-expect-tagged", "// cucatch-expect-raw",
                         "// cucatch-also: with tags on")
        text = [l.replace("// cucatch-jit-", "// cucatch-", 1) for l in text if not l.startswith(compiled_only)]
    env = dict(os.environ)
    if a.jit and not any(l.startswith("// cucatch-expect-launch-twin: ") for l in text):
        # JIT-mode runs launch the kernels themselves, not their launch twins, unless the program
        # asks for twins: a twin's pointer parameters get their bounds from the host's tables at
        # the launch, so with twins in both runs a pointer parameter's accesses would never be
        # checked against the device's tables, whose every update these programs are there to
        # test (ok_graph_capture_index_reuse passed on a runtime that wrote them wrong).
        env["CUCATCH_LAUNCH_METADATA"] = "0"
    for l in text:
        for prefix in ["// cucatch-env: "] + (["// cucatch-build-env: "] if a.jit else []):
            if l.startswith(prefix):
                k, v = l[len(prefix):].split("=", 1)
                env[k] = v

    if words[0] == "clean":
        p = run(plain_cmd)
        if p.returncode == 77:  # the program found the machine without what it needs
            print(f"SKIPPED: {a.name}: {p.stdout.strip()}")
            return 77
        c = run(checked_cmd, env=env)
        notes = [l[len("// cucatch-expect-note: "):] for l in text if l.startswith("// cucatch-expect-note: ")]
        for note in notes:
            if not any(l.startswith("cucatch: note:") and note in l for l in c.stderr.splitlines()):
                fail(f"no 'cucatch: note:' line says '{note}':\n{c.stderr[-3000:]}")
        ours = [l for l in c.stderr.splitlines()
                if l.startswith("cucatch:") and not (l.startswith("cucatch: note:") and any(n in l for n in notes))]
        if p.returncode != 0:
            fail(f"the plain build exited {p.returncode}:\n{p.stderr}")
        if ours:
            fail("false positive:\n" + "\n".join(ours[:40]))
        if c.returncode != 0:
            fail(f"the cucatch build exited {c.returncode}:\n{c.stderr[-3000:]}")
        if p.stdout != c.stdout:
            fail(f"output differs:\n--- plain\n{p.stdout}\n--- cucatch\n{c.stdout}")
        if "// cucatch-expect-tagged" in text and "pointers: tagged" not in c.stderr.splitlines():
            fail(f"the cucatch build did not run with tagged pointers:\n{c.stderr[-3000:]}")
        if "// cucatch-expect-raw" in text and "pointers: raw" not in c.stderr.splitlines():
            fail(f"the cucatch build did not run with raw pointers:\n{c.stderr[-3000:]}")
        # A clean run proves nothing where the kernel ran unchecked (every -rdc program did, once):
        # the runtime's log must say the launch was of an instrumented kernel.
        for kernel in [l[len("// cucatch-expect-checked: "):] for l in text if l.startswith("// cucatch-expect-checked: ")]:
            d = run(checked_cmd, env=dict(env, CUCATCH_DEBUG="1"))
            launches = [l for l in d.stderr.splitlines() if l.startswith("cucatch: debug: cuLaunch") and kernel in l]
            if not launches or not all(" in an instrumented module" in l and "not instrumented)" not in l
                                       for l in launches):
                fail(f"kernel {kernel} did not run as an instrumented kernel: {launches[:3] or 'no launch logged'}")
        if "// cucatch-also: with tags on, fails with the CUCATCH_TAGS=0 hint" in text:
            t = run(checked_cmd, env=dict(env, CUCATCH_TAGS="1"))
            hint = [l for l in t.stderr.splitlines() if l.startswith("cucatch: warning:") and "CUCATCH_TAGS=0" in l]
            if t.returncode == 0 or not hint:
                fail(f"with tags on: exit {t.returncode}, expected a failure and the CUCATCH_TAGS=0 hint\n"
                     f"{t.stderr[-3000:]}")
        expect_launch_twins(text, checked_cmd, env)
        print(f"PASS: {a.name}: silent, output identical ({p.stdout.strip()})")
        return 0

    if words[0] == "launch-refused":
        kernel = next((w[len("kernel="):] for w in words[1:] if w.startswith("kernel=")), "")
        c = run(checked_cmd, env=env)
        explained = [l for l in c.stderr.splitlines()
                     if l.startswith("cucatch: error: the launch of kernel") and kernel in l and "registers" in l]
        if c.returncode == 0 or not explained:
            fail(f"exit {c.returncode}, expected a failure explained by cucatch for kernel {kernel}:\n{c.stderr[-3000:]}")
        print(f"PASS: {a.name}: {explained[0]}")
        return 0

    kind = words[0]
    access = size = kernel = memory = obj = space = window = part = frame_offset = neighbour = frame = heap_log = table_frame = None
    reused = False
    rest = [w for w in words[1:] if "=" not in w]
    for w in words[1:]:
        if w.startswith("kernel="):
            kernel = w[len("kernel="):]
        if w.startswith("memory="):
            memory = w[len("memory="):]
        if w.startswith("object="):
            obj = w[len("object="):]
        if w.startswith("space="):
            space = w[len("space="):]
        if w.startswith("window="):
            window = w[len("window="):]
        if w.startswith("part="):
            part = int(w[len("part="):])
        if w.startswith("frame_offset="):
            frame_offset = int(w[len("frame_offset="):])
        if w.startswith("neighbour="):
            neighbour = int(w[len("neighbour="):])
        if w.startswith("frame="):
            frame = w[len("frame="):]
        if w.startswith("table-frame="):
            table_frame = w[len("table-frame="):]
        if w.startswith("table-frame-reused="):
            table_frame, reused = w[len("table-frame-reused="):], True
        if w.startswith("heap-log="):
            heap_log = w[len("heap-log="):]
    if rest:
        access, size = rest[0], int(rest[1])
    # The lines marked in this file, and in a program it includes whole (`#include "other.cu"`: the
    # same program built another way, such as -rdc), by file name.
    bug_lines = {(os.path.basename(source), i + 1) for i, l in enumerate(text) if "// cucatch-bug-line" in l}
    for l in text:
        m = re.match(r'#include "([^"/]+\.cu)"', l)
        if m:
            included = open(os.path.join(os.path.dirname(source), m.group(1))).read().splitlines()
            bug_lines |= {(m.group(1), i + 1) for i, t in enumerate(included) if "// cucatch-bug-line" in t}
    count = [int(l.split(":")[1]) for l in text if l.startswith("// cucatch-expect-errors:")]
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        c = run(checked_cmd, env=dict(env, CUCATCH_REPORT="json:" + report))
        if c.returncode != 1:
            fail(f"exit status {c.returncode}, expected 1\nstdout:\n{c.stdout}\nstderr:\n{c.stderr[-3000:]}")
        if not any(l.startswith("cucatch: ERROR:") for l in c.stderr.splitlines()):
            fail(f"no 'cucatch: ERROR:' line:\n{c.stderr[-3000:]}")
        if not os.path.exists(report):
            fail("no JSON report written")
        doc = json.load(open(report))
        errors = doc["errors"] + doc.get("leaks", [])
        if count and len(errors) != count[0]:
            fail(f"{len(errors)} reports, expected {count[0]}:\n{c.stderr[-3000:]}")
        if count and not c.stdout.strip():
            fail("the program did not run to its end in continue mode")

    def why_not(e):
        if e.get("kind") != kind:
            return f"kind {e.get('kind')}"
        if access and (e.get("access"), e.get("size")) != (access, size):
            return f"access {e.get('access')} {e.get('size')}"
        if kernel and kernel not in e.get("kernel", ""):
            return f"kernel {e.get('kernel')}"
        if bug_lines and "line" in e:
            # The access's own line, or where the code holding it was inlined (atomicAdd).
            places = [(e.get("file", ""), e.get("line"))]
            if "inlined_at" in e:
                places.append((e["inlined_at"].get("file", ""), e["inlined_at"].get("line")))
            if not any((os.path.basename(f), l) in bug_lines for f, l in places):
                return f"at {places}, expected one of {sorted(bug_lines)}"
        if kind == "null-pointer-dereference":
            # No allocation: the offset from null is the report's.
            return None if "offset_from_null" in e else "no offset_from_null"
        if frame:
            f = e.get("live_frame", {})
            if not f.get("function", "").startswith(frame):
                return f"live frame {f}, expected kernel {frame}'s"
            return None if "allocation" not in e and "object" not in e else "an allocation or variable, expected frames"
        if table_frame:
            f = e.get("table_frame", {})
            if not f.get("function", "").startswith(table_frame):
                return f"table frame {f}, expected a frame of {table_frame}"
            if f.get("returned") != (kind == "use-after-scope"):
                return f"table frame {f}: returned should be {kind == 'use-after-scope'}"
            if bool(f.get("reused")) != reused:
                return f"table frame {f}: reused should be {reused}"
            if reused and f.get("live"):
                return f"table frame {f}: names the live frame, expected the pointer's (returned) frame"
            if frame_offset is not None and f.get("array", {}).get("frame_offset") != frame_offset:
                return f"table frame {f}: expected its array at frame offset {frame_offset}"
            if neighbour is not None and f.get("array", {}).get("neighbour", {}).get("frame_offset") != neighbour:
                return f"table frame {f}: expected an access into the neighbouring array at frame offset {neighbour}"
            return None if "allocation" not in e and "object" not in e else "an allocation or variable, expected a frame"
        if window:
            w = e.get("window", {})
            if w.get("space") != window or "offset" not in w:
                return f"window {w}, expected the {window} window"
            return None if "allocation" not in e and "object" not in e else "an allocation or variable, expected a window"
        if obj:
            o = e.get("object", {})
            if not o.get("name", "").endswith(obj) or "offset" not in o:
                return f"object {o}, expected {obj}"
            if space and o.get("space") != space:
                return f"object space {o.get('space')}, expected {space}"
            if part is not None and o.get("part", {}).get("offset") != part:
                return f"object part {o.get('part')}, expected the part at offset {part}"
            if frame_offset is not None and o.get("frame_offset") != frame_offset:
                return f"frame offset {o.get('frame_offset')}, expected the local array at {frame_offset}"
            if neighbour is not None and o.get("neighbour", {}).get("frame_offset") != neighbour:
                return f"neighbour {o.get('neighbour')}, expected the access at frame offset {neighbour}"
            return None if "allocation" not in e else "an allocation, expected a variable"
        if memory == "device-heap":
            # A block of the device heap: its malloc (and free) at the lines marked so, in this file.
            hb = e.get("heap_block")
            if not hb or "allocation" in e:
                return f"no device-heap block (heap_block {hb}, allocation {e.get('allocation')})"
            if heap_log == "reused":
                # The block's malloc event was another block's by the time of the report: not named,
                # and the text says it is not known.
                if "malloc" not in hb.get("log_reused", []) or "allocated_by" in hb:
                    return f"heap_block {hb}, expected the malloc in log_reused and no allocated_by"
                if "allocated by (not known: the block's tag was given to another block" not in c.stderr:
                    return "the text does not say the block's malloc is not known"
                return None
            for key, marker in (("allocated_by", "// cucatch-alloc-line"), ("freed_by", "// cucatch-free-line")):
                lines = [i + 1 for i, l in enumerate(text) if marker in l]
                call = hb.get(key, {})
                # The call's own line, or where the code holding it was inlined (the device
                # runtime's cudaMalloc and cudaFree, inline functions of its header).
                places = [(call.get("file", ""), call.get("line"))]
                if "inlined_at" in call:
                    places.append((call["inlined_at"].get("file", ""), call["inlined_at"].get("line")))
                if lines and not any(l in lines and os.path.basename(f) == os.path.basename(source) for f, l in places):
                    return f"{key} {hb.get(key)}, expected line {lines}"
            return None
        if "object" in e and "allocation" not in e:
            # A module variable: named, with the offset into it.
            return None if e["object"].get("name") and "offset" in e["object"] else f"object {e['object']}"
        if "allocation" not in e:
            return "no allocation"
        if memory and e["allocation"].get("memory") != memory:
            return f"memory {e['allocation'].get('memory')}"
        # The program's own frames are named (from its symbol table: it exports none); the Python
        # interpreter's are not the program's.
        if not python and not any(" in main+" in f for f in e["allocation"].get("allocated_at", [])):
            return f"no frame in main in the allocation's backtrace {e['allocation'].get('allocated_at')}"
        return None

    reasons = [why_not(e) for e in errors]
    if None not in reasons:
        fail(f"no report matches '{m.group(1)}' (got: {reasons})\n{c.stderr[-3000:]}")
    e = errors[reasons.index(None)]
    where = f"{os.path.basename(e['file'])}:{e['line']}" if "line" in e else ""
    if any(l.startswith("// cucatch-also: run the plain build under cucatch-run") for l in text):
        if not a.cucatch_run:
            fail("--cucatch-run is needed for this program")
        r = run([a.cucatch_run, "--", plain])
        if r.returncode != 1 or "cucatch: ERROR: " + kind not in r.stderr:
            fail(f"cucatch-run -- {a.name}.plain: exit {r.returncode}, expected 1 and a {kind} report\n{r.stderr[-2000:]}")
    expect_launch_twins(text, checked_cmd, env)
    p = run(plain_cmd)
    print(f"PASS: {a.name}: {kind} {e.get('access', '')} {e.get('size', '')} {e.get('kernel', '')} {where} "
          f"(plain build: exit {p.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
