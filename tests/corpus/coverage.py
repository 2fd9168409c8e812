#!/usr/bin/env python3
"""Construct coverage of the PTX corpus: for each construct, how many modules contain it, how
many times it occurs in all, and in which programs (the <prog> part of <prog>.<arch>.<mode>.ptx).

Usage: coverage.py [PTX_DIR] [--markdown] [--readme README.md]
  PTX_DIR      default: ptx/ next to this script
  --markdown   print the table as Markdown instead of plain text
  --readme F   also rewrite the parts of F between <!-- corpus-summary:begin/end --> and
               <!-- coverage:begin/end --> with the corpus summary and the Markdown table
Exits 1 if a construct marked required (third field below) is absent from every module: the
README promises those, so a toolkit change that loses one must be noticed.
"""
import os
import re
import sys
from collections import defaultdict

# (label, regex, required). Regexes are matched per line (re.M) against the whole module text.
CONSTRUCTS = [
    (".callprototype", r"\.callprototype\b", True),
    ("call (indirect, through a register)", r"\bcall(?:\.uni)?\s+(?:\([^)]*\),\s*)?%rd\d+", True),
    ("brx.idx", r"\bbrx\.idx\b", True),
    (".branchtargets", r"\.branchtargets\b", True),
    (".calltargets", r"\.calltargets\b", False),
    ("generic( initializer", r"\bgeneric\(", True),
    (".section .debug_*", r"^\s*\.section\s+\.debug", True),
    (".file", r"^\s*\.file\b", True),
    (".loc", r"^\s*\.loc\b", True),
    (".loc ... inlined_at", r"^\s*\.loc\b.*\binlined_at\b", True),
    (".maxntid", r"\.maxntid\b", True),
    (".reqntid", r"\.reqntid\b", True),
    (".minnctapersm", r"\.minnctapersm\b", True),
    (".maxnreg", r"\.maxnreg\b", True),
    (".pragma", r"^\s*\.pragma\b", True),
    (".explicitcluster", r"\.explicitcluster\b", True),
    (".reqnctapercluster", r"\.reqnctapercluster\b", True),
    (".maxclusterrank", r"\.maxclusterrank\b", True),
    (".alias", r"^\s*\.alias\b", False),
    (".weak", r"^\s*\.weak\b", True),
    (".common", r"^\s*\.common\b", False),
    (".extern .func", r"^\s*\.extern\s+\.func\b", True),
    (".extern .shared", r"^\s*\.extern\s+\.shared\b", True),
    (".visible .func", r"^\s*\.visible\s+\.func\b", True),
    (".func (internal)", r"^\s*\.func\b", True),
    (".tex / .texref", r"\.(?:tex|texref)\b(?!\.)", True),
    (".surfref / .samplerref", r"\.(?:surfref|samplerref)\b", True),
    ("tex.* (instruction)", r"^\s*(?:@!?%p\d+\s+)?tex\.", True),
    ("tld4", r"\btld4\.", True),
    ("suld / sust", r"\b(?:suld|sust)\.", True),
    (".const", r"^\s*(?:\.visible\s+)?\.const\b", True),
    (".global variable", r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.global\s+\.(?:align|[usfb]\d)", True),
    (".shared (module or function scope)", r"^\s*(?:\.extern\s+)?\.shared\s+\.align", True),
    (".v2", r"\.v2\.", True),
    (".v4", r"\.v4\.", True),
    (".v8", r"\.v8\.", True),
    ("cp.async (non-bulk)", r"\bcp\.async\.(?:ca|cg|commit_group|wait_group|wait_all|mbarrier)", True),
    ("cp.async.bulk", r"\bcp\.async\.bulk\b", True),
    ("wmma.*", r"\bwmma\.", True),
    ("mma.sync", r"\bmma\.sync\b", True),
    ("ldmatrix", r"\bldmatrix\.", True),
    ("wgmma.*", r"\bwgmma\.", True),
    ("setmaxnreg", r"\bsetmaxnreg\.", True),
    ("mbarrier.*", r"\bmbarrier\.", True),
    ("atom.*", r"\batom\.", True),
    ("atom with .sem/.scope (e.g. .acq_rel, .sys, .cta)", r"\batom\.(?:[a-z_]+\.)*(?:acquire|release|acq_rel|relaxed|sys|cta|gpu|cluster)\b", True),
    ("atom.*.b16/.f16/.bf16 (16-bit)", r"\batom\.[a-z0-9_.:]*\.(?:b16|f16|bf16|f16x2|bf16x2)\b", True),
    ("atom.cas", r"\batom\.[a-z0-9_.:]*cas\b", True),
    ("red.*", r"\bred\.", True),
    ("prmt", r"\bprmt\.", True),
    ("ld.global.nc", r"\bld\.global\.nc\b", True),
    ("ld/st with cache operator (.cs .cg .lu .wt ...)", r"\b(?:ld|st)\.global\.(?:cs|cg|lu|wt|ca|cv)\b", True),
    (".local depot (__local_depot)", r"__local_depot", True),
    ("%dynamic_smem_size", r"%dynamic_smem_size\b", True),
    ("::-qualifier (any)", r"\.[A-Za-z0-9_]+::[A-Za-z0-9_]+", True),
    (".L2::cache_hint", r"\.L2::cache_hint\b", True),
    ("octal immediate", r"(?<![\w.%$])0[0-7]+\b(?!\.)", True),
    ("hex immediate", r"(?<![\w.%$])-?0[xX][0-9a-fA-F]+", True),
    ("binary immediate", r"(?<![\w.%$])0[bB][01]+\b", True),
    ("0f float literal", r"(?<![\w.%$])0[fF][0-9a-fA-F]{8}\b", True),
    ("0d double literal", r"(?<![\w.%$])0[dD][0-9a-fA-F]{16}\b", True),
    ("vprintf call", r"\bvprintf\b", True),
    ("malloc / free", r"\b(?:malloc|free)\b", True),
    ("shfl.sync", r"\bshfl\.sync\b", True),
    ("vote.sync", r"\bvote\.sync\b", True),
    ("match.*.sync", r"\bmatch\.(?:any|all)\.sync\b", True),
    ("redux.sync", r"\bredux\.sync\b", True),
    ("barrier / bar.sync", r"\b(?:barrier|bar)\.(?:sync|cta|red|arrive)\b", True),
    ("barrier.cluster", r"\bbarrier\.cluster\b", True),
    ("mapa (distributed shared memory)", r"\bmapa\.", True),
    ("fence.* / membar", r"\b(?:fence|membar)\.", True),
    ("f16 / f16x2 arithmetic", r"\.(?:f16|f16x2)\b", True),
    ("bf16 / bf16x2", r"\.(?:bf16|bf16x2)\b", True),
    ("f64 arithmetic", r"\.f64\b", True),
    ("cvta", r"\bcvta\.", True),
    ("isspacep", r"\bisspacep\.", True),
    ("trap", r"^\s*(?:@!?%p\d+\s+)?trap;", True),
    ("nanosleep", r"\bnanosleep\.", True),
    ("griddepcontrol", r"\bgriddepcontrol\.", True),
    ("elect.sync", r"\belect\.sync\b", True),
    (".noreturn", r"\.noreturn\b", False),
    (".param .align N .b8 x[N] (aggregate param)", r"\.param\s+\.align\s+\d+\s+\.b8\s+\w+\[\d+\]", True),
    ("target ..., debug", r"^\s*\.target\s+[^\n]*\bdebug\b", True),
]


def prog_of(name):
    return name.split(".", 1)[0]


def summary(d, files):
    total = sum(os.path.getsize(os.path.join(d, f)) for f in files)
    versions = defaultdict(int)
    tools = defaultdict(int)
    for f in files:
        mode = f.rsplit(".", 2)[-2]
        tools["NVRTC 12.4" if mode.startswith("nvrtc124") else "NVRTC 11.8" if mode.startswith("nvrtc118") else "nvcc 13.0"] += 1
        with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(".version"):
                    versions[line.split()[1]] += 1
                    break
    progs = {prog_of(f) for f in files}
    vs = ", ".join(f"{v} ({versions[v]})" for v in sorted(versions, key=lambda v: tuple(map(int, v.split(".")))))
    ts = ", ".join(f"{t}: {tools[t]}" for t in ("nvcc 13.0", "NVRTC 12.4", "NVRTC 11.8") if tools[t])
    no_g = sorted(p for p in progs if not any(f.startswith(p + ".") and f.endswith(".G.ptx") for f in files))
    return (f"{len(files)} modules from {len(progs)} programs, {total} bytes ({total / 2**20:.1f} MiB); "
            f"{ts}; PTX ISA versions (modules): {vs}. "
            f"Programs without an nvcc -G module (dropped for size): {', '.join(no_g) or 'none'}.")


def replace_block(text, name, body):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return text
    return text[: i + len(begin)] + "\n" + body.rstrip("\n") + "\n" + text[j:]


def main():
    argv = sys.argv[1:]
    readme = None
    if "--readme" in argv:
        k = argv.index("--readme")
        readme = argv[k + 1]
        del argv[k : k + 2]
    args = [a for a in argv if not a.startswith("--")]
    md = "--markdown" in argv
    d = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "ptx")
    files = sorted(f for f in os.listdir(d) if f.endswith(".ptx"))
    pats = [(l, re.compile(r, re.M), req) for l, r, req in CONSTRUCTS]
    nfiles = defaultdict(int)
    nocc = defaultdict(int)
    progs = defaultdict(set)
    for f in files:
        text = open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
        for l, p, _ in pats:
            c = len(p.findall(text))
            if c:
                nfiles[l] += 1
                nocc[l] += c
                progs[l].add(prog_of(f))
    missing = []
    table = ["| construct | modules | occurrences | programs |", "| --- | ---: | ---: | --- |"]
    plain = [f"{'construct':55s} {'mods':>5s} {'occurs':>9s}  programs"]
    for l, _, req in CONSTRUCTS:
        ps = sorted(progs[l])
        shown = ", ".join(ps[:6]) + (f", … (+{len(ps) - 6})" if len(ps) > 6 else "")
        label = l.replace("|", "\\|")
        table.append(f"| `{label}`{'' if req else ' (optional)'} | {nfiles[l]} | {nocc[l]} | {shown or '**none**'} |")
        plain.append(f"{l:55s} {nfiles[l]:5d} {nocc[l]:9d}  {shown or '-- none --'}")
        if not nfiles[l]:
            missing.append((l, req))
    print("\n".join(table if md else plain))
    if missing:
        print(f"\nabsent: {', '.join(l + ('' if not req else ' (REQUIRED)') for l, req in missing)}")
    if readme:
        with open(readme, encoding="utf-8") as fh:
            text = fh.read()
        text = replace_block(text, "corpus-summary", summary(d, files))
        text = replace_block(text, "coverage", "\n".join(table))
        with open(readme, "w", encoding="utf-8") as fh:
            fh.write(text)
    return 1 if any(req for _, req in missing) else 0


if __name__ == "__main__":
    sys.exit(main())
